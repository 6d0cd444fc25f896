import type { JsonSchema } from "kernel";
import { MAX_NAME, MAX_OBSERVATION, VISIBILITIES } from "./model.ts";

/** Property schemas shared by the knowledge-graph tools (argument shapes of the reference server). */
export const P = {
  name: { type: "string", minLength: 1, maxLength: MAX_NAME } as JsonSchema,
  /** An entity name used to look something up: any string (unknown names are skipped). */
  ref: { type: "string", maxLength: MAX_NAME * 4 } as JsonSchema,
  text: { type: "string", maxLength: MAX_OBSERVATION } as JsonSchema,
  project: {
    type: "string",
    maxLength: 200,
    description: 'Project tag; empty or omitted means untagged (needs the untagged grant). "*" is not a project.',
  } as JsonSchema,
  visibility: {
    type: "string",
    enum: [...VISIBILITIES],
    description:
      "shared (default): everyone whose grants cover the project sees it. private: only its creator (still inside the project grants); the name stays taken for everyone else.",
  } as JsonSchema,
};

/** {from, to, relationType}, strict. */
export const RELATION_IN: JsonSchema = {
  type: "object",
  additionalProperties: false,
  required: ["from", "to", "relationType"],
  properties: {
    from: { ...P.ref, description: "The name of the entity where the relation starts" },
    to: { ...P.ref, description: "The name of the entity where the relation ends" },
    relationType: { ...P.name, description: "The type of the relation (active voice, e.g. works_at)" },
  },
};

export const RELATION_OUT: JsonSchema = {
  type: "object",
  required: ["from", "to", "relationType"],
  properties: { from: { type: "string" }, to: { type: "string" }, relationType: { type: "string" } },
};

export const STRINGS: JsonSchema = { type: "array", items: { type: "string" } };
export const COUNT: JsonSchema = { type: "integer", minimum: 0 };

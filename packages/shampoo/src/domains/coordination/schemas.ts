import type { JsonSchema } from "kernel";

/** JSON Schema pieces coordination's tools share. */
export const P = {
  id: (what: string): JsonSchema => ({ type: "string", maxLength: 100, description: `${what} (a UUID).` }),
  ref: (what: string): JsonSchema => ({ type: "string", maxLength: 500, description: what }),
  name: (what: string): JsonSchema => ({ type: "string", maxLength: 200, description: what }),
  project: { type: "string", maxLength: 200, description: "A project name ('*' is never a project)." } as JsonSchema,
  limit: { type: "integer", description: "At most this many (default 20, clamped to 1..100)." } as JsonSchema,
  fence: {
    type: "integer",
    minimum: 1,
    description:
      "The fencing token job_claim answered. With it the call succeeds only while that very lease holds the job: a holder whose lease expired and was taken over is refused (lease_lost), whoever the principal.",
  } as JsonSchema,
};

/** A success object with these properties (all listed as required unless `optional`). */
export function shape(properties: Record<string, JsonSchema>, optional: string[] = []): JsonSchema {
  return {
    type: "object",
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    properties,
  };
}

export const S = {
  str: { type: "string" } as JsonSchema,
  nstr: { type: ["string", "null"] } as JsonSchema,
  int: { type: "integer" } as JsonSchema,
  bool: { type: "boolean" } as JsonSchema,
  list: (items: JsonSchema): JsonSchema => ({ type: "array", items }),
  obj: { type: "object" } as JsonSchema,
};

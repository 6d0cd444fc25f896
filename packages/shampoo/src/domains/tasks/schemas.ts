import type { JsonSchema } from "kernel";
import { PRIORITIES, SECTIONS, STATUSES, TYPES, UUID } from "./model.ts";

/** Property schemas shared by the task tools. */
export const P = {
  uuid: { type: "string", pattern: UUID } as JsonSchema,
  title: { type: "string", minLength: 1, maxLength: 500 } as JsonSchema,
  text: { type: "string", maxLength: 100_000 } as JsonSchema,
  project: { type: "string", maxLength: 200, description: "Project tag; empty means untagged" } as JsonSchema,
  priority: { type: "string", enum: [...PRIORITIES] } as JsonSchema,
  section: { type: "string", enum: [...SECTIONS] } as JsonSchema,
  status: { type: "string", enum: [...STATUSES] } as JsonSchema,
  type: { type: "string", enum: [...TYPES] } as JsonSchema,
  limit: { type: "integer" } as JsonSchema,
  bool: { type: "boolean" } as JsonSchema,
};

/** The public task shape (taskView). */
export const TASK: JsonSchema = {
  type: "object",
  required: ["id", "title", "type", "status", "priority", "section"],
  properties: {
    id: { type: "string" },
    title: { type: "string" },
    type: { type: "string" },
    status: { type: "string" },
    priority: { type: "string" },
    section: { type: "string" },
    project: { type: ["string", "null"] },
  },
};

import { input, output, tool } from "../../../tooling.ts";
import { status as runStatus } from "../service/status.ts";

const COUNT = { type: "integer", minimum: 0 };

export const status = tool({
  name: "status",
  title: "Service and caller status",
  description:
    "Status of this session and the service: product, version, backend, database, profile, who you are (caller, role), your visibility (self, or global for a star grant), counts of what you can see (tasks, notes, live entities, sessions, live facts; a foreign project's rows never count), tools_total (the tools this session can call) and tools_debate. Takes no arguments; pure read.",
  inputSchema: input({}),
  outputSchema: output({
    type: "object",
    required: [
      "product",
      "version",
      "backend",
      "database",
      "profile",
      "caller",
      "role",
      "visibility",
      "counts",
      "tools_total",
      "tools_debate",
    ],
    additionalProperties: false,
    properties: {
      product: { type: "string" },
      version: { type: "string" },
      backend: { type: "string", enum: ["sqlite", "postgres"] },
      database: { type: "string" },
      profile: { type: "string" },
      caller: { type: "string" },
      role: { type: "string" },
      visibility: { type: "string", enum: ["self", "global"] },
      counts: {
        type: "object",
        required: ["tasks", "notes", "entities", "sessions", "facts"],
        additionalProperties: false,
        properties: { tasks: COUNT, notes: COUNT, entities: COUNT, sessions: COUNT, facts: COUNT },
      },
      tools_total: COUNT,
      tools_debate: COUNT,
    },
  }),
  examples: [{ title: "who am I, what do I see", input: {} }],
  kind: "read",
  run: (_a, ctx) => runStatus(ctx),
});

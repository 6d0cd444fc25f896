import { input, output, tool } from "../../../tooling.ts";
import type { ReadGraphInput } from "../inputs.gen.ts";
import { COUNT, RELATION_OUT, STRINGS } from "../schemas.ts";
import { READ_GRAPH_DEFAULT_LIMIT, READ_GRAPH_MAX_LIMIT, readGraph } from "../service/reads.ts";

export const read_graph = tool<ReadGraphInput>({
  name: "read_graph",
  title: "Read graph",
  description: `Reads the visible graph as a paged snapshot in name order: live entities with their observations, plus the live relations leaving the page's entities (each once, on the page of its 'from' entity; its 'to' must be visible). total: visible live entities; has_more: a later page exists. limit ${READ_GRAPH_DEFAULT_LIMIT} by default (1..${READ_GRAPH_MAX_LIMIT}); offset 0.`,
  inputSchema: input({
    limit: { type: "integer", description: `Page size (default ${READ_GRAPH_DEFAULT_LIMIT}).` },
    offset: { type: "integer", description: "Starting position in name order (default 0)." },
  }),
  outputSchema: output({
    type: "object",
    required: ["entities", "relations", "total", "has_more"],
    properties: {
      entities: {
        type: "array",
        items: {
          type: "object",
          required: ["name", "entityType", "project", "observations"],
          properties: {
            name: { type: "string" },
            entityType: { type: "string" },
            project: { type: ["string", "null"] },
            observations: STRINGS,
          },
        },
      },
      relations: { type: "array", items: RELATION_OUT },
      total: COUNT,
      has_more: { type: "boolean" },
    },
  }),
  examples: [
    {
      title: "the whole visible graph",
      input: {},
    },
  ],
  kind: "read",
  run: (a, ctx) => readGraph(ctx, a),
});

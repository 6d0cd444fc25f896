import { fx, input, output, tool } from "../../../tooling.ts";
import type { OpenNodesInput } from "../inputs.gen.ts";
import { RELATION_OUT, STRINGS } from "../schemas.ts";
import { openNodes } from "../service/reads.ts";

export const open_nodes = tool<OpenNodesInput>({
  name: "open_nodes",
  title: "Open nodes",
  description:
    "Opens named entities with their observations (in order) plus the relations that run directly between the opened entities. The precise read when the names are already known. Unknown, retired and out-of-scope names are silently omitted; non-string entries are skipped.",
  inputSchema: input({ names: { type: "array", description: "An array of entity names to retrieve" } }, ["names"]),
  outputSchema: output({
    type: "object",
    required: ["entities", "relations"],
    properties: {
      entities: {
        type: "array",
        items: {
          type: "object",
          required: ["name", "entityType", "observations"],
          properties: {
            name: { type: "string" },
            entityType: { type: "string" },
            observations: STRINGS,
            project: { type: "string" },
          },
        },
      },
      relations: { type: "array", items: RELATION_OUT },
    },
  }),
  examples: [
    {
      title: "open an entity by name",
      input: { names: [fx("entity")] },
    },
  ],
  kind: "read",
  run: (a, ctx) => openNodes(ctx, a),
});

import { fx, input, output, tool } from "../../../tooling.ts";
import type { CreateRelationsInput } from "../inputs.gen.ts";
import { COUNT, RELATION_IN, STRINGS } from "../schemas.ts";
import { createRelations } from "../service/relations.ts";

export const create_relations = tool<CreateRelationsInput>({
  name: "create_relations",
  title: "Create relations",
  description:
    "Creates directed relations (in active voice) between live entities you can see; an entry whose endpoint you cannot see, or a live duplicate (reused), is listed in skipped with why. A retired triple is revived. relation_ids: one per resolved entry. All-or-nothing.",
  inputSchema: input({ relations: { type: "array", items: RELATION_IN } }, ["relations"]),
  outputSchema: output({
    type: "object",
    required: ["created", "total_requested", "relation_ids"],
    properties: {
      created: COUNT,
      total_requested: COUNT,
      relation_ids: STRINGS,
      skipped: {
        type: "array",
        items: {
          type: "object",
          required: ["index", "reason"],
          properties: { index: COUNT, reason: { type: "string" } },
        },
      },
    },
  }),
  examples: [
    {
      title: "one relation",
      input: { relations: [{ from: fx("entity"), to: fx("entity2"), relationType: "depends_on" }] },
    },
  ],
  kind: "idempotent",
  run: (a, ctx) => createRelations(ctx, a),
});

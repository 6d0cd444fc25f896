import { fx, input, output, tool } from "../../../tooling.ts";
import type { DeleteRelationsInput } from "../inputs.gen.ts";
import { COUNT, RELATION_IN } from "../schemas.ts";
import { deleteRelations } from "../service/relations.ts";

export const delete_relations = tool<DeleteRelationsInput>({
  name: "delete_relations",
  title: "Retire relations",
  description:
    "Retires relations matched exactly by {from, to, relationType} (active → voided, stamped; re-creating the triple revives the same relation). Unknown or out-of-scope endpoints and non-matching triples are silently skipped; deleted counts those retired by this call. All-or-nothing.",
  inputSchema: input(
    { relations: { type: "array", items: RELATION_IN, description: "An array of relations to retire" } },
    ["relations"],
  ),
  outputSchema: output({ type: "object", required: ["deleted"], properties: { deleted: COUNT } }),
  examples: [
    {
      title: "retire a relation",
      input: { relations: [{ from: fx("entity"), to: fx("entity2"), relationType: "fixture_rel" }] },
    },
  ],
  kind: "idempotent",
  run: (a, ctx) => deleteRelations(ctx, a),
});

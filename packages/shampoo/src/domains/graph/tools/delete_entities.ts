import { fx, input, output, tool } from "../../../tooling.ts";
import type { DeleteEntitiesInput } from "../inputs.gen.ts";
import { COUNT, P } from "../schemas.ts";
import { deleteEntities } from "../service/entities.ts";

export const delete_entities = tool<DeleteEntitiesInput>({
  name: "delete_entities",
  title: "Retire entities",
  description:
    "Retires named entities from the active knowledge graph. Despite the name, nothing is physically deleted: each entity moves active → voided with voided_at/voided_by stamps, and creating the same name again revives the same identity. Observations, relations and aliases are not cascaded: they stay, read as absent while the entity is void, and come back with it. Unknown, already retired and out-of-scope names are silently skipped; deleted counts only entities retired by this call.",
  inputSchema: input(
    { entityNames: { type: "array", items: P.ref, description: "An array of entity names to retire" } },
    ["entityNames"],
  ),
  outputSchema: output({ type: "object", required: ["deleted"], properties: { deleted: COUNT } }),
  examples: [
    {
      title: "retire an entity",
      input: { entityNames: [fx("doomed")] },
    },
  ],
  kind: "idempotent",
  run: (a, ctx) => deleteEntities(ctx, a),
});

import { fx, input, output, tool } from "../../../tooling.ts";
import type { DeleteEntitiesInput } from "../inputs.gen.ts";
import { COUNT, P } from "../schemas.ts";
import { deleteEntities } from "../service/entities.ts";

export const delete_entities = tool<DeleteEntitiesInput>({
  name: "delete_entities",
  title: "Retire entities",
  description:
    "Retires named entities; nothing is physically deleted (active → voided, stamped), and creating the name again revives the same identity. Observations, relations and aliases are not cascaded: they read as absent while the entity is void and come back with it. Unknown, retired and out-of-scope names are silently skipped; deleted counts entities retired by this call.",
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

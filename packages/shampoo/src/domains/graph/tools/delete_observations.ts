import { fx, input, output, tool } from "../../../tooling.ts";
import type { DeleteObservationsInput } from "../inputs.gen.ts";
import { COUNT, P } from "../schemas.ts";
import { deleteObservations } from "../service/observations.ts";

export const delete_observations = tool<DeleteObservationsInput>({
  name: "delete_observations",
  title: "Retire observations",
  description:
    "Retires exact observation texts from named entities (active → voided, stamped; re-adding the text revives the same observation). Unknown entities or texts and non-string items are silently skipped; deleted counts those retired by this call. All-or-nothing.",
  inputSchema: input(
    {
      deletions: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["entityName", "observations"],
          properties: {
            entityName: { ...P.ref, description: "The name of the entity containing the observations" },
            observations: { type: "array", description: "An array of observations to retire (exact text)" },
          },
        },
      },
    },
    ["deletions"],
  ),
  outputSchema: output({ type: "object", required: ["deleted"], properties: { deleted: COUNT } }),
  examples: [
    {
      title: "retire an observation",
      input: { deletions: [{ entityName: fx("entity"), observations: ["fixture observation"] }] },
    },
  ],
  kind: "idempotent",
  run: (a, ctx) => deleteObservations(ctx, a),
});

import { fx, input, output, tool } from "../../../tooling.ts";
import type { AddObservationsInput } from "../inputs.gen.ts";
import { COUNT, P, STRINGS } from "../schemas.ts";
import { addObservations } from "../service/observations.ts";

export const add_observations = tool<AddObservationsInput>({
  name: "add_observations",
  title: "Add observations",
  description:
    "Adds observation texts to existing entities. Duplicate text is skipped; re-adding retired text revives it. Unknown, retired and out-of-scope entities are silently skipped (names cannot be probed), as are non-string contents; an entry without contents still refreshes the entity's timestamp. All-or-nothing.",
  inputSchema: input(
    {
      observations: {
        type: "array",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["entityName"],
          properties: {
            entityName: { ...P.ref, description: "The name of the entity to add the observations to" },
            contents: { type: "array", description: "An array of observation contents to add (strings)" },
          },
        },
      },
    },
    ["observations"],
  ),
  outputSchema: output({
    type: "object",
    required: ["added", "observation_ids"],
    properties: { added: COUNT, observation_ids: STRINGS },
  }),
  examples: [
    {
      title: "add an observation",
      input: { observations: [{ entityName: fx("entity"), contents: ["seen by e2e"] }] },
    },
  ],
  kind: "idempotent",
  run: (a, ctx) => addObservations(ctx, a),
});

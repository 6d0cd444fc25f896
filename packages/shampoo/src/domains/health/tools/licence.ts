import { input, output, tool } from "../../../tooling.ts";
import { licence as judge, LICENCE_ENV } from "../service/status.ts";

export const licence = tool({
  name: "licence",
  title: "Licence information",
  description: `Licence compliance information for this SHAMPOO copy: FREE, or VALID PERPETUAL LICENCE when the artefact the ${LICENCE_ENV} environment variable names is valid; artefact_present says whether one was found; legacy_preset is a display-only guess for older artefacts. The answer never changes what the software can do: the artefact unlocks nothing and its absence refuses nothing. Takes no arguments; pure read.`,
  inputSchema: input({}),
  outputSchema: output({
    type: "object",
    required: ["licence", "artefact_present", "legacy_preset"],
    additionalProperties: false,
    properties: {
      licence: { type: "string", enum: ["FREE", "VALID PERPETUAL LICENCE"] },
      artefact_present: { type: "boolean" },
      legacy_preset: { type: ["string", "null"] },
    },
  }),
  examples: [{ title: "this copy's licence", input: {} }],
  kind: "read",
  run: async () => ({ ...judge() }),
});

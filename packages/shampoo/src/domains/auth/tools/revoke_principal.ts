import { fx, input, output, tool } from "../../../tooling.ts";
import type { RevokePrincipalInput } from "../inputs.gen.ts";
import { revokePrincipal } from "../service/registry.ts";

export const revoke_principal = tool<RevokePrincipalInput>({
  name: "revoke_principal",
  title: "Revoke an enrolled principal",
  description:
    "Conductor only. Revokes an enrolled principal (by client_id, in your profile): its bootstrap credential stops working (a later handshake answers 'handshake failed') and every active session of it is revoked, on every instance from its very next call. Nothing is deleted; the rows keep who revoked, when and why. Returns client_id, revoked (false if it already was), status and sessions_revoked. Unknown or foreign ids: 'principal not found'.",
  inputSchema: input(
    {
      client_id: {
        type: "string",
        maxLength: 200,
        description: "The principal's client_id (from the session grant or list_sessions).",
      },
      reason: { type: ["string", "null"], maxLength: 4096, description: "Why, for the audit trail." },
    },
    ["client_id"],
  ),
  outputSchema: output({
    type: "object",
    required: ["client_id", "revoked", "status", "sessions_revoked"],
    additionalProperties: false,
    properties: {
      client_id: { type: "string" },
      revoked: { type: "boolean" },
      status: { type: "string" },
      sessions_revoked: { type: "integer" },
    },
  }),
  examples: [{ title: "revoke the fixture's principal", input: { client_id: fx("authClientId"), reason: "e2e" } }],
  kind: "write",
  access: ["conductor"],
  run: (a, ctx) => revokePrincipal(ctx, a),
});

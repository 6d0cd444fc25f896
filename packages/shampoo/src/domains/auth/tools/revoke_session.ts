import { fx, input, output, tool } from "../../../tooling.ts";
import type { RevokeSessionInput } from "../inputs.gen.ts";
import { revokeSession } from "../service/registry.ts";

export const revoke_session = tool<RevokeSessionInput>({
  name: "revoke_session",
  title: "Revoke a registry session",
  description:
    "Conductor only. Revokes one registry session (in your profile): its bearer token is refused on every instance from its very next call; the principal may still open a new session with its bootstrap credential (revoke_principal stops that). Nothing is deleted; the row keeps who revoked, when and why. Returns session_id, revoked (false if it was not active) and status. Unknown or foreign ids: 'session not found'.",
  inputSchema: input(
    {
      session_id: { type: "string", maxLength: 200, description: "The registry session's id (list_sessions)." },
      reason: { type: ["string", "null"], maxLength: 4096, description: "Why, for the audit trail." },
    },
    ["session_id"],
  ),
  outputSchema: output({
    type: "object",
    required: ["session_id", "revoked", "status"],
    additionalProperties: false,
    properties: { session_id: { type: "string" }, revoked: { type: "boolean" }, status: { type: "string" } },
  }),
  examples: [{ title: "revoke the fixture's session", input: { session_id: fx("authSessionId"), reason: "e2e" } }],
  kind: "write",
  access: ["conductor"],
  run: (a, ctx) => revokeSession(ctx, a),
});

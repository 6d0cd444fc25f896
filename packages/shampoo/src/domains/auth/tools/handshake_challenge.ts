import { fx, input, output, tool } from "../../../tooling.ts";
import type { HandshakeChallengeInput } from "../inputs.gen.ts";
import { handshakeChallenge } from "../service/handshake.ts";

const text = (description: string) => ({ type: "string", maxLength: 4096, description });

export const handshake_challenge = tool<HandshakeChallengeInput>({
  name: "handshake_challenge",
  title: "Begin a hybrid session handshake",
  description:
    "Begins a hybrid session handshake (P-256 ECDH + ML-KEM-768) and returns a one-time challenge with the server's ephemeral public keys: challenge_id, server_ecdh, server_kem (base64url), suite and expires_in (300 s). Client machinery (npx shampoo login, the client helper); ordinary users never call it. The challenge is kept in the database, so any instance completes it with handshake_complete; at most 64 are live at once. The ref is shape-checked only: whether it exists is decided at completion, so refs cannot be probed. Any failure (bad ref shape, bad client kind, overlong metadata, a full challenge table) answers the one generic 'handshake failed'.",
  inputSchema: input(
    {
      ref_kind: text("bootstrap (an enrolled client's id) or ticket (a one-time ticket id)."),
      ref_id: text("The ticket_id or client_id; shape-checked only here."),
      client_kind: text("Optional session kind: client or spoke (bound into the session row)."),
      client_name: text("Optional client metadata, stored with the slot; never authority (at most 200 characters)."),
      client_version: text("Optional client metadata; never authority."),
      client_instance_id: text("Optional client metadata; never authority."),
      transport: text("Optional client metadata; never authority."),
      user_agent: text("Optional client metadata; never authority."),
    },
    ["ref_kind", "ref_id"],
  ),
  outputSchema: output({
    type: "object",
    required: ["challenge_id", "server_ecdh", "server_kem", "suite", "expires_in"],
    additionalProperties: false,
    properties: {
      challenge_id: { type: "string" },
      server_ecdh: { type: "string" },
      server_kem: { type: "string" },
      suite: { type: "string" },
      expires_in: { type: "integer" },
    },
  }),
  examples: [
    {
      title: "begin a ticket enrolment",
      input: { ref_kind: "ticket", ref_id: fx("authTicketId"), client_name: "e2e", client_kind: "client" },
    },
  ],
  kind: "write",
  run: (a, ctx) => handshakeChallenge(ctx, a),
});

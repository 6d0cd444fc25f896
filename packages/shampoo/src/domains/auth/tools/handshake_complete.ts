import { fx, input, output, tool } from "../../../tooling.ts";
import type { HandshakeCompleteInput } from "../inputs.gen.ts";
import { handshakeComplete } from "../service/handshake.ts";

const b64u = (description: string) => ({ type: "string", maxLength: 65_536, description });

export const handshake_complete = tool<HandshakeCompleteInput>({
  name: "handshake_complete",
  title: "Complete a hybrid handshake",
  description:
    "Completes a hybrid handshake: consumes the challenge (single use, success or failure), derives the shared secret over the whole transcript (both public keys and the KEM ciphertext bound in), opens the AES-256-GCM credential envelope (a ticket or bootstrap secret), and returns the session grant sealed with AES-256-GCM: iv, ct, tag (base64url). Inside: session_id, client_id, principal, expires_at (one hour), session_token (the bearer token for Streamable HTTP), profile, and on the ticket path the new bootstrap_secret that renews sessions. A ticket is burned, its principal provisioned and the session opened in one atomic write; grants come only from the server-held ticket. Every failure (unknown, reused or expired challenge, wrong key lengths, a tampered envelope or KEM ciphertext, an unknown, used or revoked credential) answers the one generic 'handshake failed'.",
  inputSchema: input(
    {
      challenge_id: b64u("From handshake_challenge; single use."),
      client_ecdh: b64u("The client's ephemeral P-256 public point, uncompressed (65 bytes), base64url."),
      kem_ct: b64u("The ML-KEM-768 ciphertext (1088 bytes), base64url."),
      envelope_iv: b64u("The credential envelope's AES-GCM nonce (12 bytes), base64url."),
      envelope_ct: b64u("The credential envelope's ciphertext, base64url."),
      envelope_tag: b64u("The credential envelope's AES-GCM tag (16 bytes), base64url."),
      profile: b64u("The profile boundary requested (default 'default'); never authority."),
    },
    ["challenge_id", "client_ecdh"],
  ),
  outputSchema: output({
    type: "object",
    required: ["iv", "ct", "tag"],
    additionalProperties: false,
    properties: { iv: { type: "string" }, ct: { type: "string" }, tag: { type: "string" } },
  }),
  examples: [
    {
      title: "complete the fixture's ticket handshake",
      input: {
        challenge_id: fx("authChallengeId"),
        client_ecdh: fx("authClientEcdh"),
        kem_ct: fx("authKemCt"),
        envelope_iv: fx("authEnvelopeIv"),
        envelope_ct: fx("authEnvelopeCt"),
        envelope_tag: fx("authEnvelopeTag"),
        profile: fx("authProfile"),
      },
    },
  ],
  kind: "write",
  run: (a, ctx) => handshakeComplete(ctx, a),
});

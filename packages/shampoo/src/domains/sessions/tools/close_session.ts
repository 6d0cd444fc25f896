import { fx, input, output, tool } from "../../../tooling.ts";
import type { CloseSessionInput } from "../inputs.gen.ts";
import { closeSession } from "../service.ts";

export const close_session = tool<CloseSessionInput>({
  name: "close_session",
  title: "Close a session",
  description:
    "Closes a live session of your own principal (star does not bypass ownership): it moves to ended; nothing is removed, and a later session_save renews it. Returns closed (the session_id as given) and matched (1 closed, 0 untouched). Foreign, unknown, malformed or ended ids are not errors: matched 0, with no hint whether the session exists.",
  inputSchema: input(
    { session_id: { type: "string", maxLength: 200, description: "UUID of the session to close (required)." } },
    ["session_id"],
  ),
  outputSchema: output({
    type: "object",
    required: ["closed", "matched"],
    additionalProperties: false,
    properties: { closed: { type: "string" }, matched: { type: "integer", enum: [0, 1] } },
  }),
  examples: [
    {
      title: "close a saved session",
      input: { session_id: fx("sessionId") },
    },
  ],
  kind: "idempotent",
  run: (a, ctx) => closeSession(ctx, a),
});

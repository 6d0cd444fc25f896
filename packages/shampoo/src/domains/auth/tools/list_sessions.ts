import { fx, input, output, tool } from "../../../tooling.ts";
import type { ListSessionsInput } from "../inputs.gen.ts";
import { listSessions } from "../service/registry.ts";

export const list_sessions = tool<ListSessionsInput>({
  name: "list_sessions",
  title: "List registry sessions",
  description:
    "Conductor only. Lists the registry sessions of your profile, newest first: principal, client_id, status (active, revoked, expired, ended), generation, timestamps, client application/version/instance, transport, peer, revocation state and profile; with count. client_id narrows to one enrolled principal; status narrows by status (an unknown value matches nothing). limit defaults 20, clamped 1..100. Audit metadata only: the registry holds no key material. A pure read; records nothing.",
  inputSchema: input({
    client_id: { type: ["string", "null"], maxLength: 200, description: "Narrows to one principal; empty means all." },
    limit: { type: "integer", description: "Defaults 20, clamped 1..100." },
    status: { type: ["string", "null"], maxLength: 100, description: "active, revoked, expired or ended." },
  }),
  outputSchema: output({
    type: "object",
    required: ["sessions", "count"],
    additionalProperties: false,
    properties: { sessions: { type: "array", items: { type: "object" } }, count: { type: "integer" } },
  }),
  examples: [
    { title: "every session of the profile", input: {} },
    { title: "one principal's active sessions", input: { client_id: fx("authClientId"), status: "active" } },
  ],
  kind: "read",
  access: ["conductor"],
  run: (a, ctx) => listSessions(ctx, a),
});

import { fx, input, output, tool } from "../../../tooling.ts";
import type { IssueTicketInput } from "../inputs.gen.ts";
import { issueTicket } from "../service/registry.ts";

export const issue_ticket = tool<IssueTicketInput>({
  name: "issue_ticket",
  title: "Issue a one-time enrolment ticket",
  description:
    'Conductor only. Issues a one-time enrolment ticket bound server-side to a user, a role (agent by default, or conductor) and projects, in your profile: ticket_id and secret (shown once; deliver it out of band), expires_at, profile and a note. The agent host redeems it with `npx shampoo login` (a hybrid handshake): the ticket burns, the principal is provisioned with exactly this grant and gets a one-hour session; the grant never comes from the redeeming caller. Projects must lie within your own grants ("" needs your untagged grant, "*" your star). ttl_seconds defaults 3600 (60 .. 30 days); ticket_kind standard (default) or spoke. Non-conductors get requires-conductor; a bad user, projects, role, kind or TTL answers \'ticket issue failed\'.',
  inputSchema: input(
    {
      user: { type: "string", maxLength: 4096, description: "The principal the ticket enrols (the grant's subject)." },
      projects: {
        type: "array",
        maxItems: 100,
        items: { type: "string", maxLength: 4096 },
        description: 'The projects granted ("" the untagged enclave, "*" every named project), within your own grants.',
      },
      role: { type: "string", maxLength: 100, description: "agent (default) or conductor." },
      ticket_kind: { type: "string", maxLength: 100, description: "standard (default) or spoke." },
      ttl_seconds: {
        type: "integer",
        description: "How long the ticket may be redeemed: default 3600, 60 .. 2592000.",
      },
      reason: { type: ["string", "null"], maxLength: 4096, description: "Why, for the audit trail." },
    },
    ["user", "projects"],
  ),
  outputSchema: output({
    type: "object",
    required: ["ticket_id", "secret", "note"],
    additionalProperties: false,
    properties: {
      ticket_id: { type: "string" },
      secret: { type: "string" },
      note: { type: "string" },
      expires_at: { type: "string" },
      profile: { type: "string" },
    },
  }),
  examples: [
    {
      title: "enrol an agent on one project",
      input: { user: "e2e-agent", projects: [fx("project")], reason: "e2e enrolment" },
    },
  ],
  kind: "write",
  access: ["conductor"],
  run: (a, ctx) => issueTicket(ctx, a),
});

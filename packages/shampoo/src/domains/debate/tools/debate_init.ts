import { fx, input, output, tool } from "../../../tooling.ts";
import { D } from "../schemas.ts";
import { type DebateInitArgs, debateInit } from "../service/topics.ts";

export const debate_init = tool<DebateInitArgs>({
  name: "debate_init",
  title: "Start a debate topic",
  description:
    "Bootstraps a new debate topic (state INIT): declares the roster, seeds active bindings and optionally configures debate/v1 (two blind roles, rounds 1..10, phase deadlines). roles_json is a JSON array of {role, session_id}: a session id you give must be a session you own in your scope (star never substitutes for ownership); an omitted session_id is minted as a fresh identity you own; session_id null declares an open seat that its future owner takes with debate_bind_role. project: explicit when writable; otherwise your single grant, untagged for star/conductor, required for multi-grant callers. metadata_json may carry lane (P0..P7) with lane_reason; a conductor's legacy_project_unset: true imports a legacy topic whose project is unset (sentinel: it denies everyone until debate_reconcile_project). A repeat with topic_id and the identical shape returns the existing topic; a differing shape is rejected. Nothing is partially created on failure.",
  kind: "write",
  inputSchema: input(
    {
      title: { type: "string", minLength: 1, maxLength: 500, description: "Non-empty title." },
      created_by_role: D.role("The role posting the init; must be declared in roles_json."),
      blind_roles_csv: D.optText(
        200,
        "debate/v1: exactly two declared roles whose positions stay blind until both commit.",
      ),
      max_rounds: D.int(1, 10, "debate/v1: rounds 1..10 (default 3)."),
      metadata_json: D.optText(20_000, "JSON object; lane (P0..P7) + lane_reason set the priority lane."),
      phase_timeout_seconds: D.int(
        60,
        604_800,
        "debate/v1: each phase's deadline in seconds (at least 60; default 3600).",
      ),
      project: D.optText(200, "Topic-owned immutable project (see the description for its default)."),
      protocol_version: {
        type: ["string", "null"],
        enum: ["", "debate/v1", null],
        description: "Empty for legacy behaviour, or debate/v1.",
      },
      resolve_by: D.optIsoUtc("Optional ISO-8601 UTC deadline."),
      roles_json: D.optText(20_000, "JSON array of {role, session_id} entries (see the description)."),
      topic_id: D.optUuid("A previously returned topic id: repeats with the identical shape return it."),
    },
    ["title", "created_by_role"],
  ),
  outputSchema: output({
    type: "object",
    required: ["topic_id", "title", "state", "created_at", "created_by_role", "roles", "seeded_bindings"],
    properties: {
      topic_id: { type: "string" },
      title: { type: "string" },
      state: { type: "string" },
      created_at: { type: "string" },
      created_by_role: { type: "string" },
      resolve_by: { type: ["string", "null"] },
      archived_at: { type: ["string", "null"] },
      roles: { type: "array", items: { type: "string" } },
      metadata: { type: "object" },
      seeded_bindings: { type: "array" },
      protocol_state: { type: "object" },
    },
  }),
  examples: [
    {
      title: "start a topic with a conductor bound to a minted session",
      input: {
        title: "Musl-first packaging",
        created_by_role: "CONDUCTOR",
        project: fx("project"),
        roles_json: '[{"role":"CONDUCTOR"},{"role":"PARTICIPANT","session_id":null}]',
      },
    },
  ],
  run: (a, ctx) => debateInit(ctx, a),
});

import { fx, input, output, tool } from "../../../tooling.ts";
import type { SessionSaveInput } from "../inputs.gen.ts";
import { sessionSave } from "../service.ts";

export const session_save = tool<SessionSaveInput>({
  name: "session_save",
  title: "Save a session snapshot",
  description:
    "Saves a session snapshot (project, summary, active files) that outlives the current run: created on the first call, updated by later calls with the same id. Omit session_id (or send it blank) for a fresh UUID; a malformed id answers 'session_id must be a UUID returned by session_save'. An update keeps what the call leaves out; ended_at is set to now on every save. Only your own sessions (any with star) inside your grants, else 'session not found'. No project on creation is an untagged write (needs the untagged grant). handoff_to hands it to a named principal (a 'handoff' history event), who may then resume_context and session_save it; closing stays the owner's.",
  inputSchema: input({
    active_files: {
      type: ["array", "null"],
      items: { type: "string", maxLength: 4096 },
      description: "Files in play. Empty, missing or null stores as null; otherwise stored as a JSON list.",
    },
    project: {
      type: ["string", "null"],
      maxLength: 200,
      description: "Project tag; must be granted now. Omitted on creation: untagged (needs the untagged grant).",
    },
    session_id: {
      type: ["string", "null"],
      maxLength: 200,
      description: "UUID of the session to update. Omit or blank for a fresh server-assigned UUID.",
    },
    summary: { type: ["string", "null"], maxLength: 100_000, description: "Where the work stands." },
    handoff_to: {
      type: ["string", "null"],
      maxLength: 200,
      description:
        "Owner only: hand the session to this named principal, who may then resume and save it (recorded in history as a handoff). Everyone else still reads 'session not found'.",
    },
  }),
  outputSchema: output({
    type: "object",
    required: ["action", "session_id"],
    additionalProperties: false,
    properties: { action: { type: "string", enum: ["created", "updated"] }, session_id: { type: "string" } },
  }),
  examples: [
    {
      title: "save a session with its files",
      input: {
        summary: "E2E: every tool over every transport",
        project: fx("project"),
        active_files: ["packages/shampoo/src/cli.ts"],
      },
    },
  ],
  kind: "write",
  run: (a, ctx) => sessionSave(ctx, a),
});

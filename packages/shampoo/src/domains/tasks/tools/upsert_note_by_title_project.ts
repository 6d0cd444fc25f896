import { fx, input, output, tool } from "../../../tooling.ts";
import type { UpsertNoteByTitleProjectInput } from "../inputs.gen.ts";
import { PRIORITIES, SECTIONS } from "../model.ts";
import { P } from "../schemas.ts";
import { MATCHED_ON, upsertNoteByTitleProject } from "../service/write.ts";

export const upsert_note_by_title_project = tool<UpsertNoteByTitleProjectInput>({
  name: "upsert_note_by_title_project",
  title: "Create or update a note by title and project",
  description:
    "Creates a note, or updates the note with the same normalized title (case, spacing and accents ignored) in the same project: repeated runs converge on one note instead of near-duplicates. New notes default to section next, priority medium; an update changes only the supplied non-empty fields; update_if_found false returns a match untouched (action existing). No project means untagged (needs the untagged grant).",
  inputSchema: input(
    {
      title: { ...P.title, description: "Note title (required)." },
      description: {
        ...P.text,
        description:
          "Primary long-form note body. Primary long-form content; notes is only for auxiliary or machine-readable metadata.",
      },
      notes: { ...P.text, description: "Optional auxiliary/internal metadata." },
      priority: {
        type: "string",
        enum: ["", ...PRIORITIES],
        description: "Priority for new notes (default medium); updates only when explicitly set.",
      },
      project: {
        ...P.project,
        description:
          "Project tag for matching and grouping. Empty or absent means untagged (needs the untagged grant).",
      },
      section: {
        type: "string",
        enum: ["", ...SECTIONS],
        description: "Section for new notes (default next); updates only when explicitly set.",
      },
      update_if_found: {
        ...P.bool,
        description: "When false, return the existing row without mutation (action existing). Default true.",
      },
    },
    ["title"],
  ),
  outputSchema: output({
    type: "object",
    required: ["task_id", "title", "type", "action", "matched_on"],
    properties: {
      task_id: { type: "string" },
      title: { type: "string" },
      type: { const: "note" },
      action: { enum: ["created", "updated", "existing"] },
      matched_on: { const: MATCHED_ON },
      status: { const: "not_started" },
      fields: { type: "array", items: { type: "string" } },
    },
  }),
  examples: [
    {
      title: "write a project's runbook note",
      input: {
        title: "E2E runbook",
        project: fx("project"),
        description: "How the end-to-end tests drive the real binary.",
      },
    },
  ],
  kind: "idempotent",
  run: (a, ctx) => upsertNoteByTitleProject(ctx, a),
});

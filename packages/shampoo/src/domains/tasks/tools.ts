import type { ShampooTool } from "../../tooling.ts";
import { archive_done_tasks } from "./tools/archive_done_tasks.ts";
import { assign_task } from "./tools/assign_task.ts";
import { bump_overdue_priority } from "./tools/bump_overdue_priority.ts";
import { create_task_or_note } from "./tools/create_task_or_note.ts";
import { find_by_title } from "./tools/find_by_title.ts";
import { query_tasks } from "./tools/query_tasks.ts";
import { ready_context } from "./tools/ready_context.ts";
import { task_digest } from "./tools/task_digest.ts";
import { update_task } from "./tools/update_task.ts";
import { upsert_note_by_title_project } from "./tools/upsert_note_by_title_project.ts";

/** The ten task and note tools, in catalog (alphabetical) order. One file per tool under tools/. */
export const taskTools: ShampooTool[] = [
  archive_done_tasks,
  assign_task,
  bump_overdue_priority,
  create_task_or_note,
  find_by_title,
  query_tasks,
  ready_context,
  task_digest,
  update_task,
  upsert_note_by_title_project,
];

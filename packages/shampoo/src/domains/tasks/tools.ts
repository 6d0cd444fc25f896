import type { ShampooTool } from "../../tooling.ts";
import { assign_task } from "./tools/assign_task.ts";
import { create_task_or_note } from "./tools/create_task_or_note.ts";
import { update_task } from "./tools/update_task.ts";

/** The ten task and note tools, in catalog (alphabetical) order. One file per tool under tools/. */
export const taskTools: ShampooTool[] = [assign_task, create_task_or_note, update_task];

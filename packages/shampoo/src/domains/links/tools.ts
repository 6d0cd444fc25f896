import type { ShampooTool } from "../../tooling.ts";
import { get_entity_tasks } from "./tools/get_entity_tasks.ts";
import { get_task_links } from "./tools/get_task_links.ts";
import { link_task_entity } from "./tools/link_task_entity.ts";
import { suggest_task_links } from "./tools/suggest_task_links.ts";
import { unlink_task_entity } from "./tools/unlink_task_entity.ts";

/** The five task-entity link tools, in catalog (alphabetical) order. One file per tool under tools/. */
export const linkTools: ShampooTool[] = [
  get_entity_tasks,
  get_task_links,
  link_task_entity,
  suggest_task_links,
  unlink_task_entity,
];

import type { Kysely, Transaction } from "kernel";
import { type Caller, scopeOf } from "../../../access/caller.ts";
import type { WriteScope } from "../../../platform/write.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import { graphScopeOf } from "../../graph/store/rows.ts";
import type { TaskWritten } from "../../tasks/hooks.ts";
import type { TaskRow } from "../../tasks/schema.ts";
import {
  AUTO_LINK_MAX_PER_PASS,
  AUTO_LINK_MIN_SCORE,
  MODEL_VERSION,
  type Suggestion,
  taskText,
  textPhrases,
} from "../rules.ts";
import { discoveryTask, entitiesByPhrases, GONE, longestPhrase } from "../store.ts";
import { createLink } from "./links.ts";
import { scoreTask } from "./scoring.ts";

/** Auto-discovery of task-entity links: links' listener on every task write (tasks.written). */

/**
 * The suggestions discovery turns into auto links: a name or alias mention, a score of at least
 * AUTO_LINK_MIN_SCORE, no link row for the pair yet; at most AUTO_LINK_MAX_PER_PASS, best first.
 *
 * `index` (what task writes run) scores only the entities the text mentions, found through the
 * phrase index of names and aliases (graph/schema.ts 012): the cost follows the task's text, not
 * the size of the graph (measured: bench/task-writes.ts). `scan` scores every visible entity, the
 * plain path the index must agree with (test/links/discovery.test.ts compares them on random
 * graphs). They pick the same entities with the same scores; `rank` counts the mentioned
 * candidates only on the index path.
 */
export async function discoveryPicks(
  db: Transaction<ShampooDB> | Kysely<ShampooDB>,
  caller: Caller,
  task: TaskRow,
  path: "index" | "scan",
  longestKnown?: number,
): Promise<Suggestion[]> {
  let candidates: Awaited<ReturnType<typeof entitiesByPhrases>> | undefined;
  if (path === "index") {
    const gs = graphScopeOf(caller);
    const longest = longestKnown ?? (await longestPhrase(db, gs.profile));
    const phrases = longest === 0 ? [] : textPhrases(taskText(task), longest);
    candidates = phrases.length === 0 ? [] : await entitiesByPhrases(db, gs, phrases);
    if (candidates.length === 0) return [];
  }
  const scoring = await scoreTask(db, caller, task, undefined, candidates);
  const taken = new Set(scoring.links.map((l) => l.entity_id));
  return scoring.suggestions
    .filter(
      (s) =>
        (s.signals.raw.exact_name === 1 || s.signals.raw.alias === 1) &&
        s.score >= AUTO_LINK_MIN_SCORE &&
        !taken.has(s.entity_id),
    )
    .slice(0, AUTO_LINK_MAX_PER_PASS);
}

export interface DiscoveredLink {
  link_id: string;
  entity_id: string;
  entity_name: string;
  score: number;
}

/** A change to any of these may mention an entity: link discovery runs again. */
const DISCOVERY_FIELDS = ["title", "description", "notes", "project"];

/**
 * links' listener on tasks' `tasksWritten` (links/index.ts): discovery for every new task or
 * note, and for a changed one when its text or project changed.
 */
export async function discoverOnTaskWrite(w: WriteScope, e: TaskWritten): Promise<void> {
  if (e.change === "create" || e.fields.some((f) => DISCOVERY_FIELDS.includes(f))) await discoverLinks(w, e.taskId);
}

/**
 * Auto-discovery, inside a task write's transaction (create_task_or_note, update_task,
 * upsert_note_by_title_project) after the task row is written, as the same caller. For the
 * task's top candidates whose name or an alias is mentioned exactly in its title, description
 * or notes and whose score reaches AUTO_LINK_MIN_SCORE, it creates an `auto` link (at most
 * AUTO_LINK_MAX_PER_PASS, best first), one history event each. It never touches a pair that
 * already has a link row (live or void: a void link comes back only through
 * link_task_entity) or whose latest decision is a rejection, and skips archived/cancelled tasks.
 */
export async function discoverLinks(w: WriteScope, taskId: string): Promise<DiscoveredLink[]> {
  const caller = w.ctx.caller;
  const trx = w.trx;
  const found = await discoveryTask(trx, scopeOf(caller), taskId);
  if (!found || GONE.includes(found.task.status)) return [];
  const { task, longest } = found;
  const picks = await discoveryPicks(trx, caller, task, "index", longest);
  const out: DiscoveredLink[] = [];
  for (const s of picks) {
    const row = await createLink(
      w,
      { task_id: task.id, entity_id: s.entity_id, link_type: "auto", score: s.score },
      "auto_link",
      { model_version: MODEL_VERSION, rank: s.rank, score: s.score, reasons: s.reasons, signals: s.signals },
    );
    out.push({ link_id: row.id, entity_id: s.entity_id, entity_name: s.entity_name, score: s.score });
  }
  return out;
}

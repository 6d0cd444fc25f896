import { randomUUID } from "node:crypto";
import { type DomainError, iso, type Kysely, type Transaction } from "kernel";
import { type Caller, scopeOf } from "../../access/caller.ts";
import type { ShampooCtx } from "../../context.ts";
import { fail, notFound } from "../../platform/errors.ts";
import { lifecycleSet, NEW_LIFECYCLE, stampOf } from "../../platform/lifecycle.ts";
import { read, type WriteScope, write } from "../../platform/write.ts";
import type { ShampooDB } from "../../store/schema.ts";
import { graphScopeOf } from "../graph/store/rows.ts";
import type { TaskWritten } from "../tasks/hooks.ts";
import type { TaskRow } from "../tasks/schema.ts";
import {
  ACCEPT_TOOL,
  AUTO_LINK_MAX_PER_PASS,
  AUTO_LINK_MIN_SCORE,
  HIGH_CONFIDENCE,
  MODEL_VERSION,
  SUGGEST_DEFAULT,
  SUGGEST_MAX,
  UNDO_AUTO_TOOL,
} from "./model.ts";
import type { TaskLinkRow } from "./schema.ts";
import { type Scoring, type Suggestion, scoreTask, taskText, textPhrases } from "./scorer.ts";
import {
  discoveryTask,
  entitiesByPhrases,
  entityTasks,
  GONE,
  insertDecision,
  insertLink,
  labelCounts,
  linkOf,
  longestPhrase,
  taskLinks,
  updateLink,
  visibleEntity,
  visibleTask,
} from "./store.ts";

/**
 * Task-entity link rules. Every write is one platform write() with one history event per link
 * (entity_kind task_link): the decision, the link change and the event commit together or not at
 * all. Reads are one read() snapshot.
 * Nothing is deleted: unlink voids the link (platform/lifecycle.ts) and keeps a removal marker;
 * link_task_entity revives the same row. Lookups go through the scoped stores, so an invisible
 * task or entity is never loaded and reads exactly like a missing one.
 */

type Trx = Transaction<ShampooDB>;
const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** suggest_task_links' own wording (the catalog's lowercase shape). */
function taskNotFoundLower(): DomainError {
  return fail("not_found", "task not found");
}

/**
 * A link as its history events record it (old_json / new_json, read back by replay_memory): the
 * event shape keeps its names, so a link's history reads alike on both sides of the lifecycle
 * migration. `status` is active (lifecycle live) or removed (void); removed_at/removed_by are the
 * void stamps.
 */
export function linkView(l: TaskLinkRow): Record<string, unknown> {
  return {
    id: l.id,
    task_id: l.task_id,
    entity_id: l.entity_id,
    link_type: l.link_type,
    score: l.score,
    status: l.lifecycle === "live" ? "active" : "removed",
    created_at: l.created_at,
    created_by: l.created_by,
    removed_at: l.voided_at,
    removed_by: l.voided_by,
    removal_marker: l.removal_marker === null ? null : JSON.parse(l.removal_marker),
    revived_at: l.revived_at,
    revived_by: l.revived_by,
  };
}

/** A new link: live, no lifecycle stamps yet. */
function newLink(
  w: WriteScope,
  fields: Pick<TaskLinkRow, "task_id" | "entity_id" | "link_type" | "score">,
): TaskLinkRow {
  const at = iso(w.now);
  return {
    id: randomUUID(),
    profile: w.ctx.caller.profile,
    ...fields,
    created_at: at,
    created_by: w.ctx.caller.principal,
    updated_at: at,
    removal_marker: null,
    ...NEW_LIFECYCLE,
    last_event_id: "",
  };
}

async function linkEvent(
  w: WriteScope,
  old: TaskLinkRow | undefined,
  row: TaskLinkRow,
  action: string,
  payload: unknown,
): Promise<string> {
  return w.event({
    entityKind: "task_link",
    entityId: row.id,
    action,
    old: old ? linkView(old) : null,
    new: linkView(row),
    payload,
    parentEventId: old?.last_event_id ?? null,
  });
}

/** The receipt a decision keeps: why the scorer scored the pair as it did. */
function receipt(s: Suggestion): string {
  return JSON.stringify({
    signals: s.signals,
    reasons: s.reasons,
    matched_aliases: s.matched_aliases,
    shared_keywords: s.shared_keywords,
  });
}

async function labelProgress(trx: Trx, caller: Caller) {
  const { accepted, rejected } = await labelCounts(trx, graphScopeOf(caller));
  return { accepted, rejected, total: accepted + rejected };
}

/** The visible task, locked until commit where the engine has row locks: link writes on one task serialise. */
async function taskFor(w: WriteScope, id: string): Promise<TaskRow | undefined> {
  return UUID_RE.test(id) ? visibleTask(w.trx, scopeOf(w.ctx.caller), id, w.engine.caps.rowLock) : undefined;
}

/**
 * Records an accepted manual decision and creates, revives, upgrades (auto → manual) or
 * refreshes the pair's one link row. The task is looked up first: an invisible task answers
 * Task not found whatever the entity, so neither side leaks the other.
 */
export async function linkTaskEntity(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const caller = ctx.caller;
  return write(ctx, async (w) => {
    const trx = w.trx;
    const at = iso(w.now);
    const task = await taskFor(w, String(a.task_id));
    if (!task) throw notFound("Task");
    const entity = await visibleEntity(trx, graphScopeOf(caller), String(a.entity_name));
    if (!entity) throw notFound("Entity");
    const focus = (await scoreTask(trx, caller, task, entity.id)).focus as Suggestion;
    const decisionId = randomUUID();
    await insertDecision(trx, {
      decision_id: decisionId,
      profile: caller.profile,
      task_id: task.id,
      entity_id: entity.id,
      decision: "accepted",
      source: ACCEPT_TOOL,
      score: focus.score,
      rank_at_decision: focus.rank,
      model_version: MODEL_VERSION,
      receipt_json: receipt(focus),
      decided_by: caller.principal,
      decided_at: at,
    });
    const old = await linkOf(trx, caller.profile, task.id, entity.id);
    let row: TaskLinkRow;
    let action: string;
    if (!old) {
      action = "link";
      row = newLink(w, { task_id: task.id, entity_id: entity.id, link_type: "manual", score: focus.score });
    } else if (old.lifecycle === "void") {
      // The marker clears with the revival stamps; the void stamps stay as last-removal evidence.
      action = "revive";
      row = {
        ...old,
        ...lifecycleSet("revive", stampOf(w)),
        link_type: "manual",
        score: focus.score,
        removal_marker: null,
        updated_at: at,
      };
    } else {
      action = old.link_type === "auto" ? "upgrade" : "refresh";
      row = { ...old, link_type: "manual", score: focus.score, updated_at: at };
    }
    row.last_event_id = await linkEvent(w, old, row, action, {
      ...a,
      decision_id: decisionId,
      model_version: MODEL_VERSION,
    });
    if (old) {
      const { id: _id, ...set } = row;
      await updateLink(trx, old.id, set);
    } else await insertLink(trx, row);
    return {
      decision_id: decisionId,
      task_id: task.id,
      entity_id: entity.id,
      entity_name: entity.name,
      decision: "accepted",
      score: focus.score,
      rank_at_decision: focus.rank,
      model_version: MODEL_VERSION,
      label_progress: await labelProgress(trx, caller),
      link_type: "manual",
      created_at: row.created_at,
    };
  });
}

/**
 * Voids the pair's live link, keeping a removal marker with the prior link detail. A
 * silent high-confidence link (auto, score ≥ HIGH_CONFIDENCE) also gets a rejected decision:
 * the pair stays suppressed (never auto-linked or suggested again until a human links it) and
 * becomes an evaluation label. The entity is checked first; an invisible task, a malformed id
 * or no live link all read as removed false.
 */
export async function unlinkTaskEntity(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const caller = ctx.caller;
  return write(ctx, async (w) => {
    const trx = w.trx;
    const at = iso(w.now);
    const entity = await visibleEntity(trx, graphScopeOf(caller), String(a.entity_name));
    if (!entity) throw notFound("Entity");
    const task = await taskFor(w, String(a.task_id));
    if (!task) return { removed: false };
    const old = await linkOf(trx, caller.profile, task.id, entity.id);
    if (old?.lifecycle !== "live") return { removed: false };
    const silent = old.link_type === "auto" && (old.score ?? 0) >= HIGH_CONFIDENCE;
    const marker = {
      link_type: old.link_type,
      score: old.score,
      created_at: old.created_at,
      created_by: old.created_by,
      updated_at: old.updated_at,
    };
    const row: TaskLinkRow = {
      ...old,
      ...lifecycleSet("void", stampOf(w)),
      removal_marker: JSON.stringify(marker),
      updated_at: at,
    };
    let decisionId: string | null = null;
    if (silent) {
      const focus = (await scoreTask(trx, caller, task, entity.id)).focus as Suggestion;
      decisionId = randomUUID();
      await insertDecision(trx, {
        decision_id: decisionId,
        profile: caller.profile,
        task_id: task.id,
        entity_id: entity.id,
        decision: "rejected",
        source: UNDO_AUTO_TOOL,
        score: focus.score,
        rank_at_decision: focus.rank,
        model_version: MODEL_VERSION,
        receipt_json: receipt(focus),
        decided_by: caller.principal,
        decided_at: at,
      });
    }
    row.last_event_id = await linkEvent(w, old, row, "unlink", {
      ...a,
      ...(decisionId ? { decision_id: decisionId, decision_recorded: "rejected" } : {}),
    });
    const { id: _id, ...set } = row;
    await updateLink(trx, old.id, set);
    return decisionId ? { removed: true, decision_recorded: "rejected", decision_id: decisionId } : { removed: true };
  });
}

/** Pure read. A malformed id is Task not found; an invisible task reads as an empty list. */
export async function getTaskLinks(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const id = String(a.task_id);
  if (!UUID_RE.test(id)) throw notFound("Task");
  return read(ctx, async (trx) => {
    const task = await visibleTask(trx, scopeOf(ctx.caller), id, false);
    if (!task) return { task_id: id, links: [] };
    const links = await taskLinks(trx, graphScopeOf(ctx.caller), task.id);
    return { task_id: id, links: links.map((l) => ({ ...l, score: l.score === null ? null : Number(l.score) })) };
  });
}

/**
 * Pure read. An unknown or invisible entity is Entity not found; a caller without any grant
 * reads an empty list (nothing could be visible, so nothing is looked up).
 */
export async function getEntityTasks(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const name = String(a.entity_name);
  const c = ctx.caller;
  if (!c.star && !c.untagged && c.projects.size === 0) return { entity_name: name, tasks: [] };
  return read(ctx, async (trx) => {
    const entity = await visibleEntity(trx, graphScopeOf(c), name);
    if (!entity) throw notFound("Entity");
    const tasks = await entityTasks(trx, scopeOf(c), entity.id);
    return {
      entity_name: entity.name,
      tasks: tasks.map((t) => ({ ...t, score: t.score === null ? null : Number(t.score) })),
    };
  });
}

/** Pure read: scores candidates, creates no link and records no decision. */
export async function suggestTaskLinks(ctx: ShampooCtx, a: Record<string, unknown>): Promise<Record<string, unknown>> {
  const id = String(a.task_id);
  const includeVector = a.include_vector === true;
  const limit = Math.max(1, Math.min(SUGGEST_MAX, a.limit === undefined ? SUGGEST_DEFAULT : Number(a.limit)));
  if (!UUID_RE.test(id)) throw taskNotFoundLower();
  return read(ctx, async (trx) => {
    const task = await visibleTask(trx, scopeOf(ctx.caller), id, false);
    if (!task) throw taskNotFoundLower();
    const scoring: Scoring = await scoreTask(trx, ctx.caller, task);
    return {
      task_id: task.id,
      model_version: scoring.model_version,
      include_vector: includeVector,
      community_run: null,
      suggestions: scoring.suggestions.slice(0, limit),
      candidate_count: scoring.suggestions.length,
      accept_tool: ACCEPT_TOOL,
      undo_auto_tool: UNDO_AUTO_TOOL,
    };
  });
}

/**
 * The suggestions discovery turns into auto links: a name or alias mention, a score of at least
 * AUTO_LINK_MIN_SCORE, no link row for the pair yet; at most AUTO_LINK_MAX_PER_PASS, best first.
 *
 * `index` (what task writes run) scores only the entities the text mentions, found through the
 * phrase index of names and aliases (graph/schema.ts 012): the cost follows the task's text, not
 * the size of the graph (measured: bench/task-writes.ts). `scan` scores every visible entity, the
 * plain path the index must agree with (test/links-discovery.test.ts compares them on random
 * graphs). They pick the same entities with the same scores; `rank` counts the mentioned
 * candidates only on the index path.
 */
export async function discoveryPicks(
  db: Trx | Kysely<ShampooDB>,
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
    const row = newLink(w, { task_id: task.id, entity_id: s.entity_id, link_type: "auto", score: s.score });
    row.last_event_id = await linkEvent(w, undefined, row, "auto_link", {
      model_version: MODEL_VERSION,
      rank: s.rank,
      score: s.score,
      reasons: s.reasons,
      signals: s.signals,
    });
    await insertLink(trx, row);
    out.push({ link_id: row.id, entity_id: s.entity_id, entity_name: s.entity_name, score: s.score });
  }
  return out;
}

import { randomUUID } from "node:crypto";
import { iso, type Transaction } from "kernel";
import { type Caller, scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { notFound } from "../../../platform/errors.ts";
import { lifecycleSet, NEW_LIFECYCLE, stampOf } from "../../../platform/lifecycle.ts";
import { changeRow, createRow } from "../../../platform/rows.ts";
import { read, type WriteScope, write } from "../../../platform/write.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import { graphScopeOf } from "../../graph/store/rows.ts";
import type { TaskRow } from "../../tasks/schema.ts";
import type {
  GetEntityTasksInput,
  GetTaskLinksInput,
  LinkTaskEntityInput,
  SuggestTaskLinksInput,
  UnlinkTaskEntityInput,
} from "../inputs.gen.ts";
import { linkView, receipt, removalMarker, taskNotFoundLower } from "../model.ts";
import {
  ACCEPT_TOOL,
  HIGH_CONFIDENCE,
  MODEL_VERSION,
  SUGGEST_DEFAULT,
  SUGGEST_MAX,
  type Suggestion,
  UNDO_AUTO_TOOL,
} from "../rules.ts";
import type { LinkDecisionRow, TaskLinkRow } from "../schema.ts";
import { entityTasks, insertDecision, labelCounts, linkOf, taskLinks, visibleEntity, visibleTask } from "../store.ts";
import { scoreTask } from "./scoring.ts";

/**
 * Task-entity link operations. Every write is one platform write() with one history event per
 * link (entity_kind task_link, platform/rows.ts): the decision, the link change and the event
 * commit together or not at all. Reads are one read() snapshot.
 * Nothing is deleted: unlink voids the link (platform/lifecycle.ts) and keeps a removal marker;
 * link_task_entity revives the same row. Lookups go through the scoped stores, so an invisible
 * task or entity is never loaded and reads exactly like a missing one.
 */

type Trx = Transaction<ShampooDB>;
const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** Creates a live link (no lifecycle stamps yet) with its event; returns the row as stored. */
export function createLink(
  w: WriteScope,
  fields: Pick<TaskLinkRow, "task_id" | "entity_id" | "link_type" | "score">,
  action: string,
  payload: unknown,
): Promise<TaskLinkRow> {
  const at = iso(w.now);
  return createRow(w, {
    table: "shampoo_task_links",
    kind: "task_link",
    action,
    view: linkView,
    payload,
    row: {
      id: randomUUID(),
      profile: w.ctx.caller.profile,
      ...fields,
      created_at: at,
      created_by: w.ctx.caller.principal,
      updated_at: at,
      removal_marker: null,
      ...NEW_LIFECYCLE,
    },
  });
}

/** Changes a link with its event (chained to the link's previous one). */
function changeLink(w: WriteScope, old: TaskLinkRow, set: Partial<TaskLinkRow>, action: string, payload: unknown) {
  return changeRow(w, { table: "shampoo_task_links", kind: "task_link", action, view: linkView, old, set, payload });
}

/** Records a decision on the pair with the scorer's receipt for it; returns its id. */
async function decide(
  w: WriteScope,
  task: TaskRow,
  focus: Suggestion,
  decision: LinkDecisionRow["decision"],
  source: string,
): Promise<string> {
  const decisionId = randomUUID();
  await insertDecision(w.trx, {
    decision_id: decisionId,
    profile: w.ctx.caller.profile,
    task_id: task.id,
    entity_id: focus.entity_id,
    decision,
    source,
    score: focus.score,
    rank_at_decision: focus.rank,
    model_version: MODEL_VERSION,
    receipt_json: receipt(focus),
    decided_by: w.ctx.caller.principal,
    decided_at: iso(w.now),
  });
  return decisionId;
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
export async function linkTaskEntity(ctx: ShampooCtx, a: LinkTaskEntityInput): Promise<Record<string, unknown>> {
  const caller = ctx.caller;
  return write(ctx, async (w) => {
    const trx = w.trx;
    const at = iso(w.now);
    const task = await taskFor(w, a.task_id);
    if (!task) throw notFound("Task");
    const entity = await visibleEntity(trx, graphScopeOf(caller), a.entity_name);
    if (!entity) throw notFound("Entity");
    const focus = (await scoreTask(trx, caller, task, entity.id)).focus as Suggestion;
    const decisionId = await decide(w, task, focus, "accepted", ACCEPT_TOOL);
    const payload = { ...a, decision_id: decisionId, model_version: MODEL_VERSION };
    const old = await linkOf(trx, caller.profile, task.id, entity.id);
    let row: TaskLinkRow;
    if (!old) {
      row = await createLink(
        w,
        { task_id: task.id, entity_id: entity.id, link_type: "manual", score: focus.score },
        "link",
        payload,
      );
    } else if (old.lifecycle === "void") {
      // The marker clears with the revival stamps; the void stamps stay as last-removal evidence.
      const set: Partial<TaskLinkRow> = {
        ...lifecycleSet("revive", stampOf(w)),
        link_type: "manual",
        score: focus.score,
        removal_marker: null,
        updated_at: at,
      };
      row = (await changeLink(w, old, set, "revive", payload)).row;
    } else {
      const action = old.link_type === "auto" ? "upgrade" : "refresh";
      row = (await changeLink(w, old, { link_type: "manual", score: focus.score, updated_at: at }, action, payload))
        .row;
    }
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
export async function unlinkTaskEntity(ctx: ShampooCtx, a: UnlinkTaskEntityInput): Promise<Record<string, unknown>> {
  const caller = ctx.caller;
  return write(ctx, async (w) => {
    const trx = w.trx;
    const entity = await visibleEntity(trx, graphScopeOf(caller), a.entity_name);
    if (!entity) throw notFound("Entity");
    const task = await taskFor(w, a.task_id);
    if (!task) return { removed: false };
    const old = await linkOf(trx, caller.profile, task.id, entity.id);
    if (old?.lifecycle !== "live") return { removed: false };
    const silent = old.link_type === "auto" && (old.score ?? 0) >= HIGH_CONFIDENCE;
    let decisionId: string | null = null;
    if (silent) {
      const focus = (await scoreTask(trx, caller, task, entity.id)).focus as Suggestion;
      decisionId = await decide(w, task, focus, "rejected", UNDO_AUTO_TOOL);
    }
    const set: Partial<TaskLinkRow> = {
      ...lifecycleSet("void", stampOf(w)),
      removal_marker: removalMarker(old),
      updated_at: iso(w.now),
    };
    await changeLink(w, old, set, "unlink", {
      ...a,
      ...(decisionId ? { decision_id: decisionId, decision_recorded: "rejected" } : {}),
    });
    return decisionId ? { removed: true, decision_recorded: "rejected", decision_id: decisionId } : { removed: true };
  });
}

/** Pure read. A malformed id is Task not found; an invisible task reads as an empty list. */
export async function getTaskLinks(ctx: ShampooCtx, a: GetTaskLinksInput): Promise<Record<string, unknown>> {
  const id = a.task_id;
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
export async function getEntityTasks(ctx: ShampooCtx, a: GetEntityTasksInput): Promise<Record<string, unknown>> {
  const name = a.entity_name;
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
export async function suggestTaskLinks(ctx: ShampooCtx, a: SuggestTaskLinksInput): Promise<Record<string, unknown>> {
  const id = a.task_id;
  const includeVector = a.include_vector === true;
  const limit = Math.max(1, Math.min(SUGGEST_MAX, a.limit ?? SUGGEST_DEFAULT));
  if (!UUID_RE.test(id)) throw taskNotFoundLower();
  return read(ctx, async (trx) => {
    const task = await visibleTask(trx, scopeOf(ctx.caller), id, false);
    if (!task) throw taskNotFoundLower();
    const scoring = await scoreTask(trx, ctx.caller, task);
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

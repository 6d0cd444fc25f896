import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import { scopeDenied, scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { fail, given, notFound } from "../../../platform/errors.ts";
import { createRow, recordChange } from "../../../platform/rows.ts";
import { read, type WriteScope, write } from "../../../platform/write.ts";
import { getTask } from "../../tasks/store/tasks.ts";
import type {
  LaneCreateInput,
  LaneListInput,
  LaneMergeInput,
  LaneReviewInput,
  LaneTransitionInput,
} from "../inputs.gen.ts";
import { laneView, quorumNotOpen, unknownLane } from "../model.ts";
import { clampLimit, laneMoveAllowed, mergeRefusal, reviewMove } from "../rules.ts";
import type { LaneRow } from "../schema.ts";
import { casLane, laneInQuorum, listLanes, visibleLane } from "../store/lanes.ts";
import { visibleQuorum } from "../store/quorums.ts";
import { explicitGrant } from "../store/visibility.ts";
import { idOf } from "./ids.ts";

/**
 * Lane operations: three independent axes (execution, review, merge), each moved only by its own
 * tool, each a compare-and-swap on its own version column: the UPDATE names the standing and the
 * version that were read, so of concurrent moves from one standing exactly one changes the row
 * and the others fail whole (illegal lane transition / review closed / lane not mergeable).
 */

type Axis = Parameters<typeof casLane>[2];
const EXECUTION: Axis = { stateColumn: "state", versionColumn: "state_version" };
const REVIEW: Axis = { stateColumn: "review_state", versionColumn: "review_version" };
const MERGE: Axis = { stateColumn: "merge_state", versionColumn: "merge_version" };

/** The lane the caller names and may see (parent-quorum visibility), or unknown_lane. */
async function laneOf(w: WriteScope, raw: string | undefined): Promise<LaneRow> {
  const id = idOf(raw);
  const lane = id === null ? undefined : await visibleLane(w.trx, w.ctx.caller, id);
  if (!lane) throw unknownLane();
  return lane;
}

/** One axis move: its history event, then the compare-and-swap; `lost` is the refusal of a lost race. */
async function moveLane(
  w: WriteScope,
  lane: LaneRow,
  axis: Axis,
  action: string,
  set: Partial<LaneRow>,
  lost: () => Error,
): Promise<LaneRow> {
  const at = iso(w.now);
  const next = { ...lane, ...set, changed_at: at };
  const eventId = await recordChange(w, { kind: "lane", id: lane.id, action, old: lane, next, view: laneView });
  if (!(await casLane(w.trx, lane, axis, { ...set, changed_at: at, last_event_id: eventId }))) throw lost();
  return next;
}

export function laneCreate(ctx: ShampooCtx, a: LaneCreateInput): Promise<Record<string, unknown>> {
  const quorumId = idOf(a.quorum_id);
  if (quorumId === null) throw unknownLane();
  const dependsRaw = given(a.depends_on);
  const dependsOn = dependsRaw === undefined ? null : idOf(dependsRaw);
  const taskRaw = given(a.task_id);
  return write(ctx, async (w) => {
    // The quorum row is locked: a concurrent quorum_resolve either ran before (and this lane sees
    // the quorum resolved) or waits until this lane is committed (and sees it open).
    const q = await visibleQuorum(w.trx, ctx.caller, quorumId, w.engine);
    if (!q) throw unknownLane();
    if (!explicitGrant(ctx.caller, q.project)) throw scopeDenied();
    if (q.status !== "open") throw quorumNotOpen(q.status);
    if (dependsRaw !== undefined && (dependsOn === null || !(await laneInQuorum(w.trx, q.profile, dependsOn, q.id)))) {
      throw fail("validation", "depends_on must name a lane of the same quorum");
    }
    let taskId: string | null = null;
    if (taskRaw !== undefined) {
      const task = idOf(taskRaw) && (await getTask(w.trx, scopeOf(ctx.caller), idOf(taskRaw) as string));
      if (!task || ["archived", "cancelled"].includes(task.status)) throw notFound("task");
      taskId = task.id;
    }
    const at = iso(w.now);
    const id = randomUUID();
    await createRow(w, {
      table: "shampoo_lanes",
      kind: "lane",
      view: laneView,
      row: {
        id,
        profile: ctx.caller.profile,
        quorum_id: q.id,
        project: q.project,
        state: "open",
        state_version: 0,
        review_state: "",
        review_commit: null,
        review_version: 0,
        merge_state: "",
        result_commit: null,
        merge_version: 0,
        assignee: given(a.assignee_client_id) ?? null,
        task_id: taskId,
        depends_on: dependsOn,
        repo: given(a.repo) ?? null,
        branch: given(a.branch) ?? null,
        base_ref: given(a.base_ref) ?? null,
        worktree: given(a.worktree) ?? null,
        created_by: ctx.caller.principal,
        created_at: at,
        changed_at: at,
      },
    });
    return { lane_id: id, state: "open", project: q.project };
  });
}

export function laneTransition(ctx: ShampooCtx, a: LaneTransitionInput): Promise<Record<string, unknown>> {
  return write(ctx, async (w) => {
    const lane = await laneOf(w, a.lane_id);
    const illegal = () =>
      fail("illegal_lane_transition", `illegal lane transition: ${lane.state} cannot become ${a.state}`, {
        current_state: lane.state,
      });
    if (!laneMoveAllowed(lane.state, a.state)) throw illegal();
    await moveLane(w, lane, EXECUTION, `transition:${a.state}`, { state: a.state }, () =>
      fail("illegal_lane_transition", `illegal lane transition: the lane moved from ${lane.state} meanwhile`),
    );
    return { lane_id: lane.id, state: a.state };
  });
}

export function laneReview(ctx: ShampooCtx, a: LaneReviewInput): Promise<Record<string, unknown>> {
  // Verdict privilege before the entry is looked up: a denied verdict reveals nothing.
  if (a.decision !== "submit" && ctx.caller.role !== "conductor") {
    throw fail("forbidden", `lane_review ${a.decision} requires-conductor: the conductor role is needed`);
  }
  const commit = given(a.commit)?.toLowerCase();
  if (a.decision === "submit" && commit === undefined) {
    throw fail("validation", "submit needs commit: the digest of the work under review");
  }
  return write(ctx, async (w) => {
    const lane = await laneOf(w, a.lane_id);
    if (a.decision === "submit" && ctx.caller.role !== "conductor" && lane.assignee !== ctx.caller.principal) {
      throw fail("forbidden", "lane_review submit requires-conductor or the lane's assignee");
    }
    const move = reviewMove(lane.review_state, a.decision);
    if ("refused" in move) {
      const what = move.refused === "review_closed" ? "review closed" : "nothing under review";
      throw fail(move.refused, `${what}: review is ${lane.review_state || "not submitted"}`, {
        review_state: lane.review_state,
      });
    }
    const set: Partial<LaneRow> = { review_state: move.to };
    if (a.decision === "submit") set.review_commit = commit as string;
    const next = await moveLane(w, lane, REVIEW, `review:${a.decision}`, set, () =>
      fail("review_closed", "review closed: the review moved meanwhile; read the lane again"),
    );
    return { lane_id: lane.id, review_state: next.review_state, review_commit: next.review_commit };
  });
}

export function laneMerge(ctx: ShampooCtx, a: LaneMergeInput): Promise<Record<string, unknown>> {
  const commit = given(a.result_commit)?.toLowerCase();
  return write(ctx, async (w) => {
    const lane = await laneOf(w, a.lane_id);
    const why = mergeRefusal(lane, a.outcome, commit);
    if (why !== null) throw fail("lane_not_mergeable", `lane not mergeable: ${why}`, { gate: why });
    await moveLane(
      w,
      lane,
      MERGE,
      `merge:${a.outcome}`,
      { merge_state: a.outcome, result_commit: commit ?? lane.result_commit },
      () => fail("lane_not_mergeable", "lane not mergeable: its merge standing moved meanwhile"),
    );
    return { lane_id: lane.id, merge_state: a.outcome };
  });
}

export function laneList(ctx: ShampooCtx, a: LaneListInput): Promise<Record<string, unknown>> {
  const limit = clampLimit(a.limit);
  const quorumRaw = given(a.quorum_id);
  const quorumId = quorumRaw === undefined ? undefined : idOf(quorumRaw);
  if (quorumId === null) return Promise.resolve({ lanes: [], count: 0 });
  return read(ctx, async (db) => {
    const rows = await listLanes(db, ctx.caller, {
      quorumId,
      project: given(a.project),
      state: given(a.state),
      limit,
    });
    return { lanes: rows.map(laneView), count: rows.length };
  });
}

import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import type { ShampooCtx } from "../../../context.ts";
import { fail, given, invalid } from "../../../platform/errors.ts";
import { claimLease, heartbeatLease, releaseLease } from "../../../platform/leases/index.ts";
import { NEW_LIFECYCLE } from "../../../platform/lifecycle.ts";
import { changeRow, createRow } from "../../../platform/rows.ts";
import { write } from "../../../platform/write.ts";
import type { DebateWorkerClaimInput, DebateWorkerRecoverStaleInput } from "../inputs.gen.ts";
import { claimView, denied, rolesOf } from "../model.ts";
import { MAX_REQUEUES, strictUtc, TERMINAL_KINDS, WORKER_LEASE_MS } from "../rules.ts";
import type { WorkerClaimRow } from "../schema.ts";
import { activeClaimsOfTopic, claimOfTrigger } from "../store/claims.ts";
import { addressedTo, getMessage, repliesTo } from "../store/messages.ts";
import { activeBinding, getTopic } from "../store/topics.ts";
import { retireClaim } from "./bindings.ts";
import { readable, uuidArg, writableTopic } from "./gate.ts";

/**
 * Worker claims: one claim per trigger (topic, role, parent session, trigger message), fenced by
 * a platform lease (kind debate_worker). A claim's worker session id is its generation: a
 * requeue mints a new one, so the old worker's receipts are refused. At most two requeues, then
 * the claim is exhausted. Stale recovery retires (or, when a terminal reply is already there,
 * completes) claims and never moves the parent's cursor.
 */

const LEASE_KIND = "debate_worker";

function leaseOf(c: WorkerClaimRow) {
  return { kind: LEASE_KIND, resourceId: c.claim_id, holder: c.worker_session_id, fence: c.fence, expiresMs: 0 };
}

export async function workerClaim(ctx: ShampooCtx, a: DebateWorkerClaimInput): Promise<Record<string, unknown>> {
  const topicId = uuidArg(a.topic_id, "topic_id");
  const parent = uuidArg(a.parent_session_id, "parent_session_id");
  const trigger = uuidArg(a.trigger_msg_id, "trigger_msg_id");
  let details: string | null = null;
  if (given(a.details_json)) {
    let v: unknown;
    try {
      v = JSON.parse(a.details_json as string);
    } catch {
      throw invalid("details_json must be a JSON object");
    }
    if (!v || typeof v !== "object" || Array.isArray(v)) throw invalid("details_json must be a JSON object");
    details = JSON.stringify(v);
  }
  return write(ctx, async (w) => {
    const t = await writableTopic(w, topicId);
    if (!rolesOf(t).includes(a.role)) throw denied();
    const b = await activeBinding(w.trx, t.topic_id, a.role, w.engine);
    if (!b || b.session_id !== parent || b.owner !== ctx.caller.principal) throw denied();
    const m = await getMessage(w.trx, t.topic_id, trigger);
    if (!m || !(await addressedTo(w.trx, m.msg_id, a.role, parent))) throw denied();
    if (m.vehicle === "implementation") {
      throw fail(
        "invalid_state",
        "implementation-vehicle triggers fail closed: they run on the conductor-approved vehicle out of band",
      );
    }
    const at = iso(w.now);
    const old = await claimOfTrigger(w.trx, w.engine, { topicId: t.topic_id, role: a.role, parent, trigger });
    const answer = (c: WorkerClaimRow, duplicate: boolean, noAction: boolean) => ({
      ...claimView(c),
      parent_cursor: { msg_id: b.cursor_msg_id, ts: b.cursor_ts },
      duplicate,
      no_action: noAction,
    });
    if (!old) {
      if (b.cursor_seq !== null && b.cursor_seq >= m.seq) {
        return {
          topic_id: t.topic_id,
          role: a.role,
          parent_session_id: parent,
          trigger_msg_id: trigger,
          worker_session_id: null,
          state: "no_action",
          parent_cursor: { msg_id: b.cursor_msg_id, ts: b.cursor_ts },
          duplicate: false,
          no_action: true,
        };
      }
      const id = randomUUID();
      const worker = randomUUID();
      const lease = await claimLease(w, { kind: LEASE_KIND, resourceId: id, holder: worker, ttlMs: WORKER_LEASE_MS });
      const row = await createRow(w, {
        table: "shampoo_debate_worker_claims",
        kind: "debate_worker_claim",
        id,
        view: claimView,
        row: {
          ...NEW_LIFECYCLE,
          lifecycle: "live",
          claim_id: id,
          profile: ctx.caller.profile,
          topic_id: t.topic_id,
          role: a.role,
          parent_session_id: parent,
          trigger_msg_id: trigger,
          worker_session_id: worker,
          generation: 1,
          requeues: 0,
          state: "active",
          fence: lease.fence,
          claimed_at: at,
          heartbeat_at: at,
          completed_at: null,
          ack_msg_id: null,
          details_json: details,
          owner: ctx.caller.principal,
        } as Omit<WorkerClaimRow, "last_event_id">,
      });
      return answer(row, false, false);
    }
    if (old.state === "active") {
      await heartbeatLease(w, leaseOf(old), WORKER_LEASE_MS);
      const { row } = await changeRow(w, {
        table: "shampoo_debate_worker_claims",
        kind: "debate_worker_claim",
        action: "heartbeat",
        old,
        key: { column: "claim_id", value: old.claim_id },
        set: { heartbeat_at: at, ...(details ? { details_json: details } : {}) },
        view: claimView,
      });
      return answer(row, true, false);
    }
    if (old.state === "completed" || old.state === "exhausted") return answer(old, true, true);
    // Retired: requeue under a new generation, at most MAX_REQUEUES times.
    if (old.requeues >= MAX_REQUEUES) {
      const { row } = await changeRow(w, {
        table: "shampoo_debate_worker_claims",
        kind: "debate_worker_claim",
        action: "exhaust",
        old,
        key: { column: "claim_id", value: old.claim_id },
        set: { state: "exhausted" },
        view: claimView,
      });
      return answer(row, true, true);
    }
    const worker = randomUUID();
    const lease = await claimLease(w, {
      kind: LEASE_KIND,
      resourceId: old.claim_id,
      holder: worker,
      ttlMs: WORKER_LEASE_MS,
    });
    const { row } = await changeRow(w, {
      table: "shampoo_debate_worker_claims",
      kind: "debate_worker_claim",
      action: "requeue",
      old,
      key: { column: "claim_id", value: old.claim_id },
      set: {
        state: "active",
        worker_session_id: worker,
        generation: old.generation + 1,
        requeues: old.requeues + 1,
        fence: lease.fence,
        claimed_at: at,
        heartbeat_at: at,
        lifecycle: "live",
        ...(details ? { details_json: details } : {}),
      },
      view: claimView,
    });
    return answer(row, false, false);
  });
}

/** debate_worker_recover_stale: dead workers' claims retire (or complete); the parent cursor stays. */
export async function workerRecoverStale(
  ctx: ShampooCtx,
  a: DebateWorkerRecoverStaleInput,
): Promise<Record<string, unknown>> {
  const topicId = uuidArg(a.topic_id, "topic_id");
  const cutoff = strictUtc(a.older_than_ts);
  if (cutoff === null) throw invalid("older_than_ts must be strict ISO-8601 UTC");
  const minAge = a.minimum_age_seconds ?? 120;
  return write(ctx, async (w) => {
    const t = await getTopic(w.trx, ctx.caller.profile, topicId, w.engine);
    if (!t || !(await readable(w.trx, ctx, t))) throw denied();
    const mineOnly = !(ctx.caller.role === "conductor" || ctx.caller.star);
    const claims = await activeClaimsOfTopic(w.trx, t.topic_id, mineOnly ? ctx.caller.principal : null);
    const stale = claims.filter(
      (c) => Date.parse(c.heartbeat_at) < cutoff && w.now - Date.parse(c.heartbeat_at) >= minAge * 1000,
    );
    const replies = await repliesTo(
      w.trx,
      t.topic_id,
      stale.map((c) => c.trigger_msg_id),
    );
    const at = iso(w.now);
    const recovered: Array<Record<string, unknown>> = [];
    for (const c of stale) {
      const reply = replies.find(
        (r) => r.reply_to === c.trigger_msg_id && r.role === c.role && TERMINAL_KINDS.includes(r.kind),
      );
      if (reply) {
        try {
          await releaseLease(w, leaseOf(c));
        } catch {
          // Already given back: the claim row decides.
        }
        await changeRow(w, {
          table: "shampoo_debate_worker_claims",
          kind: "debate_worker_claim",
          action: "complete",
          old: c,
          key: { column: "claim_id", value: c.claim_id },
          set: { state: "completed", completed_at: at, ack_msg_id: reply.msg_id },
          view: claimView,
        });
      } else {
        await retireClaim(w, c, "stale_worker");
      }
      const parent = await activeBinding(w.trx, t.topic_id, c.role);
      const trigger = await getMessage(w.trx, t.topic_id, c.trigger_msg_id);
      const pending =
        parent === undefined || parent.session_id !== c.parent_session_id
          ? true
          : (parent.cursor_seq ?? 0) < (trigger?.seq ?? 0);
      recovered.push({
        claim_id: c.claim_id,
        role: c.role,
        trigger_msg_id: c.trigger_msg_id,
        worker_session_id: c.worker_session_id,
        generation: c.generation,
        outcome: reply ? "completed" : "retired",
        recovered_at: at,
        prior_heartbeat_at: c.heartbeat_at,
        parent_trigger_still_pending: pending,
      });
    }
    return {
      topic_id: t.topic_id,
      topic_state: t.state,
      older_than_ts: a.older_than_ts,
      minimum_age_seconds: minAge,
      recovered,
      recovered_count: recovered.length,
      completed_count: recovered.filter((r) => r.outcome === "completed").length,
    };
  });
}

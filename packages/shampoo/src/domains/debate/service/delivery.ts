import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import type { ShampooCtx } from "../../../context.ts";
import { fail, given, invalid } from "../../../platform/errors.ts";
import { completeLease } from "../../../platform/leases/index.ts";
import { changeRow, createRow } from "../../../platform/rows.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import type {
  DebateMessageClaimReclaimInput,
  DebateSignalAdvanceInput,
  DebateSignalCheckInput,
  DebateWakeDryRunInput,
} from "../inputs.gen.ts";
import { claimView, denied, messageView, rolesOf, sealed, unknownTopic } from "../model.ts";
import { isUuid, POST_SCHEMA_VERSION, PRIORITY_RANK, strictUtc, TERMINAL_KINDS } from "../rules.ts";
import type { BindingRow, MessageClaimRow, TopicRow, WorkerClaimRow } from "../schema.ts";
import { activeClaimOfWorker, activeMessageClaims, completeMessageClaimsUpTo, messageClaim } from "../store/claims.ts";
import { addressedTo, getMessage, inbox, markDelivered, markSeen, recipientsOf, repliesTo } from "../store/messages.ts";
import {
  activeBinding,
  bindingOfSession,
  type Db,
  getTopic,
  lockBinding,
  sessionBinding,
  updateBinding,
} from "../store/topics.ts";
import { readable, uuidArg, writableTopic } from "./gate.ts";

/**
 * Private delivery. debate_signal_check is the only private path: it returns what is addressed
 * to the caller's role or session past its cursor and never consumes anything; only a receipt
 * (debate_signal_advance) moves the cursor and completes the recipient's delivery, at most once.
 * A worker receives through its claim: its session id is the claim's generation, so a requeued
 * or retired worker's receipt is refused.
 */

export interface Receiver {
  /** The binding whose cursor moves (a worker's parent binding). */
  binding: BindingRow;
  /** The worker claim a worker session receives through, or null for the binding's own session. */
  claim: WorkerClaimRow | null;
}

/** Who receives as (topic, role, session): the caller's own binding, or its active worker claim. */
export async function receiver(
  db: Db,
  ctx: ShampooCtx,
  t: TopicRow,
  role: string,
  sessionId: string,
): Promise<Receiver> {
  if (!rolesOf(t).includes(role)) throw denied();
  const own = await bindingOfSession(db, t.topic_id, role, sessionId, ["active", "diagnostic"]);
  if (own && own.owner === ctx.caller.principal) return { binding: own, claim: null };
  const claim = await activeClaimOfWorker(db, t.topic_id, role, sessionId);
  if (claim) {
    const parent = await activeBinding(db, t.topic_id, role);
    if (parent && parent.session_id === claim.parent_session_id && parent.owner === ctx.caller.principal) {
      return { binding: parent, claim };
    }
  }
  throw denied();
}

/** debate_signal_check: the recipient-scoped inbox; records the check, consumes nothing. */
export async function signalCheck(ctx: ShampooCtx, a: DebateSignalCheckInput): Promise<Record<string, unknown>> {
  const topicId = uuidArg(a.topic_id, "topic_id");
  const sessionId = uuidArg(a.session_id, "session_id");
  const limit = Math.min(Math.max(a.limit ?? 200, 1), 1000);
  let afterTs: string | undefined;
  if (given(a.since_ts)) {
    const ms = strictUtc(a.since_ts as string);
    if (ms === null) throw invalid("since_ts must be ISO-8601 UTC");
    afterTs = a.since_ts as string;
  }
  const sinceMsg = given(a.since_msg_id) ? uuidArg(a.since_msg_id as string, "since_msg_id") : null;
  return write(ctx, async (w) => {
    const t = await writableTopic(w, topicId);
    const r = await receiver(w.trx, ctx, t, a.role, sessionId);
    let afterSeq = r.binding.cursor_seq ?? 0;
    if (sinceMsg) {
      const m = await getMessage(w.trx, t.topic_id, sinceMsg);
      if (!m) throw invalid("since_msg_id is not a message of this topic");
      afterSeq = m.seq;
    } else if (afterTs !== undefined) afterSeq = 0;
    const session = r.claim ? r.binding.session_id : sessionId;
    const rows = await inbox(w.trx, t.topic_id, a.role, session, afterSeq, afterTs, limit);
    const truncated = rows.length > limit;
    const pending = rows.slice(0, limit);
    const at = iso(w.now);
    await markSeen(
      w.trx,
      pending.map((m) => m.msg_id),
      a.role,
      session,
      at,
    );
    await updateBinding(w.trx, r.binding.binding_id, { last_check_at: at });
    await w.event({
      entityKind: "debate_binding",
      entityId: r.binding.binding_id,
      action: "signal_check",
      old: null,
      new: { role: a.role, count: pending.length, last_check_at: at },
    });
    // One-shot DECISIONs (standing false): checking takes the recipient's claim on them.
    for (const m of pending.filter((x) => x.kind === "DECISION" && x.standing === 0)) {
      await takeMessageClaim(w, m.msg_id, t.topic_id, a.role, session);
    }
    const last = pending.at(-1);
    const max = pending.reduce<string | null>(
      (best, m) => (best === null || (PRIORITY_RANK[m.priority] ?? 9) < (PRIORITY_RANK[best] ?? 9) ? m.priority : best),
      null,
    );
    return {
      pending: pending.map((m) => messageView(t, m)),
      count: pending.length,
      truncated,
      next_cursor: last ? { ts: last.ts, msg_id: last.msg_id } : null,
      max_priority: max,
      topic_state: t.state,
      limit,
    };
  });
}

async function takeMessageClaim(w: WriteScope, msgId: string, topicId: string, role: string, session: string) {
  const at = iso(w.now);
  const old = await messageClaim(w.trx, msgId, session);
  const view = (c: MessageClaimRow) => ({ ...c, profile: undefined });
  if (!old) {
    const id = randomUUID();
    await createRow(w, {
      table: "shampoo_debate_message_claims",
      kind: "debate_message_claim",
      id,
      view,
      row: {
        claim_id: id,
        profile: w.ctx.caller.profile,
        topic_id: topicId,
        msg_id: msgId,
        role,
        session_id: session,
        owner: w.ctx.caller.principal,
        state: "active",
        claimed_at: at,
        updated_at: at,
      },
    });
  } else if (old.state === "reclaimed") {
    await changeRow(w, {
      table: "shampoo_debate_message_claims",
      kind: "debate_message_claim",
      action: "claim",
      old,
      key: { column: "claim_id", value: old.claim_id },
      set: { state: "active", claimed_at: at, updated_at: at },
      view,
    });
  }
}

/** debate_signal_advance: the receipt. Monotonic, addressed to the caller, at most once. */
export async function signalAdvance(ctx: ShampooCtx, a: DebateSignalAdvanceInput): Promise<Record<string, unknown>> {
  const topicId = uuidArg(a.topic_id, "topic_id");
  const sessionId = uuidArg(a.session_id, "session_id");
  const target = uuidArg(a.last_processed_msg_id, "last_processed_msg_id");
  return write(ctx, async (w) => {
    const t = await writableTopic(w, topicId);
    const r = await receiver(w.trx, ctx, t, a.role, sessionId);
    const b = (await lockBinding(w.trx, w.engine, r.binding.binding_id)) as BindingRow;
    const m = await getMessage(w.trx, t.topic_id, target);
    if (!m) throw invalid("last_processed_msg_id is not a message of this topic");
    const mine =
      (await addressedTo(w.trx, m.msg_id, a.role, b.session_id)) ||
      (r.claim !== null && (await addressedTo(w.trx, m.msg_id, a.role, r.claim.worker_session_id)));
    if (!mine) throw invalid("last_processed_msg_id is not addressed to you: receipts never skip over foreign traffic");
    if (b.cursor_seq !== null && m.seq <= b.cursor_seq) {
      throw fail("invalid_state", "regressive receipt: the cursor is already at or past that message", {
        cursor_msg_id: b.cursor_msg_id,
      });
    }
    const at = iso(w.now);
    let workerClaim: Record<string, unknown> | null = null;
    if (r.claim) {
      const c = r.claim;
      // Fenced by the claim's lease: a worker whose lease expired or was taken over changes nothing.
      await completeLease(w, {
        kind: "debate_worker",
        resourceId: c.claim_id,
        holder: c.worker_session_id,
        fence: c.fence,
        expiresMs: 0,
      });
      const { row } = await changeRow(w, {
        table: "shampoo_debate_worker_claims",
        kind: "debate_worker_claim",
        action: "complete",
        old: c,
        key: { column: "claim_id", value: c.claim_id },
        set: { state: "completed", completed_at: at, ack_msg_id: m.msg_id },
        view: claimView,
      });
      workerClaim = claimView(row);
    }
    const { row: moved } = await changeRow(w, {
      table: "shampoo_debate_bindings",
      kind: "debate_binding",
      action: "receipt",
      old: b,
      key: { column: "binding_id", value: b.binding_id },
      set: {
        cursor_msg_id: m.msg_id,
        cursor_ts: m.ts,
        cursor_seq: m.seq,
        cursor_source: r.claim ? "completed_worker" : "primary",
        last_check_at: at,
        updated_at: at,
      },
      view: (x: BindingRow) => ({
        binding_id: x.binding_id,
        role: x.role,
        cursor_msg_id: x.cursor_msg_id,
        cursor_ts: x.cursor_ts,
      }),
    });
    await markDelivered(w.trx, t.topic_id, a.role, b.session_id, m.seq, at);
    await completeMessageClaimsUpTo(w.trx, t.topic_id, b.session_id, m.seq, at);
    return {
      session_id: sessionId,
      role: a.role,
      topic_id: t.topic_id,
      last_processed_msg_id: moved.cursor_msg_id,
      last_processed_ts: moved.cursor_ts,
      last_check_at: at,
      worker_claim: workerClaim,
    };
  });
}

/** debate_message_claim_reclaim: the caller's stale one-shot DECISION claims settle. */
export async function messageClaimReclaim(
  ctx: ShampooCtx,
  a: DebateMessageClaimReclaimInput,
): Promise<Record<string, unknown>> {
  const topicId = uuidArg(a.topic_id, "topic_id");
  const cutoff = strictUtc(a.older_than_ts);
  if (cutoff === null) throw invalid("older_than_ts must be strict ISO-8601 UTC");
  const minAge = a.minimum_age_seconds ?? 60;
  return write(ctx, async (w) => {
    const t = await getTopic(w.trx, ctx.caller.profile, topicId, w.engine);
    if (!t || !(await readable(w.trx, ctx, t))) throw denied();
    const claims = await activeMessageClaims(w.trx, t.topic_id, ctx.caller.principal);
    const stale = claims.filter(
      (c) => Date.parse(c.claimed_at) < cutoff && w.now - Date.parse(c.claimed_at) >= minAge * 1000,
    );
    const replies = await repliesTo(
      w.trx,
      t.topic_id,
      stale.map((c) => c.msg_id),
    );
    const out: Array<Record<string, unknown>> = [];
    for (const c of stale) {
      const answered = replies.some(
        (r) => r.reply_to === c.msg_id && r.role === c.role && TERMINAL_KINDS.includes(r.kind),
      );
      const outcome = answered ? "done" : t.state === "RESOLVED" || t.state === "ARCHIVED" ? "expired" : "reclaimed";
      await changeRow(w, {
        table: "shampoo_debate_message_claims",
        kind: "debate_message_claim",
        action: outcome,
        old: c,
        key: { column: "claim_id", value: c.claim_id },
        set: { state: outcome, updated_at: iso(w.now) },
        view: (x: MessageClaimRow) => ({ ...x, profile: undefined }),
      });
      out.push({ claim_id: c.claim_id, msg_id: c.msg_id, role: c.role, claimed_at: c.claimed_at, outcome });
    }
    return { topic_id: t.topic_id, topic_state: t.state, reclaimed: out, reclaimed_count: out.length };
  });
}

/**
 * debate_wake_dry_run: who a trigger would wake, from its preserved message (never the caller's
 * JSON); a history event on every path, nothing woken, nothing posted.
 */
export async function wakeDryRun(ctx: ShampooCtx, a: DebateWakeDryRunInput): Promise<Record<string, unknown>> {
  let resp: unknown;
  try {
    resp = JSON.parse(a.tool_response_json);
  } catch {
    throw invalid("tool_response_json must be a JSON object");
  }
  if (!resp || typeof resp !== "object" || Array.isArray(resp))
    throw invalid("tool_response_json must be a JSON object");
  const r = resp as Record<string, unknown>;
  const action = given(a.action) ?? "dry_run_wake";
  return write(ctx, async (w) => {
    const envelope = (logs: string[], extra: Record<string, unknown> = {}) => ({
      targets: [],
      logs,
      suppressed: 0,
      notify_targets: [],
      ...extra,
    });
    const record = (entityId: string, outcome: string, detail: unknown) =>
      w.event({ entityKind: "debate_wake", entityId, action, old: null, new: { outcome, detail } });
    if (
      r.schema_version !== POST_SCHEMA_VERSION ||
      typeof r.msg_id !== "string" ||
      typeof r.topic_id !== "string" ||
      !isUuid(r.msg_id) ||
      !isUuid(r.topic_id)
    ) {
      await record("schema", "schema_mismatch", { schema_version: r.schema_version ?? null });
      return envelope(["schema_mismatch"]);
    }
    const t = await getTopic(w.trx, ctx.caller.profile, r.topic_id.toLowerCase());
    if (!t || !(await readable(w.trx, ctx, t))) throw unknownTopic();
    const m = await getMessage(w.trx, t.topic_id, r.msg_id.toLowerCase());
    if (!m) {
      await record(t.topic_id, "unknown_trigger", null);
      return envelope(["unknown_trigger"]);
    }
    if (sealed(t, m)) {
      await record(m.msg_id, "blind_commit_waiting", null);
      return envelope(["blind_commit_waiting"]);
    }
    const recipients = (await recipientsOf(w.trx, m.msg_id)).filter((x) => x.diagnostic === 0);
    if (recipients.length === 0) {
      await record(m.msg_id, "broadcast", null);
      return envelope(["broadcast_no_wake"]);
    }
    if (m.vehicle === "implementation") {
      const conductor = await activeBinding(w.trx, t.topic_id, "CONDUCTOR");
      const notify = conductor ? [{ role: "CONDUCTOR", reason: "implementation_vehicle_notify_only" }] : [];
      await record(m.msg_id, "notify_only", notify);
      return envelope(["implementation_vehicle_notify_only"], { notify_targets: notify });
    }
    const targets: Array<Record<string, unknown>> = [];
    const logs: string[] = [];
    let suppressed = 0;
    for (const x of recipients) {
      const b =
        x.recipient_kind === "role"
          ? await activeBinding(w.trx, t.topic_id, x.recipient)
          : await sessionBinding(w.trx, t.topic_id, x.recipient, ["active"]);
      if (!b) {
        logs.push(`no_active_owner:${x.recipient}`);
        continue;
      }
      if (x.delivered_at !== null || (b.cursor_seq ?? 0) >= m.seq || b.role === m.role) {
        suppressed += 1;
        continue;
      }
      if (targets.some((y) => y.role === b.role)) continue; // one wake per recipient
      targets.push({
        role: b.role,
        session_id: b.owner === ctx.caller.principal || ctx.caller.star ? b.session_id : null,
      });
    }
    await record(m.msg_id, "resolved", { targets: targets.map((x) => x.role), suppressed });
    return { targets, logs, suppressed, notify_targets: [] };
  });
}

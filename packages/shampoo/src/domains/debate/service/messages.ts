import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import type { ShampooCtx } from "../../../context.ts";
import { fail, given, invalid } from "../../../platform/errors.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import type {
  DebateAdvanceWatermarkInput,
  DebateCompactInput,
  DebateEscalateInput,
  DebatePostWithRecipientsInput,
} from "../inputs.gen.ts";
import { denied, protocolView, rolesOf } from "../model.ts";
import {
  csv,
  isUuid,
  missingSections,
  POST_SCHEMA_VERSION,
  PROTOCOL_V1,
  payloadError,
  RESERVED_KINDS,
  roleShapeError,
  strictUtc,
} from "../rules.ts";
import type { BindingRow, MessageRow, RecipientRow, TopicRow } from "../schema.ts";
import { getMessage, insertRecipients } from "../store/messages.ts";
import { activeBinding, ownsSession, sessionBinding, updateBinding } from "../store/topics.ts";
import { appendMessage, checkOverride, type NewMessage, ownedRole, uuidArg, writableTopic } from "./gate.ts";
import { afterPosition, positionGate } from "./protocol.ts";

/**
 * Posting: validation runs in full before anything is preserved, and the message, its recipient
 * entries, the debate/v1 phase move and the claim side effects commit together.
 */

export type PostArgs = Omit<DebatePostWithRecipientsInput, "addressed_to_csv"> & {
  addressed_to_csv?: string | null | undefined;
};

function roleArg(role: string): void {
  const e = roleShapeError(role);
  if (e) throw invalid(e);
}

/** The post answer: the catalog's fields, the trigger shape debate_wake_dry_run takes, v1 extras. */
function postResult(t: TopicRow, m: MessageRow): Record<string, unknown> {
  return {
    msg_id: m.msg_id,
    ts: m.ts,
    topic_state: t.state,
    vehicle: m.vehicle,
    topic_id: t.topic_id,
    schema_version: POST_SCHEMA_VERSION,
    ...(t.protocol_version === PROTOCOL_V1
      ? {
          protocol_version: t.protocol_version,
          round_no: m.round_no,
          body_mode: m.body_mode,
          protocol_state: protocolView(t),
          ...(m.commitment ? { commitment: m.commitment } : {}),
        }
      : {}),
  };
}

/** Parses a recipient CSV: declared roles or session ids holding a live binding in the topic. */
async function recipients(w: WriteScope, t: TopicRow, raw: string): Promise<Array<[string, string]>> {
  const out: Array<[string, string]> = [];
  const roles = rolesOf(t);
  for (const r of csv(raw)) {
    if (isUuid(r)) {
      const s = r.toLowerCase();
      const live = await sessionBinding(w.trx, t.topic_id, s, ["active", "diagnostic"]);
      if (!live) throw invalid(`recipient ${r} is not a live session of this topic`);
      out.push(["session", s]);
    } else {
      if (!roles.includes(r)) throw invalid(`recipient ${r} is not a declared role`);
      out.push(["role", r]);
    }
  }
  return out.filter((x, i) => out.findIndex((y) => y[1] === x[1]) === i);
}

/** debate_post and debate_post_with_recipients: one message, broadcast or addressed. */
export async function post(ctx: ShampooCtx, a: PostArgs, addressed: boolean): Promise<Record<string, unknown>> {
  const topicId = uuidArg(a.topic_id, "topic_id");
  roleArg(a.role);
  if (!given(a.body)) throw invalid("body must not be empty");
  if (RESERVED_KINDS.includes(a.kind)) throw invalid(`${a.kind} messages are written by their own tool`);
  if (addressed && csv(a.addressed_to_csv).length === 0)
    throw invalid("addressed_to_csv must name at least one recipient");
  const replyTo = given(a.reply_to) ? uuidArg(a.reply_to as string, "reply_to") : null;
  const authorSession = given(a.author_session_id) ? uuidArg(a.author_session_id as string, "author_session_id") : null;
  let payload: unknown = null;
  if (given(a.payload_json)) {
    try {
      payload = JSON.parse(a.payload_json as string);
    } catch {
      throw invalid("payload_json must be a JSON object");
    }
    if (!payload || typeof payload !== "object" || Array.isArray(payload))
      throw invalid("payload_json must be a JSON object");
  }
  const vehicle = given(a.vehicle) ?? "analysis";
  return write(ctx, async (w) => {
    const t = await writableTopic(w, topicId);
    if (!rolesOf(t).includes(a.role)) throw denied();
    const b = await activeBinding(w.trx, t.topic_id, a.role);
    if (!b || b.owner !== ctx.caller.principal) {
      if (!addressed || !given(a.conductor_override_msg_id)) throw denied();
      await checkOverride(w.trx, ctx, t, a.conductor_override_msg_id as string);
    }
    if (authorSession && !(await ownsSession(w.trx, ctx.caller, authorSession))) throw denied();
    if (t.state === "RESOLVED" || t.state === "ARCHIVED")
      throw fail("invalid_state", `the topic is ${t.state}: closed topics take no posts`);
    if (given(a.protocol_version) && a.protocol_version !== t.protocol_version) {
      throw invalid(
        `protocol_version ${a.protocol_version} does not match the topic's (${t.protocol_version || "legacy"})`,
      );
    }
    if (replyTo && !(await getMessage(w.trx, t.topic_id, replyTo)))
      throw invalid("reply_to must name a message of this topic");
    if (t.protocol_version === PROTOCOL_V1 && payload !== null) {
      const e = payloadError(payload);
      if (e) throw invalid(e);
    }
    const to = addressed ? await recipients(w, t, a.addressed_to_csv ?? "") : [];
    const diag = given(a.diagnostic_to_csv) ? await recipients(w, t, a.diagnostic_to_csv as string) : [];
    const pos = await positionGate(w, t, a.role, a.kind, a.body);
    const m = await appendMessage(w, t, {
      role: a.role,
      priority: a.priority,
      kind: a.kind,
      body: a.body,
      author_session_id: authorSession,
      body_mode: given(a.body_mode) ?? null,
      payload_json: payload === null ? null : JSON.stringify(payload),
      reply_to: replyTo,
      standing: a.standing ?? true,
      vehicle,
      round_no: pos.round_no,
      addressed: to.length > 0,
      blind_round: pos.blind_round,
      commitment: pos.commitment,
      nonce: pos.nonce,
    });
    await addRecipients(w, m, to, diag);
    if (pos.blind_round !== null) await afterPosition(w, t);
    return postResult(t, m);
  });
}

async function addRecipients(w: WriteScope, m: MessageRow, to: Array<[string, string]>, diag: Array<[string, string]>) {
  const rows: RecipientRow[] = [...to.map((r) => [...r, 0] as const), ...diag.map((r) => [...r, 1] as const)].map(
    ([kind, recipient, d]) => ({
      recipient_id: randomUUID(),
      profile: w.ctx.caller.profile,
      topic_id: m.topic_id,
      msg_id: m.msg_id,
      seq: m.seq,
      recipient_kind: kind as "role" | "session",
      recipient,
      diagnostic: d,
      seen_count: 0,
      last_seen_at: null,
      delivered_at: null,
      delivered_session: null,
    }),
  );
  await insertRecipients(w.trx, rows);
}

/** A message written by one of the convenience tools, as the caller's owned role. */
async function postAs(
  ctx: ShampooCtx,
  topicId: string,
  role: string,
  build: (w: WriteScope, t: TopicRow, b: BindingRow) => Promise<NewMessage & { to?: string[] }>,
  after?: (w: WriteScope, t: TopicRow, b: BindingRow, m: MessageRow) => Promise<void>,
): Promise<Record<string, unknown>> {
  return write(ctx, async (w) => {
    const t = await writableTopic(w, topicId);
    const b = await ownedRole(w.trx, ctx, t, role);
    if (t.state === "RESOLVED" || t.state === "ARCHIVED")
      throw fail("invalid_state", `the topic is ${t.state}: closed topics take no posts`);
    const { to, ...spec } = await build(w, t, b);
    const m = await appendMessage(w, t, spec);
    if (to?.length)
      await addRecipients(
        w,
        m,
        to.map((r) => ["role", r]),
        [],
      );
    if (after) await after(w, t, b, m);
    return postResult(t, m);
  });
}

/** debate_escalate: an H/PING "[ESCALATE:reason]" tagged for the target role (default HUMAN). */
export async function escalate(ctx: ShampooCtx, a: DebateEscalateInput): Promise<Record<string, unknown>> {
  const topicId = uuidArg(a.topic_id, "topic_id");
  roleArg(a.role);
  const target = given(a.target_role) ?? "HUMAN";
  roleArg(target);
  const reason = a.reason.trim();
  if (!reason) throw invalid("reason must not be empty");
  return postAs(ctx, topicId, a.role, async (_w, t) => ({
    role: a.role,
    priority: "H",
    kind: "PING",
    body: `[ESCALATE:${reason}] @${target}`,
    addressed: rolesOf(t).includes(target),
    to: rolesOf(t).includes(target) ? [target] : [],
  }));
}

/** debate_compact: an INFO/COMPACTION snapshot with its OBSERVE / ORIENT / DECIDE / ACT sections. */
export async function compact(ctx: ShampooCtx, a: DebateCompactInput): Promise<Record<string, unknown>> {
  const topicId = uuidArg(a.topic_id, "topic_id");
  roleArg(a.role);
  const bounds: string[] = [];
  for (const k of ["since_ts", "until_ts"] as const) {
    if (given(a[k])) {
      if (strictUtc(a[k] as string) === null) throw invalid(`${k} must be ISO-8601 UTC`);
      bounds.push(`${k.replace("_ts", "")}=${a[k]}`);
    }
  }
  const missing = missingSections(a.body);
  if (missing.length > 0)
    throw invalid(`a compaction needs OBSERVE / ORIENT / DECIDE / ACT sections; missing ${missing.join(", ")}`);
  const body = `[COMPACTION${bounds.length ? ` ${bounds.join(" ")}` : ""}]\n${a.body}`;
  return postAs(ctx, topicId, a.role, async () => ({ role: a.role, priority: "INFO", kind: "COMPACTION", body }));
}

/** debate_advance_watermark: the WATERMARK marker and the role's cursor, monotonic, in one unit. */
export async function advanceWatermark(
  ctx: ShampooCtx,
  a: DebateAdvanceWatermarkInput,
): Promise<Record<string, unknown>> {
  const topicId = uuidArg(a.topic_id, "topic_id");
  roleArg(a.role);
  const target = uuidArg(a.processed_up_to_msg_id, "processed_up_to_msg_id");
  let processed: MessageRow | undefined;
  return postAs(
    ctx,
    topicId,
    a.role,
    async (w, t) => {
      processed = await getMessage(w.trx, t.topic_id, target);
      if (!processed) throw invalid("processed_up_to_msg_id must name a message of this topic");
      return {
        role: a.role,
        priority: "INFO",
        kind: "WATERMARK",
        body: `[WATERMARK:${processed.msg_id} ts=${processed.ts}]`,
      };
    },
    async (w, _t, b) => {
      const p = processed as MessageRow;
      if (b.cursor_seq !== null && b.cursor_seq >= p.seq) return; // monotonic: never back
      await updateBinding(w.trx, b.binding_id, {
        cursor_msg_id: p.msg_id,
        cursor_ts: p.ts,
        cursor_seq: p.seq,
        cursor_source: "watermark",
        updated_at: iso(w.now),
      });
      await w.event({
        entityKind: "debate_binding",
        entityId: b.binding_id,
        action: "watermark",
        old: { cursor_msg_id: b.cursor_msg_id },
        new: { cursor_msg_id: p.msg_id, cursor_ts: p.ts },
      });
    },
  );
}

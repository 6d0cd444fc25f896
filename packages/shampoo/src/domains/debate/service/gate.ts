import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import { canSee } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { invalid } from "../../../platform/errors.ts";
import { createRow } from "../../../platform/rows.ts";
import type { WriteScope } from "../../../platform/write.ts";
import { denied, messageEventView, rolesOf, unknownTopic } from "../model.ts";
import { isUuid } from "../rules.ts";
import type { BindingRow, MessageRow, TopicRow } from "../schema.ts";
import { getMessage } from "../store/messages.ts";
import { activeBinding, type Db, getTopic, participates, updateTopic } from "../store/topics.ts";

/**
 * The debate gates. Every path checks, in this order: shape (before any lookup), the topic
 * (profile, a project that is set, the caller's grants), then authority. Writes answer one
 * not-found denial for an unknown topic, an undeclared role and a role the caller does not own;
 * reads answer one unknown_topic for missing, foreign, sentinel and outsider topics.
 */

/** A UUID argument in canonical lowercase (the schema already checked its shape). */
export function uuidArg(v: string, name: string): string {
  if (!isUuid(v)) throw invalid(`${name} must be a UUID`);
  return v.toLowerCase();
}

/** The topic for a write: in the profile, project set (sentinel denies all), inside the grants. */
export async function writableTopic(w: WriteScope, topicId: string): Promise<TopicRow> {
  const t = await getTopic(w.trx, w.ctx.caller.profile, topicId, w.engine);
  if (t?.project_state !== "set" || !canSee(w.ctx.caller, t.project)) throw denied();
  return t;
}

/**
 * May the caller read the topic? Project scope AND participation; conductor and star callers
 * in scope read without a binding. Sentinel topics deny everyone.
 */
export async function readable(db: Db, ctx: ShampooCtx, t: TopicRow | undefined): Promise<boolean> {
  if (t?.project_state !== "set" || !canSee(ctx.caller, t.project)) return false;
  if (ctx.caller.role === "conductor" || ctx.caller.star) return true;
  return participates(db, t, ctx.caller.principal);
}

export async function readableTopic(db: Db, ctx: ShampooCtx, topicId: string): Promise<TopicRow> {
  const t = isUuid(topicId) ? await getTopic(db, ctx.caller.profile, topicId.toLowerCase()) : undefined;
  if (!t || !(await readable(db, ctx, t))) throw unknownTopic();
  return t;
}

/** The caller's own active binding of a declared role: authorship comes from it, never the role string. */
export async function ownedRole(db: Db, ctx: ShampooCtx, t: TopicRow, role: string): Promise<BindingRow> {
  if (!rolesOf(t).includes(role)) throw denied();
  const b = await activeBinding(db, t.topic_id, role);
  if (!b || b.owner !== ctx.caller.principal) throw denied();
  return b;
}

/**
 * A conductor override: the caller is a conductor (or star) and the id names a DECISION the
 * CONDUCTOR role posted in this topic. Anything else denies, uniformly.
 */
export async function checkOverride(db: Db, ctx: ShampooCtx, t: TopicRow, msgId: string): Promise<MessageRow> {
  if (!(ctx.caller.role === "conductor" || ctx.caller.star) || !isUuid(msgId)) throw denied();
  const m = await getMessage(db, t.topic_id, msgId.toLowerCase());
  if (m?.kind !== "DECISION" || m.role !== "CONDUCTOR") throw denied();
  return m;
}

export interface NewMessage {
  role: string;
  priority: string;
  kind: string;
  body: string;
  author_session_id?: string | null;
  body_mode?: string | null;
  payload_json?: string | null;
  reply_to?: string | null;
  standing?: boolean;
  vehicle?: string;
  round_no?: number | null;
  addressed?: boolean;
  blind_round?: number | null;
  commitment?: string | null;
  nonce?: string | null;
}

/**
 * Appends one message (the next seq of the topic, whose row the write has locked) with its
 * history event; a sealed blind position's event never carries its body.
 */
export async function appendMessage(w: WriteScope, t: TopicRow, m: NewMessage): Promise<MessageRow> {
  const seq = t.msg_seq + 1;
  const msgId = randomUUID();
  const row = await createRow(w, {
    table: "shampoo_debate_messages",
    kind: "debate_message",
    id: msgId,
    row: {
      msg_id: msgId,
      profile: w.ctx.caller.profile,
      topic_id: t.topic_id,
      seq,
      ts: iso(w.now),
      role: m.role,
      author: w.ctx.caller.principal,
      author_session_id: m.author_session_id ?? null,
      priority: m.priority,
      kind: m.kind,
      body: m.body,
      body_mode: m.body_mode ?? null,
      payload_json: m.payload_json ?? null,
      reply_to: m.reply_to ?? null,
      standing: m.standing === false ? 0 : 1,
      vehicle: m.vehicle ?? "analysis",
      protocol_version: t.protocol_version,
      round_no: m.round_no ?? null,
      addressed: m.addressed ? 1 : 0,
      blind_round: m.blind_round ?? null,
      commitment: m.commitment ?? null,
      nonce: m.nonce ?? null,
    } as Omit<MessageRow, "last_event_id">,
    view: messageEventView,
  });
  t.msg_seq = seq;
  t.updated_at = iso(w.now);
  await updateTopic(w.trx, t.topic_id, { msg_seq: seq, updated_at: t.updated_at });
  return row;
}

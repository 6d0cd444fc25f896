import { canSee } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { given, invalid } from "../../../platform/errors.ts";
import { read } from "../../../platform/write.ts";
import type { DebateReadInput, DebateSearchInput, DebateWorkQueueInput } from "../inputs.gen.ts";
import { messageView, rolesOf, unknownTopic } from "../model.ts";
import {
  answers,
  compareQueue,
  csv,
  isUuid,
  PRIORITIES,
  priorityScore,
  QUEUE_ORDERING,
  type QueueSignals,
  strictUtc,
  TOPIC_STATES,
  UNRECOVERED_ROLES,
} from "../rules.ts";
import type { TopicRow } from "../schema.ts";
import { activeClaimCount } from "../store/claims.ts";
import {
  getMessage,
  latestCompaction,
  messageSignals,
  messagesOfKind,
  repliesTo,
  searchBodies,
  transcript,
} from "../store/messages.ts";
import { activeBinding, type Db, topicsOf } from "../store/topics.ts";
import { readable, readableTopic } from "./gate.ts";

/** Pure reads: one snapshot each, nothing preserved, no cursor moved. */

/** debate_read: the topic-wide transcript after a compound cursor, filtered and bounded. */
export async function debateRead(ctx: ShampooCtx, a: DebateReadInput): Promise<Record<string, unknown>> {
  const limit = Math.min(Math.max(a.limit ?? 100, 1), 1000);
  const kinds = csv(a.kind_filter_csv);
  const priorities = csv(a.priority_filter_csv);
  for (const p of priorities)
    if (!(PRIORITIES as readonly string[]).includes(p)) throw invalid(`unknown priority ${p}`);
  if (given(a.since_ts) && strictUtc(a.since_ts as string) === null) throw invalid("since_ts must be ISO-8601 UTC");
  if (given(a.since_msg_id) && !isUuid(a.since_msg_id as string)) throw invalid("since_msg_id must be a UUID");
  return read(ctx, async (db) => {
    const t = await readableTopic(db, ctx, a.topic_id);
    if (!rolesOf(t).includes(a.role)) throw unknownTopic();
    const compaction = await latestCompaction(db, t.topic_id);
    let afterSeq = 0;
    let afterTs: string | undefined;
    if (given(a.since_msg_id)) {
      const m = await getMessage(db, t.topic_id, (a.since_msg_id as string).toLowerCase());
      if (!m) throw invalid("since_msg_id is not a cursor of this topic");
      afterSeq = m.seq;
    } else if (given(a.since_ts)) {
      afterTs = a.since_ts as string;
    } else if (a.since_latest_compaction === true) {
      afterSeq = compaction ? compaction.seq - 1 : 0;
    } else {
      const own = await activeBinding(db, t.topic_id, a.role);
      if (own && own.owner === ctx.caller.principal) afterSeq = own.cursor_seq ?? 0;
    }
    const rows = await transcript(db, t.topic_id, { afterSeq, afterTs, kinds, priorities, limit });
    const truncated = rows.length > limit;
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      messages: page.map((m) => messageView(t, m)),
      topic_state: t.state,
      last_msg_id_returned: last?.msg_id ?? null,
      last_ts_returned: last?.ts ?? null,
      count: page.length,
      truncated,
      next_msg_id_cursor: truncated ? (last?.msg_id ?? null) : null,
      next_ts_cursor: truncated ? (last?.ts ?? null) : null,
      limit,
      bootstrap_compaction_msg_id: compaction?.msg_id ?? null,
    };
  });
}

/** debate_search: literal substring, newest first; sealed blind positions never match. */
export async function debateSearch(ctx: ShampooCtx, a: DebateSearchInput): Promise<Record<string, unknown>> {
  const limit = a.limit === undefined || a.limit === null ? 20 : a.limit <= 0 ? 1 : Math.min(a.limit, 100);
  return read(ctx, async (db, engine) => {
    const t = await readableTopic(db, ctx, a.topic_id);
    const rows = await searchBodies(db, engine, t.topic_id, a.query, t.revealed_round ?? 0, limit);
    return {
      topic_id: t.topic_id,
      query: a.query,
      count: rows.length,
      limit,
      messages: rows.map((m) => messageView(t, m)),
    };
  });
}

async function openQuestions(db: Db, topicId: string): Promise<number> {
  const qs = await messagesOfKind(db, topicId, ["Q"]);
  const replies = await repliesTo(
    db,
    topicId,
    qs.map((q) => q.msg_id),
  );
  const settled = new Set(replies.filter(answers).map((r) => r.reply_to));
  return qs.filter((q) => !settled.has(q.msg_id)).length;
}

async function missingRoles(db: Db, t: TopicRow): Promise<string[]> {
  const out: string[] = [];
  for (const role of rolesOf(t)) {
    if (UNRECOVERED_ROLES.includes(role)) continue;
    if (!(await activeBinding(db, t.topic_id, role))) out.push(role);
  }
  return out;
}

/** debate_work_queue: open topics in deterministic conductor priority order. */
export async function workQueue(ctx: ShampooCtx, a: DebateWorkQueueInput): Promise<Record<string, unknown>> {
  const limit = Math.min(a.limit ?? 50, 1000);
  const states = csv(a.states_csv).map((s) => s.toUpperCase());
  for (const s of states)
    if (!(TOPIC_STATES as readonly string[]).includes(s)) throw invalid(`unknown topic state ${s}`);
  const wantedStates = (states.length > 0 ? states : ["INIT", "ACTIVE"]) as TopicRow["state"][];
  const skipped: string[] = [];
  const wanted: string[] = [];
  for (const id of csv(a.topics_csv)) (isUuid(id) ? wanted : skipped).push(isUuid(id) ? id.toLowerCase() : id);
  const conductor = ctx.caller.role === "conductor";
  return read(ctx, async (db) => {
    let topics = await topicsOf(db, ctx.caller.profile, wantedStates);
    if (wanted.length > 0 || csv(a.topics_csv).length > 0) topics = topics.filter((t) => wanted.includes(t.topic_id));
    const items: Array<{ signals: QueueSignals; item: Record<string, unknown> }> = [];
    for (const t of topics) {
      if (t.project_state === "sentinel") {
        // Conductors see legacy topics as reconciliation candidates: metadata only, no message query.
        if (!conductor) continue;
        const signals: QueueSignals = {
          topic_id: t.topic_id,
          lane_rank: null,
          resolve_by_ms: null,
          open_questions: 0,
          active_claims: 0,
          missing_roles: 0,
          high_messages: 0,
          latest_seq: 0,
        };
        items.push({
          signals,
          item: {
            topic_id: t.topic_id,
            title: t.title,
            state: t.state,
            lane: null,
            priority_score: 0,
            reason_codes: ["sentinel_project_unreconciled"],
            next_action: "debate_reconcile_project",
            blocked_by: null,
            resolve_by: null,
            open_questions: 0,
            active_claims: 0,
            missing_roles: [],
            message_peaks: null,
            latest_message: null,
          },
        });
        continue;
      }
      if (!canSee(ctx.caller, t.project) || !(await readable(db, ctx, t))) continue;
      const open = await openQuestions(db, t.topic_id);
      const claims = await activeClaimCount(db, t.topic_id);
      const missing = await missingRoles(db, t);
      const { peaks, latest } = await messageSignals(db, t.topic_id);
      const signals: QueueSignals = {
        topic_id: t.topic_id,
        lane_rank: t.lane_rank,
        resolve_by_ms: t.resolve_by ? Date.parse(t.resolve_by) : null,
        open_questions: open,
        active_claims: claims,
        missing_roles: missing.length,
        high_messages: peaks.H ?? 0,
        latest_seq: latest?.seq ?? 0,
      };
      const reasons: string[] = [];
      if (t.lane) reasons.push(`lane_${t.lane}`);
      if (signals.resolve_by_ms !== null)
        reasons.push(signals.resolve_by_ms <= ctx.clock.now() ? "overdue" : "deadline");
      if (open > 0) reasons.push("open_questions");
      if (claims > 0) reasons.push("active_claims");
      if (missing.length > 0) reasons.push("missing_roles");
      if ((peaks.H ?? 0) > 0) reasons.push("high_priority_messages");
      items.push({
        signals,
        item: {
          topic_id: t.topic_id,
          title: t.title,
          state: t.state,
          lane: t.lane,
          priority_score: priorityScore(signals, ctx.clock.now()),
          reason_codes: reasons,
          next_action: t.next_action,
          blocked_by: t.blocked_by,
          resolve_by: t.resolve_by,
          open_questions: open,
          active_claims: claims,
          missing_roles: missing,
          message_peaks: peaks,
          latest_message: latest ? messageView(t, latest) : null,
        },
      });
    }
    items.sort((x, y) => compareQueue(x.signals, y.signals));
    return {
      items: items.slice(0, limit).map((x) => x.item),
      count: Math.min(items.length, limit),
      total: items.length,
      limit,
      skipped_invalid_topic_ids: skipped,
      ordering: QUEUE_ORDERING,
    };
  });
}

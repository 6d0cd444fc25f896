import { randomBytes, randomUUID } from "node:crypto";
import { iso } from "kernel";
import type { ShampooCtx } from "../../../context.ts";
import { fail, invalid } from "../../../platform/errors.ts";
import { createRow } from "../../../platform/rows.ts";
import { defineStateMachine } from "../../../platform/state-machine.ts";
import { read, type WriteScope, write } from "../../../platform/write.ts";
import type { DebateJudgePrepareInput, DebateJudgeVerdictInput } from "../inputs.gen.ts";
import { blindRolesOf, denied, notConfigured, parseJson, protocolView, rolesOf } from "../model.ts";
import {
  commitmentOf,
  csv,
  flipRate,
  isUuid,
  PHASES,
  POSITION_KINDS,
  PROTOCOL_V1,
  UNRECOVERED_ROLES,
  verdictOutcome,
} from "../rules.ts";
import type { MessageRow, ProjectionRow, TopicRow, VerdictRow } from "../schema.ts";
import { getProjection, projectionsOfRound, verdictsOfRound, verdictsWithOrder } from "../store/claims.ts";
import { commitments, getMessage, positionsOfRound } from "../store/messages.ts";
import {
  activeBinding,
  type Db,
  expiredPhases,
  getTopic,
  insertIdentity,
  latestRetired,
  openTopics,
} from "../store/topics.ts";
import { carriedCursor, installBinding } from "./bindings.ts";
import { readable, uuidArg, writableTopic } from "./gate.ts";

/**
 * debate/v1: two blind roles take one position (CLAIM or REBUT) per round. Each position is
 * committed when posted (sha256 of nonce and body, stored and shown) and hidden from everyone
 * until both blind roles have committed for the round; then the round is revealed (body and
 * nonce, so anyone can check the commitment). After the last round the topic adjudicates: the
 * conductor prepares the AB and BA projections and one judge outside the blind pair gives a
 * verdict on each; agreement of the two orders stops the debate, a split is a stalemate.
 * Every phase move is a compare-and-swap on transition_version.
 */
export const protocolFlow = defineStateMachine({
  name: "debate_protocol",
  table: "shampoo_debate_topics",
  idColumn: "topic_id",
  stateColumn: "phase",
  versionColumn: "transition_version",
  states: PHASES,
  initial: "ROUND",
  moves: {
    next_round: { from: ["ROUND"], to: "ROUND" },
    adjudicate: { from: ["ROUND"], to: "ADJUDICATE" },
    stop: { from: ["ADJUDICATE"], to: "STOPPED" },
    stalemate: { from: ["ROUND", "ADJUDICATE"], to: "STALEMATE" },
  },
});

/** A blind position about to be posted: its round, commitment and nonce (null for other posts). */
export interface Position {
  blind_round: number | null;
  round_no: number | null;
  commitment: string | null;
  nonce: string | null;
}

/** The phase/kind gate of a post on a debate/v1 topic (inside the post's write, topic locked). */
export async function positionGate(
  w: WriteScope,
  t: TopicRow,
  role: string,
  kind: string,
  body: string,
): Promise<Position> {
  const none = { blind_round: null, round_no: t.round_no, commitment: null, nonce: null };
  if (t.protocol_version !== PROTOCOL_V1) return { ...none, round_no: null };
  if (!POSITION_KINDS.includes(kind)) return none;
  if (!blindRolesOf(t).includes(role))
    throw invalid(`only the blind roles take ${kind} positions on a debate/v1 topic`);
  if (t.phase !== "ROUND")
    throw fail("invalid_state", `phase gate: positions are taken in ROUND, the topic is in ${t.phase}`);
  const round = t.round_no ?? 1;
  const taken = await positionsOfRound(w.trx, t.topic_id, round);
  if (taken.some((m) => m.role === role))
    throw fail("conflict", `${role} already committed its position for round ${round}`);
  const nonce = randomBytes(16).toString("hex");
  return { blind_round: round, round_no: round, commitment: commitmentOf(body, nonce), nonce };
}

/** After a blind position: when both blind roles committed, reveal the round and move on. */
export async function afterPosition(w: WriteScope, t: TopicRow): Promise<void> {
  const round = t.round_no ?? 1;
  const taken = await positionsOfRound(w.trx, t.topic_id, round);
  const blind = blindRolesOf(t);
  if (!blind.every((r) => taken.some((m) => m.role === r))) return;
  for (const m of taken) {
    await w.event({
      entityKind: "debate_message",
      entityId: m.msg_id,
      action: "reveal",
      old: { commitment: m.commitment },
      new: { commitment: m.commitment, nonce: m.nonce, body: m.body },
      parentEventId: m.last_event_id,
    });
  }
  const last = round >= (t.max_rounds ?? 1);
  const deadline = iso(w.now + (t.phase_timeout_seconds ?? 3600) * 1000);
  const at = iso(w.now);
  const moved = await protocolFlow.move(w, {
    id: t.topic_id,
    move: last ? "adjudicate" : "next_round",
    expectedVersion: t.transition_version ?? 1,
    set: {
      revealed_round: round,
      round_no: last ? round : round + 1,
      phase_deadline_at: deadline,
      protocol_updated_at: at,
    },
    payload: { revealed_round: round },
  });
  Object.assign(t, {
    phase: moved.state,
    transition_version: moved.version,
    revealed_round: round,
    round_no: last ? round : round + 1,
    phase_deadline_at: deadline,
    protocol_updated_at: at,
  });
}

/** The judge roles' measured flip rates on a topic (pairs whose AB and BA verdicts disagreed). */
export async function judgeFlipRates(db: Db, topicId: string): Promise<Array<Record<string, unknown>>> {
  const rows = await verdictsWithOrder(db, topicId);
  const pairs = new Map<string, { role: string; ab?: string; ba?: string }>();
  for (const r of rows) {
    const key = `${r.judge_role}#${r.round_no}`;
    const p = pairs.get(key) ?? { role: r.judge_role };
    // Compare the side chosen, not the slot: the same winner_msg_id in both orders is agreement.
    if (r.order_key === "AB") p.ab = r.winner_msg_id;
    else p.ba = r.winner_msg_id;
    pairs.set(key, p);
  }
  const byRole = new Map<string, Array<{ ab: string; ba: string }>>();
  for (const p of pairs.values()) {
    if (p.ab === undefined || p.ba === undefined) continue;
    const list = byRole.get(p.role) ?? [];
    list.push({ ab: p.ab, ba: p.ba });
    byRole.set(p.role, list);
  }
  return [...byRole.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([judge_role, list]) => {
      const f = flipRate(list);
      return { judge_role, pairs: f.pairs, flips: f.flips, flip_rate: f.rate };
    });
}

/** Every commitment of the topic: shown always; nonce (and so verifiability) once revealed. */
export async function commitmentList(db: Db, t: TopicRow): Promise<Array<Record<string, unknown>>> {
  const rows = await commitments(db, t.topic_id);
  return rows.map((m) => {
    const revealed = (m.blind_round ?? 0) <= (t.revealed_round ?? 0);
    return {
      round_no: m.blind_round,
      role: m.role,
      msg_id: m.msg_id,
      commitment: m.commitment,
      committed_at: m.ts,
      revealed,
      nonce: revealed ? m.nonce : null,
    };
  });
}

/** debate_protocol_state: the micro-state, or the not-configured shape (legacy and unreachable alike). */
export async function protocolState(ctx: ShampooCtx, a: { topic_id: string }): Promise<Record<string, unknown>> {
  return read(ctx, async (db) => {
    const id = a.topic_id.toLowerCase();
    const t = await getTopic(db, ctx.caller.profile, id);
    if (!t || !(await readable(db, ctx, t)) || t.protocol_version !== PROTOCOL_V1) return notConfigured(a.topic_id);
    return {
      ...protocolView(t),
      commitments: await commitmentList(db, t),
      judge_flip_rates: await judgeFlipRates(db, t.topic_id),
    };
  });
}

function positionOf(m: MessageRow) {
  return { msg_id: m.msg_id, kind: m.kind, body: m.body, commitment: m.commitment, nonce: m.nonce };
}

function projectionView(p: ProjectionRow): Record<string, unknown> {
  return {
    projection_id: p.projection_id,
    order_key: p.order_key,
    protocol_version: p.protocol_version,
    topic_id: p.topic_id,
    round_no: p.round_no,
    positions: parseJson<unknown[]>(p.positions_json, []),
  };
}

/** debate_judge_prepare: the immutable AB and BA projections of two opposing revealed positions. */
export async function judgePrepare(ctx: ShampooCtx, a: DebateJudgePrepareInput): Promise<Record<string, unknown>> {
  const topicId = uuidArg(a.topic_id, "topic_id");
  const left = uuidArg(a.left_msg_id, "left_msg_id");
  const right = uuidArg(a.right_msg_id, "right_msg_id");
  if (left === right) throw invalid("left_msg_id and right_msg_id must differ");
  return write(ctx, async (w) => {
    const t = await writableTopic(w, topicId);
    if (t.protocol_version !== PROTOCOL_V1) throw fail("invalid_state", "the topic does not run debate/v1");
    const l = await getMessage(w.trx, t.topic_id, left);
    const r = await getMessage(w.trx, t.topic_id, right);
    if (!l || !r) throw invalid("both positions must be messages of this topic");
    const existing = await projectionsOfRound(w.trx, t.topic_id, t.round_no ?? 1);
    if (existing.length > 0) {
      const ab = existing.find((p) => p.order_key === "AB");
      if (ab?.left_msg_id === left && ab.right_msg_id === right) {
        return { topic_id: t.topic_id, projections: existing.map(projectionView) };
      }
      throw fail("conflict", "projections already exist for this round with other positions");
    }
    if (t.phase !== "ADJUDICATE")
      throw fail("invalid_state", `phase gate: projections need ADJUDICATE, not ${t.phase}`);
    const blind = blindRolesOf(t);
    for (const m of [l, r]) {
      if (!POSITION_KINDS.includes(m.kind)) throw invalid("positions must be CLAIM or REBUT messages");
      if (!blind.includes(m.role)) throw invalid("positions must come from the blind roles");
    }
    if (l.role === r.role) throw invalid("positions must come from the two opposing blind roles");
    const at = iso(w.now);
    const out: ProjectionRow[] = [];
    for (const [order, first, second] of [
      ["AB", l, r],
      ["BA", r, l],
    ] as const) {
      const id = randomUUID();
      out.push(
        await createRow(w, {
          table: "shampoo_debate_projections",
          kind: "debate_projection",
          id,
          view: projectionView,
          row: {
            projection_id: id,
            profile: ctx.caller.profile,
            topic_id: t.topic_id,
            round_no: t.round_no ?? 1,
            order_key: order,
            left_msg_id: left,
            right_msg_id: right,
            positions_json: JSON.stringify([positionOf(first), positionOf(second)]),
            protocol_version: PROTOCOL_V1,
            created_at: at,
          },
        }),
      );
    }
    return { topic_id: t.topic_id, projections: out.map(projectionView) };
  });
}

function parseVerdict(raw: string): { winner_msg_id: string; decision: string } {
  let v: unknown = raw;
  // Stringified JSON is re-parsed (a client that encoded the object twice).
  for (let i = 0; i < 2 && typeof v === "string"; i++) {
    try {
      v = JSON.parse(v);
    } catch {
      throw invalid("verdict_json must be a JSON object {winner_msg_id, decision}");
    }
  }
  const o = v as Record<string, unknown>;
  if (!o || typeof o !== "object" || Array.isArray(o)) throw invalid("verdict_json must be a JSON object");
  if (typeof o.winner_msg_id !== "string" || !o.winner_msg_id.trim())
    throw invalid("verdict_json.winner_msg_id is required");
  if (typeof o.decision !== "string" || !o.decision.trim()) throw invalid("verdict_json.decision is required");
  return { winner_msg_id: o.winner_msg_id.trim().toLowerCase(), decision: o.decision.trim() };
}

/** debate_judge_verdict: one immutable verdict per projection; the pair's outcome moves the phase. */
export async function judgeVerdict(ctx: ShampooCtx, a: DebateJudgeVerdictInput): Promise<Record<string, unknown>> {
  const projectionId = uuidArg(a.projection_id, "projection_id");
  const verdict = parseVerdict(a.verdict_json);
  return write(ctx, async (w) => {
    const p = await getProjection(w.trx, ctx.caller.profile, projectionId);
    if (!p) throw denied();
    const t = await writableTopic(w, p.topic_id);
    const role = a.judge_role;
    if (!rolesOf(t).includes(role)) throw denied();
    const b = await activeBinding(w.trx, t.topic_id, role);
    if (!b || b.owner !== ctx.caller.principal) throw denied();
    if (blindRolesOf(t).includes(role) || role === "HUMAN") {
      throw invalid("the judge must be a declared, non-blind, non-human role");
    }
    const positions = parseJson<Array<{ msg_id: string }>>(p.positions_json, []);
    if (!positions.some((x) => x.msg_id === verdict.winner_msg_id)) {
      throw invalid("winner_msg_id must name one of the projection's positions");
    }
    const pair = await verdictsOfRound(w.trx, t.topic_id, p.round_no);
    const mine = pair.find((v) => v.projection_id === p.projection_id);
    if (mine) {
      if (
        mine.judge_role === role &&
        mine.winner_msg_id === verdict.winner_msg_id &&
        mine.decision === verdict.decision
      ) {
        return verdictResult(w, t, p, pair);
      }
      throw fail("conflict", "this projection already has its verdict; verdicts are immutable");
    }
    if (pair.some((v) => v.judge_role !== role)) throw fail("conflict", "each pair admits a single judge role");
    if (t.phase !== "ADJUDICATE") {
      throw fail("state_conflict", `lost phase race: the topic is in ${t.phase}`, {
        current_state: t.phase,
        current_version: t.transition_version,
        allowed_moves: [],
      });
    }
    const id = randomUUID();
    const row = await createRow(w, {
      table: "shampoo_debate_verdicts",
      kind: "debate_verdict",
      id,
      view: (v: VerdictRow) => ({ ...v, profile: undefined }),
      row: {
        verdict_id: id,
        profile: ctx.caller.profile,
        projection_id: p.projection_id,
        topic_id: t.topic_id,
        round_no: p.round_no,
        judge_role: role,
        judge_session_id: b.session_id,
        winner_msg_id: verdict.winner_msg_id,
        decision: verdict.decision,
        created_at: iso(w.now),
      },
    });
    const all = [...pair, row];
    const ab = all.find((v) => v.projection_id !== p.projection_id) ?? null;
    const out = verdictOutcome(row.winner_msg_id, ab?.winner_msg_id ?? null);
    if (out.complete) {
      const stalemate = out.stable === false;
      const moved = await protocolFlow.move(w, {
        id: t.topic_id,
        move: stalemate ? "stalemate" : "stop",
        expectedVersion: t.transition_version ?? 1,
        set: {
          stalemate_reason: stalemate ? "order_swap_disagreement" : null,
          phase_deadline_at: null,
          protocol_updated_at: iso(w.now),
        },
        payload: { judge_role: role, stable: out.stable },
      });
      Object.assign(t, {
        phase: moved.state,
        transition_version: moved.version,
        stalemate_reason: stalemate ? "order_swap_disagreement" : null,
        phase_deadline_at: null,
        protocol_updated_at: iso(w.now),
      });
    }
    return verdictResult(w, t, p, all);
  });
}

async function verdictResult(w: WriteScope, t: TopicRow, p: ProjectionRow, pair: VerdictRow[]) {
  const projections = await projectionsOfRound(w.trx, t.topic_id, p.round_no);
  const winner = (order: string) => {
    const id = projections.find((x) => x.order_key === order)?.projection_id;
    return pair.find((v) => v.projection_id === id)?.winner_msg_id ?? null;
  };
  const out = verdictOutcome(winner("AB"), winner("BA"));
  return {
    projection_id: p.projection_id,
    topic_id: t.topic_id,
    complete: out.complete,
    stable: out.stable,
    protocol_state: { ...protocolView(t), judge_flip_rates: await judgeFlipRates(w.trx, t.topic_id) },
  };
}

/**
 * debate_protocol_maintain: expired phases (every debate/v1 topic of the profile) move to
 * STALEMATE; declared roles that lost their owner (topics_csv, or every open topic) gain a
 * recovery binding owned by the caller, carrying the predecessor's cursor.
 */
export async function protocolMaintain(
  ctx: ShampooCtx,
  a: { topic_ids_csv?: string | null | undefined },
): Promise<Record<string, unknown>> {
  const ids = csv(a.topic_ids_csv);
  for (const id of ids) if (!isUuid(id)) throw invalid(`topic_ids_csv: ${id} is not a topic id`);
  const wanted = ids.map((i) => i.toLowerCase());
  return write(ctx, async (w) => {
    const now = iso(w.now);
    const timedOut: Array<Record<string, unknown>> = [];
    const expired = await expiredPhases(w.trx, w.engine, ctx.caller.profile, now);
    for (const t of expired) {
      const reason = `phase_timeout:${t.phase}`;
      await protocolFlow.move(w, {
        id: t.topic_id,
        move: "stalemate",
        expectedVersion: t.transition_version ?? 1,
        set: { stalemate_reason: reason, phase_deadline_at: null, protocol_updated_at: now },
        payload: { reason },
      });
      timedOut.push({ topic_id: t.topic_id, reason });
    }
    const recoveries: Array<Record<string, unknown>> = [];
    const topics = await openTopics(w.trx, w.engine, ctx.caller.profile, wanted);
    for (const t of topics) {
      for (const role of rolesOf(t)) {
        if (UNRECOVERED_ROLES.includes(role)) continue;
        if (await activeBinding(w.trx, t.topic_id, role)) continue;
        const last = await latestRetired(w.trx, t.topic_id, role);
        if (!last) continue; // an open seat nobody took: not a lost owner
        const session = randomUUID();
        await insertIdentity(w.trx, {
          profile: ctx.caller.profile,
          session_id: session,
          owner: ctx.caller.principal,
          origin: "protocol_maintain",
          created_at: now,
        });
        const cursor = await carriedCursor(w, last);
        const b = await installBinding(w, t, {
          role,
          session_id: session,
          owner: ctx.caller.principal,
          reason: "role_recovery",
          ...(cursor ? { cursor } : {}),
        });
        recoveries.push({
          topic_id: t.topic_id,
          role,
          session_id: session,
          generation: b.generation,
          reason: "role_recovery",
        });
      }
    }
    return { timed_out: timedOut, role_recoveries: recoveries };
  });
}

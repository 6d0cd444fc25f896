import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import { canWrite, projectValue, scopeDenied } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { fail, given, invalid } from "../../../platform/errors.ts";
import { changeRow, createRow } from "../../../platform/rows.ts";
import { defineStateMachine } from "../../../platform/state-machine.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import type { DebateInitInput, DebateReconcileProjectInput, DebateSetTopicPriorityInput } from "../inputs.gen.ts";
import { bindingView, denied, parseJson, protocolView, rolesOf, topicView } from "../model.ts";
import {
  answers,
  DEFAULT_MAX_ROUNDS,
  DEFAULT_PHASE_TIMEOUT_SECONDS,
  laneOf,
  moveTo,
  PROTOCOL_V1,
  roleShapeError,
  strictUtc,
  TOPIC_STATES,
} from "../rules.ts";
import type { BindingRow, TopicRow } from "../schema.ts";
import { messagesOfKind, repliesTo } from "../store/messages.ts";
import { activeOrResolvedBinding, bindingsInStates, getTopic, insertIdentity, ownsSession } from "../store/topics.ts";
import { installBinding, retireBinding } from "./bindings.ts";
import { appendMessage, ownedRole, uuidArg, writableTopic } from "./gate.ts";
import { judgeFlipRates } from "./protocol.ts";

/** The topic lifecycle: forward moves only, each one compare-and-swap on the topic's version. */
export const topicFlow = defineStateMachine({
  name: "debate_topic",
  table: "shampoo_debate_topics",
  idColumn: "topic_id",
  states: TOPIC_STATES,
  initial: "INIT",
  moves: {
    activate: { from: ["INIT"], to: "ACTIVE" },
    resolve: { from: ["INIT", "ACTIVE"], to: "RESOLVED" },
    archive: { from: ["RESOLVED"], to: "ARCHIVED" },
  },
});

export const topicEventView = (t: TopicRow) => topicView(t);

interface RoleEntry {
  role: string;
  session_id?: string | null;
}

function parseRoles(json: string | undefined | null, creator: string): RoleEntry[] {
  if (!given(json)) return [{ role: creator }];
  let v: unknown;
  try {
    v = JSON.parse(json as string);
  } catch {
    throw invalid("roles_json must be a JSON array of {role, session_id} objects");
  }
  if (!Array.isArray(v) || v.length === 0) throw invalid("roles_json must be a non-empty JSON array");
  const seen = new Set<string>();
  const out: RoleEntry[] = [];
  for (const e of v) {
    if (!e || typeof e !== "object" || Array.isArray(e) || typeof e.role !== "string") {
      throw invalid("each roles_json entry must be an object with a role");
    }
    const extra = Object.keys(e).filter((k) => k !== "role" && k !== "session_id");
    if (extra.length > 0) throw invalid(`roles_json entries take role and session_id only, got ${extra.join(", ")}`);
    const err = roleShapeError(e.role);
    if (err) throw invalid(err);
    if (seen.has(e.role)) throw invalid(`role ${e.role} appears twice in roles_json`);
    seen.add(e.role);
    if (e.session_id !== undefined && e.session_id !== null && typeof e.session_id !== "string") {
      throw invalid("session_id must be a UUID string or null");
    }
    out.push({ role: e.role, ...(e.session_id === undefined ? {} : { session_id: e.session_id }) });
  }
  if (!seen.has(creator)) throw invalid("created_by_role must be one of the declared roles");
  return out;
}

function resolveProject(ctx: ShampooCtx, raw: string | null | undefined): string | null {
  const c = ctx.caller;
  if (given(raw)) {
    const p = projectValue(raw);
    if (!canWrite(c, p)) throw scopeDenied();
    return p;
  }
  if (!c.star && c.projects.size === 1) return [...c.projects][0] as string;
  if (c.star || c.role === "conductor") {
    if (!canWrite(c, null)) throw scopeDenied();
    return null;
  }
  if (c.projects.size === 0 && c.untagged) return null;
  throw invalid("project is required: you hold more than one project grant");
}

/** The shape a repeat of debate_init must match to return the existing topic. */
function shapeOf(t: Pick<TopicRow, "title" | "created_by_role" | "roles_json" | "project" | "protocol_version">) {
  return JSON.stringify([t.title, t.created_by_role, rolesOf(t as TopicRow), t.project, t.protocol_version]);
}

/** gen:inputs drops every key named "title" (scripts/inputs.ts), so the title parameter is added here. */
export type DebateInitArgs = DebateInitInput & { title: string };

export async function debateInit(ctx: ShampooCtx, a: DebateInitArgs): Promise<Record<string, unknown>> {
  const title = a.title.trim();
  if (!title) throw invalid("title must not be blank");
  const creator = a.created_by_role;
  const err = roleShapeError(creator);
  if (err) throw invalid(err);
  const entries = parseRoles(a.roles_json, creator);
  const roles = entries.map((e) => e.role);
  for (const e of entries) if (given(e.session_id)) uuidArg(e.session_id as string, "roles_json session_id");
  const metadata = given(a.metadata_json) ? parseJson<unknown>(a.metadata_json as string, undefined) : {};
  if (!metadata || typeof metadata !== "object" || Array.isArray(metadata)) {
    throw invalid("metadata_json must be a JSON object");
  }
  const meta = metadata as Record<string, unknown>;
  const protocol = a.protocol_version ?? "";
  const v1 = protocol === PROTOCOL_V1;
  const blind = (a.blind_roles_csv ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (!v1 && (blind.length > 0 || a.max_rounds != null || a.phase_timeout_seconds != null)) {
    throw invalid("blind_roles_csv, max_rounds and phase_timeout_seconds need protocol_version debate/v1");
  }
  if (v1) {
    if (blind.length !== 2 || blind[0] === blind[1]) throw invalid("debate/v1 needs exactly two distinct blind roles");
    for (const b of blind) {
      if (!roles.includes(b)) throw invalid(`blind role ${b} is not declared`);
      if (b === "CONDUCTOR" || b === "HUMAN") throw invalid(`${b} cannot be a blind role`);
    }
  }
  let resolveBy: string | null = null;
  if (given(a.resolve_by)) {
    const ms = strictUtc(a.resolve_by as string);
    if (ms === null) throw invalid("resolve_by must be ISO-8601 UTC (e.g. 2026-12-01T00:00:00Z)");
    resolveBy = new Date(ms).toISOString();
  }
  // A legacy import: a topic whose project was never set (sentinel); conductor only.
  const sentinel = meta.legacy_project_unset === true;
  if (sentinel && ctx.caller.role !== "conductor") throw fail("forbidden", "legacy imports are conductor-only");
  const project = sentinel ? null : resolveProject(ctx, a.project);
  let lane: { lane: string; rank: number } | null = null;
  if (meta.lane !== undefined) {
    lane = typeof meta.lane === "string" ? laneOf(meta.lane) : null;
    if (!lane || typeof meta.lane_reason !== "string" || !meta.lane_reason.trim()) {
      throw invalid("metadata lane must be P0..P7 and come with a non-blank lane_reason");
    }
  }
  const explicitId = given(a.topic_id) ? uuidArg(a.topic_id as string, "topic_id") : null;

  return write(ctx, async (w) => {
    if (explicitId) {
      const old = await getTopic(w.trx, ctx.caller.profile, explicitId);
      if (old?.project_state !== "set" || !canWrite(ctx.caller, old.project)) throw denied();
      const want = {
        title,
        created_by_role: creator,
        roles_json: JSON.stringify(roles),
        project,
        protocol_version: protocol,
      };
      if (shapeOf(old) !== shapeOf(want)) {
        throw fail("conflict", "debate_init repeated with a different shape for an existing topic");
      }
      return initResult(old, []);
    }
    const at = iso(w.now);
    const timeout = a.phase_timeout_seconds ?? DEFAULT_PHASE_TIMEOUT_SECONDS;
    const id = randomUUID();
    const topic = await createRow(w, {
      table: "shampoo_debate_topics",
      kind: "debate_topic",
      id,
      view: topicEventView,
      row: {
        topic_id: id,
        profile: ctx.caller.profile,
        project,
        project_state: sentinel ? "sentinel" : "set",
        title,
        state: "INIT",
        version: 1,
        created_by_role: creator,
        created_by: ctx.caller.principal,
        created_at: at,
        updated_at: at,
        resolve_by: resolveBy,
        archived_at: null,
        roles_json: JSON.stringify(roles),
        metadata_json: JSON.stringify(meta),
        lane: lane?.lane ?? null,
        lane_rank: lane?.rank ?? null,
        lane_reason: lane ? String(meta.lane_reason) : null,
        next_action: null,
        blocked_by: null,
        lane_updated_at: lane ? at : null,
        protocol_version: protocol,
        blind_roles_json: v1 ? JSON.stringify(blind) : null,
        max_rounds: v1 ? (a.max_rounds ?? DEFAULT_MAX_ROUNDS) : null,
        phase: v1 ? "ROUND" : null,
        round_no: v1 ? 1 : null,
        revealed_round: v1 ? 0 : null,
        stalemate_reason: null,
        transition_version: v1 ? 1 : null,
        phase_deadline_at: v1 ? iso(w.now + timeout * 1000) : null,
        phase_timeout_seconds: v1 ? timeout : null,
        protocol_updated_at: v1 ? at : null,
        msg_seq: 0,
      } as Omit<TopicRow, "last_event_id">,
    });
    const seeded = [];
    for (const e of entries) {
      let session: string;
      if (e.session_id === null) continue; // an open seat: declared, bound later by its owner
      if (e.session_id === undefined || !given(e.session_id)) {
        session = randomUUID();
        await insertIdentity(w.trx, {
          profile: ctx.caller.profile,
          session_id: session,
          owner: ctx.caller.principal,
          origin: "debate_init",
          created_at: at,
        });
      } else {
        session = e.session_id.toLowerCase();
        if (!(await ownsSession(w.trx, ctx.caller, session))) throw denied();
      }
      seeded.push(
        await installBinding(w, topic, {
          role: e.role,
          session_id: session,
          owner: ctx.caller.principal,
          reason: "init",
        }),
      );
    }
    return initResult(
      topic,
      seeded.map((b) => bindingView(b)),
    );
  });
}

function initResult(t: TopicRow, seeded: unknown[]): Record<string, unknown> {
  const v = topicView(t);
  return {
    ...v,
    seeded_bindings: seeded,
    ...(t.protocol_version === PROTOCOL_V1 ? { protocol_state: protocolView(t) } : {}),
  };
}

export interface TransitionArgs {
  topic_id: string;
  role: string;
  new_state: string;
  reason?: string | null | undefined;
}

/**
 * The one transition unit (debate_state and debate_close_topic): the caller's own binding on the
 * role, the Q/A gate for RESOLVED, the compare-and-swap, the synthetic STATE message and the
 * binding retirement, all or nothing.
 */
export async function transition(ctx: ShampooCtx, a: TransitionArgs): Promise<Record<string, unknown>> {
  const topicId = uuidArg(a.topic_id, "topic_id");
  return write(ctx, async (w) => {
    const t = await writableTopic(w, topicId);
    const owner = await closingAuthority(w, t, a.role);
    const from = t.state;
    const to = a.new_state as TopicRow["state"];
    const move = moveTo(from, to);
    if (!move) {
      throw fail("state_conflict", `illegal transition ${from} -> ${to}: topics only move forward`, {
        current_state: from,
        current_version: t.version,
        allowed_moves: topicFlow.allowedMoves(from),
      });
    }
    const at = iso(w.now);
    if (to === "RESOLVED") {
      const qs = await messagesOfKind(w.trx, t.topic_id, ["Q"]);
      const replies = await repliesTo(
        w.trx,
        t.topic_id,
        qs.map((q) => q.msg_id),
      );
      const settled = new Set(replies.filter(answers).map((r) => r.reply_to));
      const blocking = qs
        .filter((q) => !settled.has(q.msg_id))
        .map((q) => ({ msg_id: q.msg_id, role: q.role, ts: q.ts }));
      if (blocking.length > 0) {
        return {
          ...(await flipRates(w, t)),
          old_state: from,
          new_state: from,
          ts: at,
          blocking_questions: blocking,
          transition_msg_id: null,
          body: null,
          retired_bindings: 0,
          retired_worker_claims: 0,
        };
      }
    }
    await topicFlow.move(w, {
      id: t.topic_id,
      move,
      expectedVersion: t.version,
      set: to === "ARCHIVED" ? { archived_at: at } : {},
      payload: { role: a.role, reason: given(a.reason) ?? null },
    });
    t.state = to;
    t.version += 1;
    const body = `[STATE:${from}->${to}]${given(a.reason) ? ` ${a.reason}` : ""}`;
    const msg = await appendMessage(w, t, { role: owner.role, priority: "INFO", kind: "STATE", body });
    let retired = 0;
    let claims = 0;
    if (to === "RESOLVED" || to === "ARCHIVED") {
      const states: BindingRow["state"][] = to === "RESOLVED" ? ["active"] : ["active", "diagnostic"];
      const rows = await bindingsInStates(w.trx, t.topic_id, states);
      for (const b of rows) {
        claims += await retireBinding(w, b, to === "RESOLVED" ? "topic_resolved" : "topic_archived");
        retired += 1;
      }
    }
    return {
      ...(await flipRates(w, t)),
      old_state: from,
      new_state: to,
      ts: msg.ts,
      blocking_questions: [],
      transition_msg_id: msg.msg_id,
      body,
      retired_bindings: retired,
      retired_worker_claims: claims,
    };
  });
}

/** On debate/v1 topics the transition answer also shows each judge role's measured flip rate. */
async function flipRates(w: WriteScope, t: TopicRow): Promise<Record<string, unknown>> {
  return t.protocol_version === PROTOCOL_V1 ? { judge_flip_rates: await judgeFlipRates(w.trx, t.topic_id) } : {};
}

/**
 * Who may move a topic: the caller's active binding of the role; once RESOLVED retired every
 * binding, the caller's binding of that role the resolution retired.
 */
async function closingAuthority(w: WriteScope, t: TopicRow, role: string) {
  if (t.state !== "RESOLVED") return ownedRole(w.trx, w.ctx, t, role);
  if (!rolesOf(t).includes(role)) throw denied();
  const b = await activeOrResolvedBinding(w.trx, t.topic_id, role, w.ctx.caller.principal);
  if (!b) throw denied();
  return b;
}

/** debate_reconcile_project: a sentinel topic's project set once; nothing of its content shown. */
export async function reconcileProject(
  ctx: ShampooCtx,
  a: DebateReconcileProjectInput,
): Promise<Record<string, unknown>> {
  const topicId = uuidArg(a.topic_id, "topic_id");
  if (!given(a.project)) throw fail("invalid_project", "invalid project: a project name is required");
  const project = projectValue(a.project.trim());
  if (project === null || project === "sentinel") throw fail("invalid_project", "invalid project");
  if (!canWrite(ctx.caller, project)) throw scopeDenied();
  return write(ctx, async (w) => {
    const t = await getTopic(w.trx, ctx.caller.profile, topicId, w.engine);
    if (t?.project_state !== "sentinel") {
      throw fail("invalid_project", "invalid project: unknown topic or project already set");
    }
    await changeRow(w, {
      table: "shampoo_debate_topics",
      kind: "debate_topic",
      action: "reconcile_project",
      old: t,
      key: { column: "topic_id", value: t.topic_id },
      set: { project, project_state: "set", updated_at: iso(w.now) },
      view: (r) => ({ topic_id: r.topic_id, project: r.project, project_state: r.project_state }),
    });
    return { topic_id: t.topic_id, project, matched: 1 };
  });
}

/** debate_set_topic_priority: the CONDUCTOR binding's lane P0..P7 with its reason. */
export async function setTopicPriority(
  ctx: ShampooCtx,
  a: DebateSetTopicPriorityInput,
): Promise<Record<string, unknown>> {
  const topicId = uuidArg(a.topic_id, "topic_id");
  if (a.role !== "CONDUCTOR") throw invalid("role must be CONDUCTOR");
  const lane = laneOf(a.lane);
  if (!lane) throw invalid("lane must be one of P0..P7");
  if (!given(a.reason)) throw invalid("reason must not be blank");
  return write(ctx, async (w) => {
    const t = await writableTopic(w, topicId);
    await ownedRole(w.trx, ctx, t, "CONDUCTOR");
    const at = iso(w.now);
    const { row } = await changeRow(w, {
      table: "shampoo_debate_topics",
      kind: "debate_topic",
      action: "set_priority",
      old: t,
      key: { column: "topic_id", value: t.topic_id },
      set: {
        lane: lane.lane,
        lane_rank: lane.rank,
        lane_reason: a.reason.trim(),
        next_action: given(a.next_action) ?? null,
        blocked_by: given(a.blocked_by) ?? null,
        lane_updated_at: at,
        updated_at: at,
      },
      view: (r) => ({ topic_id: r.topic_id, lane: r.lane, lane_reason: r.lane_reason }),
    });
    return {
      topic_id: row.topic_id,
      lane: row.lane,
      rank: row.lane_rank,
      reason: row.lane_reason,
      next_action: row.next_action,
      blocked_by: row.blocked_by,
      updated_at: at,
    };
  });
}

import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import type { ShampooCtx } from "../../../context.ts";
import { fail, given, invalid } from "../../../platform/errors.ts";
import { releaseLease } from "../../../platform/leases/index.ts";
import { lifecycleSet, NEW_LIFECYCLE, stampOf } from "../../../platform/lifecycle.ts";
import { changeRow, createRow } from "../../../platform/rows.ts";
import { read, type WriteScope, write } from "../../../platform/write.ts";
import { bindingEventView, bindingView, claimView, denied, rolesOf } from "../model.ts";
import { roleShapeError } from "../rules.ts";
import type { BindingRow, TopicRow, WorkerClaimRow } from "../schema.ts";
import { activeClaimsOfParent, newestCompletedAck } from "../store/claims.ts";
import { tip } from "../store/messages.ts";
import {
  activeBinding,
  bindingOfSession,
  bindingsOf,
  maxGeneration,
  ownsSession,
  updateTopic,
} from "../store/topics.ts";
import { checkOverride, readableTopic, uuidArg, writableTopic } from "./gate.ts";

/**
 * Role/session bindings: one active owner per role (a partial unique index backs the rule), the
 * owner's cursor travelling with every swap, rotation and recovery, retired bindings kept as
 * history. A session is bound only by a caller who owns it: knowing an id enrolls nothing.
 */

export interface BindingSpec {
  role: string;
  session_id: string;
  owner: string;
  state?: BindingRow["state"];
  runtime?: string | null;
  reason?: string | null;
  bound_by_role?: string | null;
  bound_by_msg_id?: string | null;
  cursor?: { msg_id: string | null; ts: string | null; seq: number | null; source: string | null };
}

export async function installBinding(w: WriteScope, t: TopicRow, s: BindingSpec): Promise<BindingRow> {
  const at = iso(w.now);
  const generation = (await maxGeneration(w.trx, t.topic_id, s.role)) + 1;
  const id = randomUUID();
  return createRow(w, {
    table: "shampoo_debate_bindings",
    kind: "debate_binding",
    id,
    row: {
      ...NEW_LIFECYCLE,
      lifecycle: "live",
      binding_id: id,
      profile: w.ctx.caller.profile,
      topic_id: t.topic_id,
      role: s.role,
      session_id: s.session_id,
      owner: s.owner,
      runtime: s.runtime ?? null,
      state: s.state ?? "active",
      generation,
      reason: s.reason ?? null,
      bound_by_role: s.bound_by_role ?? null,
      bound_by_msg_id: s.bound_by_msg_id ?? null,
      created_at: at,
      updated_at: at,
      cursor_msg_id: s.cursor?.msg_id ?? null,
      cursor_ts: s.cursor?.ts ?? null,
      cursor_seq: s.cursor?.seq ?? null,
      last_check_at: null,
      cursor_source: s.cursor?.source ?? null,
    } as Omit<BindingRow, "last_event_id">,
    view: bindingEventView,
  });
}

/** Retires a binding (kept as history, never grants again) and its active worker claims. */
export async function retireBinding(w: WriteScope, b: BindingRow, reason: string): Promise<number> {
  await changeRow(w, {
    table: "shampoo_debate_bindings",
    kind: "debate_binding",
    action: "retire",
    old: b,
    key: { column: "binding_id", value: b.binding_id },
    set: { state: "retired", updated_at: iso(w.now), ...lifecycleSet("retire", stampOf(w, reason)) },
    view: bindingEventView,
  });
  return retireClaimsOf(w, b.topic_id, b.role, b.session_id, reason);
}

/** Retires the active worker claims under one parent binding; returns how many. */
export async function retireClaimsOf(
  w: WriteScope,
  topicId: string,
  role: string,
  parentSessionId: string,
  reason: string,
): Promise<number> {
  const claims = await activeClaimsOfParent(w.trx, topicId, role, parentSessionId);
  for (const c of claims) await retireClaim(w, c, reason);
  return claims.length;
}

/** One claim retired: its lease given back (fenced: a newer holder is never touched). */
export async function retireClaim(w: WriteScope, c: WorkerClaimRow, reason: string): Promise<void> {
  try {
    await releaseLease(w, {
      kind: "debate_worker",
      resourceId: c.claim_id,
      holder: c.worker_session_id,
      fence: c.fence,
      expiresMs: 0,
    });
  } catch {
    // The lease already moved on (released or reclaimed): the claim row is the authority.
  }
  await changeRow(w, {
    table: "shampoo_debate_worker_claims",
    kind: "debate_worker_claim",
    action: "retire",
    old: c,
    key: { column: "claim_id", value: c.claim_id },
    set: { state: "retired", ...lifecycleSet("retire", stampOf(w, reason)) },
    view: claimView,
  });
}

export interface BindArgs {
  topic_id: string;
  role: string;
  session_id: string;
  bound_by_msg_id?: string | null | undefined;
  bound_by_role?: string | null | undefined;
  conductor_override_msg_id?: string | null | undefined;
  reason?: string | null | undefined;
  replace_active?: boolean | null | undefined;
  runtime?: string | null | undefined;
  state?: string | null | undefined;
}

/** The binding answer: the binding plus what a swap retired. */
function bound(b: BindingRow, retiredSessions: number, retiredClaims: number): Record<string, unknown> {
  return {
    topic_id: b.topic_id,
    role: b.role,
    session_id: b.session_id,
    runtime: b.runtime,
    state: b.state,
    generation: b.generation,
    retired_sessions: retiredSessions,
    retired_worker_claims: retiredClaims,
  };
}

export function checkRoleShape(role: string): void {
  const e = roleShapeError(role);
  if (e) throw invalid(e);
}

/**
 * The one binding path (debate_bind_role, and debate_add_role for a role already declared):
 * inside the caller's write, with the topic row locked.
 */
export async function bindIn(w: WriteScope, t: TopicRow, a: BindArgs): Promise<Record<string, unknown>> {
  const ctx = w.ctx;
  const sessionId = uuidArg(a.session_id, "session_id");
  const state = (a.state ?? "active") as BindingRow["state"];
  if (!rolesOf(t).includes(a.role)) throw denied();
  if (!(await ownsSession(w.trx, ctx.caller, sessionId))) throw denied();
  const override = given(a.conductor_override_msg_id)
    ? await checkOverride(w.trx, ctx, t, a.conductor_override_msg_id as string)
    : null;
  const spec = {
    role: a.role,
    session_id: sessionId,
    owner: ctx.caller.principal,
    runtime: given(a.runtime) ?? null,
    reason: given(a.reason) ?? null,
    bound_by_role: given(a.bound_by_role) ?? null,
    bound_by_msg_id: override?.msg_id ?? given(a.bound_by_msg_id) ?? null,
  };
  const current = await activeBinding(w.trx, t.topic_id, a.role, w.engine);
  if (state === "diagnostic") {
    const had = await bindingOfSession(w.trx, t.topic_id, a.role, sessionId, ["diagnostic"]);
    if (had) return bound(had, 0, 0);
    return bound(await installBinding(w, t, { ...spec, state: "diagnostic" }), 0, 0);
  }
  if (state === "retired") {
    // Retiring an active owner needs conductor sanction, and the session must be that owner.
    if (!current || current.session_id !== sessionId || !override) throw denied();
    const claims = await retireBinding(w, current, spec.reason ?? "retired_by_conductor");
    const after = { ...current, state: "retired" as const };
    return bound(after, 1, claims);
  }
  if (!current) return bound(await installBinding(w, t, spec), 0, 0);
  if (current.session_id === sessionId) return bound(current, 0, 0);
  // Taking a role someone else holds is a takeover: only with a valid conductor override.
  if (current.owner !== ctx.caller.principal && !override) throw denied();
  if (a.replace_active !== true) {
    throw fail("conflict", `role ${a.role} already has an active owner; pass replace_active to swap atomically`);
  }
  const claims = await retireBinding(w, current, spec.reason ?? "replaced");
  const next = await installBinding(w, t, {
    ...spec,
    cursor: { msg_id: current.cursor_msg_id, ts: current.cursor_ts, seq: current.cursor_seq, source: "primary" },
  });
  return bound(next, 1, claims);
}

export async function bindRole(ctx: ShampooCtx, a: BindArgs): Promise<Record<string, unknown>> {
  checkRoleShape(a.role);
  const topicId = uuidArg(a.topic_id, "topic_id");
  uuidArg(a.session_id, "session_id");
  return write(ctx, async (w) => bindIn(w, await writableTopic(w, topicId), a));
}

export interface AddRoleArgs extends BindArgs {}

/** debate_add_role: a new role appended to the roster and bound, or the ordinary binding path. */
export async function addRole(ctx: ShampooCtx, a: AddRoleArgs): Promise<Record<string, unknown>> {
  checkRoleShape(a.role);
  const topicId = uuidArg(a.topic_id, "topic_id");
  const sessionId = uuidArg(a.session_id, "session_id");
  return write(ctx, async (w) => {
    const t = await writableTopic(w, topicId);
    if (t.state === "RESOLVED" || t.state === "ARCHIVED") throw fail("invalid_state", "the topic is closed");
    if (!(await ownsSession(w.trx, ctx.caller, sessionId))) throw denied();
    if (given(a.conductor_override_msg_id)) await checkOverride(w.trx, ctx, t, a.conductor_override_msg_id as string);
    const roles = rolesOf(t);
    if (roles.includes(a.role)) {
      const out = await bindIn(w, t, { ...a, state: "active" });
      return { ...out, added_role: false };
    }
    roles.push(a.role);
    await updateTopic(w.trx, t.topic_id, { roles_json: JSON.stringify(roles), updated_at: iso(w.now) });
    t.roles_json = JSON.stringify(roles);
    await w.event({
      entityKind: "debate_topic",
      entityId: t.topic_id,
      action: "add_role",
      old: null,
      new: { role: a.role, roles },
    });
    const b = await installBinding(w, t, {
      role: a.role,
      session_id: sessionId,
      owner: ctx.caller.principal,
      runtime: given(a.runtime) ?? null,
      reason: given(a.reason) ?? "flexible-roster",
      bound_by_role: given(a.bound_by_role) ?? null,
      bound_by_msg_id: given(a.bound_by_msg_id) ?? null,
    });
    return { ...bound(b, 0, 0), added_role: true };
  });
}

export interface RotateArgs {
  topic_id: string;
  role: string;
  old_session_id: string;
  new_session_id: string;
  cursor_mode: string;
  bound_by_msg_id?: string | null | undefined;
  bound_by_role?: string | null | undefined;
  reason?: string | null | undefined;
  runtime?: string | null | undefined;
}

/** debate_rotate_binding: both sides caller-owned, the swap and its cursor carry in one unit. */
export async function rotateBinding(ctx: ShampooCtx, a: RotateArgs): Promise<Record<string, unknown>> {
  checkRoleShape(a.role);
  const topicId = uuidArg(a.topic_id, "topic_id");
  const oldId = uuidArg(a.old_session_id, "old_session_id");
  const newId = uuidArg(a.new_session_id, "new_session_id");
  if (oldId === newId) throw invalid("new_session_id must differ from old_session_id");
  return write(ctx, async (w) => {
    const t = await writableTopic(w, topicId);
    if (!rolesOf(t).includes(a.role)) throw denied();
    const current = await activeBinding(w.trx, t.topic_id, a.role, w.engine);
    const ownsBoth = (await ownsSession(w.trx, ctx.caller, oldId)) && (await ownsSession(w.trx, ctx.caller, newId));
    if (!current || current.session_id !== oldId || current.owner !== ctx.caller.principal || !ownsBoth) throw denied();
    let cursor: { msg_id: string | null; ts: string | null; seq: number | null; source: string | null } = {
      msg_id: null,
      ts: null,
      seq: null,
      source: null,
    };
    let warning: string | null = null;
    if (a.cursor_mode === "head") {
      const top = await tip(w.trx, t.topic_id);
      cursor = { msg_id: top?.msg_id ?? null, ts: top?.ts ?? null, seq: top?.seq ?? null, source: "head" };
    } else if (a.cursor_mode === "copy") {
      const src = await carriedCursor(w, current);
      if (src) cursor = src;
      else warning = "copy_source_cursor_missing";
    }
    const claims = await retireBinding(w, current, given(a.reason) ?? `rotated:${a.cursor_mode}`);
    const next = await installBinding(w, t, {
      role: a.role,
      session_id: newId,
      owner: ctx.caller.principal,
      runtime: given(a.runtime) ?? current.runtime,
      reason: given(a.reason) ?? `rotated:${a.cursor_mode}`,
      bound_by_role: given(a.bound_by_role) ?? null,
      bound_by_msg_id: given(a.bound_by_msg_id) ?? null,
      cursor,
    });
    return {
      ...bound(next, 1, claims),
      binding: bindingView(next),
      old_session_id: oldId,
      new_session_id: newId,
      cursor_mode: a.cursor_mode,
      cursor_source: a.cursor_mode === "copy" ? (cursor.source ?? null) : null,
      warning,
    };
  });
}

/**
 * The cursor a successor carries: the predecessor's own (primary), else the newest completed
 * worker claim's acknowledgement under it (completed_worker), else none.
 */
export async function carriedCursor(
  w: WriteScope,
  b: BindingRow,
): Promise<{ msg_id: string; ts: string | null; seq: number | null; source: string } | null> {
  if (b.cursor_msg_id) return { msg_id: b.cursor_msg_id, ts: b.cursor_ts, seq: b.cursor_seq, source: "primary" };
  const c = await newestCompletedAck(w.trx, b.topic_id, b.role);
  return c ? { msg_id: c.msg_id, ts: c.ts, seq: c.seq, source: "completed_worker" } : null;
}

/** debate_binding_list: every binding, retired ones as history; session ids for owner or star. */
export async function bindingList(ctx: ShampooCtx, a: { topic_id: string }): Promise<Record<string, unknown>> {
  return read(ctx, async (db) => {
    const t = await readableTopic(db, ctx, a.topic_id);
    const rows = await bindingsOf(db, t.topic_id);
    return {
      topic_id: t.topic_id,
      topic_state: t.state,
      bindings: rows.map((b) => bindingView(b, ctx.caller.star || b.owner === ctx.caller.principal)),
    };
  });
}

import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import { projectValue, scopeDenied } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { fail, given } from "../../../platform/errors.ts";
import { changeRow, createRow } from "../../../platform/rows.ts";
import { read, type WriteScope, write } from "../../../platform/write.ts";
import type {
  QuorumCancelInput,
  QuorumCreateInput,
  QuorumListInput,
  QuorumMarkParticipantInput,
  QuorumResolveInput,
} from "../inputs.gen.ts";
import { participantView, quorumNotOpen, quorumView, unknownQuorum } from "../model.ts";
import { clampLimit, MAX_PARTICIPANTS, participantMoveAllowed, participantRefOk } from "../rules.ts";
import type { QuorumParticipantRow, QuorumRow } from "../schema.ts";
import {
  getParticipant,
  listQuorums,
  openLaneCount,
  participantCount,
  participantsOf,
  visibleQuorum,
} from "../store/quorums.ts";
import { explicitGrant } from "../store/visibility.ts";
import { idOf } from "./ids.ts";

/**
 * Quorum operations. Every write is the conductor's (the registry checks the role); origination
 * also needs an explicit grant on the project. The quorum row is read locked (forUpdate where the
 * engine has row locks; SQLite's write holds the database lock), so resolve, cancel, marks and
 * lane_create on one quorum are serialized: a resolve never passes over a lane created meanwhile.
 */

const invalidParticipant = (why: string) => fail("invalid_participant", `invalid participant: ${why}`);

/** The participants argument: a JSON array of {kind, ref}, at most 64, no duplicates. */
export function parseParticipants(raw: string | undefined): Array<{ kind: "client" | "role"; ref: string }> {
  if (given(raw) === undefined) return [];
  let v: unknown;
  try {
    v = JSON.parse(raw as string);
  } catch {
    throw invalidParticipant("participants must be a JSON array of {kind, ref}");
  }
  if (!Array.isArray(v)) throw invalidParticipant("participants must be a JSON array of {kind, ref}");
  if (v.length > MAX_PARTICIPANTS) throw invalidParticipant(`at most ${MAX_PARTICIPANTS} participants`);
  const seen = new Set<string>();
  return v.map((p, i) => {
    const o = p as Record<string, unknown>;
    if (!o || typeof o !== "object" || Object.keys(o).some((k) => k !== "kind" && k !== "ref")) {
      throw invalidParticipant(`entry ${i} must be {kind, ref}`);
    }
    if (o.kind !== "client" && o.kind !== "role") throw invalidParticipant(`entry ${i}: kind must be client or role`);
    if (!participantRefOk(o.ref)) throw invalidParticipant(`entry ${i}: ref must be a name of 1..200 characters`);
    const key = `${o.kind}\u0000${o.ref}`;
    if (seen.has(key)) throw invalidParticipant(`entry ${i} repeats ${o.kind} ${o.ref}`);
    seen.add(key);
    return { kind: o.kind, ref: o.ref };
  });
}

/** The origination check every create shares: a named project, explicitly granted. */
export function originProject(ctx: ShampooCtx, raw: string | undefined): string {
  const project = projectValue(given(raw));
  if (project === null) throw fail("invalid_project", "invalid project: a named project is required");
  if (!explicitGrant(ctx.caller, project)) throw scopeDenied();
  return project;
}

export async function quorumCreate(ctx: ShampooCtx, a: QuorumCreateInput): Promise<Record<string, unknown>> {
  const project = originProject(ctx, a.project);
  const participants = parseParticipants(a.participants);
  const topic = given(a.primary_topic_id);
  const topicId = topic === undefined ? null : idOf(topic);
  if (topic !== undefined && topicId === null) throw fail("not_found", "unknown_topic: no such debate topic");
  return write(ctx, async (w) => {
    const at = iso(w.now);
    const id = randomUUID();
    await createRow(w, {
      table: "shampoo_quorums",
      kind: "quorum",
      view: quorumView,
      row: {
        id,
        profile: ctx.caller.profile,
        project,
        status: "open",
        primary_topic_id: topicId,
        decision_ref: null,
        result_ref: null,
        created_by: ctx.caller.principal,
        created_at: at,
        resolved_at: null,
        resolved_by: null,
      },
    });
    for (const p of participants) await addParticipant(w, id, p.kind, p.ref, "pending");
    return { quorum_id: id, status: "open", project };
  });
}

async function addParticipant(
  w: WriteScope,
  quorumId: string,
  kind: "client" | "role",
  ref: string,
  state: QuorumParticipantRow["state"],
): Promise<void> {
  const at = iso(w.now);
  await createRow(w, {
    table: "shampoo_quorum_participants",
    kind: "quorum_participant",
    id: `${quorumId}/${kind}/${ref}`,
    view: participantView,
    row: { profile: w.ctx.caller.profile, quorum_id: quorumId, kind, ref, state, created_at: at, updated_at: at },
  });
}

/** The open quorum the caller names, locked for the rest of the write; unknown or not open refuse. */
export async function openQuorum(w: WriteScope, raw: string | undefined): Promise<QuorumRow> {
  const id = idOf(raw);
  const q = id === null ? undefined : await visibleQuorum(w.trx, w.ctx.caller, id, w.engine);
  if (!q) throw unknownQuorum();
  if (q.status !== "open") throw quorumNotOpen(q.status);
  return q;
}

async function closeQuorum(
  w: WriteScope,
  q: QuorumRow,
  status: "resolved" | "cancelled",
  refs: { decision_ref: string | null; result_ref: string | null },
): Promise<void> {
  await changeRow(w, {
    table: "shampoo_quorums",
    kind: "quorum",
    action: status === "resolved" ? "resolve" : "cancel",
    view: quorumView,
    old: q,
    set: { status, resolved_at: iso(w.now), resolved_by: w.ctx.caller.principal, ...refs },
  });
}

export function quorumCancel(ctx: ShampooCtx, a: QuorumCancelInput): Promise<Record<string, unknown>> {
  return write(ctx, async (w) => {
    const q = await openQuorum(w, a.quorum_id);
    await closeQuorum(w, q, "cancelled", { decision_ref: null, result_ref: null });
    return { quorum_id: q.id, status: "cancelled" };
  });
}

export function quorumResolve(ctx: ShampooCtx, a: QuorumResolveInput): Promise<Record<string, unknown>> {
  return write(ctx, async (w) => {
    const q = await openQuorum(w, a.quorum_id);
    // The quorum row is held: no lane_create can add a lane until this write ends.
    const open = await openLaneCount(w.trx, q.profile, q.id);
    if (open > 0) {
      throw fail("quorum_has_open_lanes", `quorum has open lanes: ${open} not yet done, failed or cancelled`, {
        open_lanes: open,
      });
    }
    await closeQuorum(w, q, "resolved", {
      decision_ref: given(a.decision_ref) ?? null,
      result_ref: given(a.result_ref) ?? null,
    });
    return { quorum_id: q.id, status: "resolved" };
  });
}

export function quorumMarkParticipant(
  ctx: ShampooCtx,
  a: QuorumMarkParticipantInput,
): Promise<Record<string, unknown>> {
  if (!participantRefOk(a.ref)) throw invalidParticipant("ref must be a name of 1..200 characters");
  return write(ctx, async (w) => {
    const q = await openQuorum(w, a.quorum_id);
    const key = { quorumId: q.id, kind: a.kind, ref: a.ref };
    const old = await getParticipant(w.trx, q.profile, key);
    if (!old) {
      if ((await participantCount(w.trx, q.profile, q.id)) >= MAX_PARTICIPANTS) {
        throw invalidParticipant(`a quorum has at most ${MAX_PARTICIPANTS} participants`);
      }
      await addParticipant(w, q.id, a.kind, a.ref, a.state);
    } else if (old.state !== a.state) {
      if (!participantMoveAllowed(old.state, a.state)) {
        throw invalidParticipant(`marks move forward only: ${old.state} cannot become ${a.state}`);
      }
      const eventId = await w.event({
        entityKind: "quorum_participant",
        entityId: `${q.id}/${a.kind}/${a.ref}`,
        action: "mark",
        old: participantView(old),
        new: participantView({ ...old, state: a.state }),
        parentEventId: old.last_event_id,
      });
      // Compare-and-swap on the standing read: a concurrent mark makes this one fail, whole.
      const r = await w.trx
        .updateTable("shampoo_quorum_participants")
        .set({ state: a.state, updated_at: iso(w.now), last_event_id: eventId })
        .where("profile", "=", q.profile)
        .where("quorum_id", "=", q.id)
        .where("kind", "=", a.kind)
        .where("ref", "=", a.ref)
        .where("state", "=", old.state)
        .executeTakeFirst();
      if (Number(r.numUpdatedRows) !== 1) throw invalidParticipant("the participant moved meanwhile; read it again");
    }
    return { quorum_id: q.id, kind: a.kind, ref: a.ref, state: a.state };
  });
}

export function quorumList(ctx: ShampooCtx, a: QuorumListInput): Promise<Record<string, unknown>> {
  const limit = clampLimit(a.limit);
  const project = given(a.project);
  const status = given(a.status);
  return read(ctx, async (db) => {
    const rows = await listQuorums(db, ctx.caller, { project, status, limit });
    const parts = await participantsOf(
      db,
      ctx.caller.profile,
      rows.map((r) => r.id),
    );
    const quorums = rows.map((q) => ({
      ...quorumView(q),
      participants: parts
        .filter((p) => p.quorum_id === q.id)
        .map((p) => ({ kind: p.kind, ref: p.ref, state: p.state })),
    }));
    return { quorums, count: quorums.length };
  });
}

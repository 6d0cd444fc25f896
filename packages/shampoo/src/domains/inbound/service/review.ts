import type { ShampooCtx } from "../../../context.ts";
import { fail, given } from "../../../platform/errors.ts";
import { recordChange } from "../../../platform/rows.ts";
import { read, type WriteScope, write } from "../../../platform/write.ts";
import { createEntitiesIn, entityInput } from "../../graph/service/entities.ts";
import { createRelationsIn, tripleInput } from "../../graph/service/relations.ts";
import { afterGraphWrite } from "../../graph/store/merge.ts";
import { taskCreation } from "../../tasks/service/write.ts";
import type { InboundApproveInput, InboundListInput, InboundRejectInput } from "../inputs.gen.ts";
import {
  type InboundKind,
  type ItemRef,
  idText,
  ineligible,
  itemEventView,
  itemView,
  LETTERS,
  parseItemIds,
  stamp,
} from "../model.ts";
import type { InboundItemRow } from "../schema.ts";
import { decideItem, itemsByRef, listItems } from "../store.ts";
import { endpointFlags, entityDiffs, type StagedEntity, type StagedRelation } from "./diff.ts";

/**
 * inbound_list, inbound_approve, inbound_reject. A decision is one write: every named item is
 * checked first (exists, pending, still the content its pin names, not staged by the decider),
 * and any failure refuses the whole call naming each item and why; then tasks are created through
 * the tasks module's own creation path and knowledge through the graph's (entities before
 * relations), all in the same transaction: a failure there undoes everything.
 */

const content = <T>(r: InboundItemRow): T => JSON.parse(r.content_json) as T;

/** The named items, locked, each eligible; otherwise nothing happens and every culprit is named. */
async function eligibleItems(w: WriteScope, refs: ItemRef[], opts: { pinned: boolean }): Promise<InboundItemRow[]> {
  const rows = await itemsByRef(w.trx, w.engine, w.ctx.caller.profile, refs);
  const bad: Array<{ id: string; reason: string }> = [];
  const self: string[] = [];
  for (const ref of refs) {
    const row = rows.get(ref.id);
    if (!row) bad.push({ id: ref.id, reason: "not found" });
    else if (row.state !== "pending") bad.push({ id: ref.id, reason: `is ${row.state}, not pending` });
    else if (opts.pinned && ref.pin === undefined) {
      bad.push({ id: ref.id, reason: "is not pinned: name it as inbound_list shows it (its pin, id@digest)" });
    } else if (ref.pin !== undefined && ref.pin !== row.digest) {
      bad.push({
        id: ref.id,
        reason: `changed since it was listed (pinned ${ref.pin}, now ${row.digest}, revision ${row.revision}): list it again`,
      });
    } else if (row.staged_by === w.ctx.caller.principal) self.push(ref.id);
  }
  if (bad.length > 0) throw ineligible(bad);
  if (self.length > 0) {
    throw fail(
      "inbound_self_approval",
      `nothing was applied: ${self.join(", ")} staged by ${w.ctx.caller.principal}, who may not decide them`,
      { items: self },
    );
  }
  return refs.map((r) => rows.get(r.id) as InboundItemRow);
}

async function decide(
  w: WriteScope,
  row: InboundItemRow,
  state: "approved" | "rejected",
  reason: string | null,
  result: unknown,
): Promise<void> {
  const set = {
    state,
    decided_by: w.ctx.caller.principal,
    decided_at: stamp(w.now),
    decide_reason: reason,
    result_json: result === undefined ? null : JSON.stringify(result),
    updated_at: stamp(w.now),
  } satisfies Partial<InboundItemRow>;
  const eventId = await recordChange(w, {
    kind: "inbound_item",
    id: idText(row),
    action: state === "approved" ? "approve" : "reject",
    old: row,
    next: { ...row, ...set },
    view: itemEventView,
    payload: reason === null ? undefined : { reason },
  });
  if (!(await decideItem(w.trx, row, { ...set, last_event_id: eventId }))) {
    throw ineligible([{ id: idText(row), reason: "changed while this call ran: list it again" }]);
  }
}

export function inboundApprove(ctx: ShampooCtx, a: InboundApproveInput): Promise<Record<string, unknown>> {
  const refs = parseItemIds(a.item_ids, a.kind);
  const reason = given(a.reason) ?? null;
  return write(ctx, async (w) => {
    const rows = await eligibleItems(w, refs, { pinned: true });
    const approved: Array<Record<string, unknown>> = [];
    const skipped: Array<{ id: string; reason: string }> = [];
    const fails = (row: InboundItemRow, e: unknown): never => {
      const message = e instanceof Error ? e.message : String(e);
      throw fail("inbound_ineligible", `nothing was applied: ${idText(row)} cannot be created: ${message}`, {
        items: [{ id: idText(row), reason: message }],
      });
    };
    if (a.kind === "tasks") {
      for (const row of rows) {
        // The tasks module's own path: its checks and its write, under the approver's grants.
        let made: Record<string, unknown>;
        try {
          made = await taskCreation(ctx, content(row))(w);
        } catch (e) {
          return fails(row, e);
        }
        await decide(w, row, "approved", reason, { task_id: made.task_id });
        approved.push({ id: idText(row), task_id: made.task_id });
      }
      return { approved, skipped };
    }
    const entities = rows.filter((r) => r.item_kind === "e");
    const diffs = await entityDiffs(
      w.trx,
      ctx.caller,
      entities.map((r) => content<StagedEntity>(r)),
    );
    for (const [i, row] of entities.entries()) {
      const d = diffs[i];
      if (d?.diff === "type_conflict") {
        skipped.push({ id: idText(row), reason: `type_conflict: the live entity is a ${d.live_type}` });
        continue;
      }
      let ids: string[];
      try {
        ids = (await createEntitiesIn(w, [entityInput(content(row))])).entity_ids;
      } catch (e) {
        return fails(row, e);
      }
      await decide(w, row, "approved", reason, { entity_id: ids[0] });
      approved.push({ id: idText(row), entity_id: ids[0] });
    }
    // Relations after entities: an endpoint approved in this batch counts as present.
    const relations = rows.filter((r) => r.item_kind === "r");
    const flags = await endpointFlags(
      w.trx,
      ctx.caller,
      relations.map((r) => content<StagedRelation>(r)),
    );
    for (const [i, row] of relations.entries()) {
      const f = flags[i];
      if (!f?.from_present || !f.to_present) {
        skipped.push({ id: idText(row), reason: `missing endpoint: ${f?.from_present ? "to" : "from"}` });
        continue;
      }
      let made: string[];
      try {
        made = (await createRelationsIn(w, [tripleInput(content(row))])).relation_ids;
      } catch (e) {
        return fails(row, e);
      }
      await decide(w, row, "approved", reason, { relation_id: made[0] ?? null });
      approved.push({ id: idText(row) });
    }
    afterGraphWrite(w);
    return { approved, skipped };
  });
}

export function inboundReject(ctx: ShampooCtx, a: InboundRejectInput): Promise<Record<string, unknown>> {
  const refs = parseItemIds(a.item_ids, a.kind);
  const reason = given(a.reason) ?? null;
  return write(ctx, async (w) => {
    const rows = await eligibleItems(w, refs, { pinned: false });
    for (const row of rows) await decide(w, row, "rejected", reason, undefined);
    return { rejected: rows.map((r) => ({ id: idText(r) })) };
  });
}

const STATES = ["pending", "approved", "rejected"];

export function inboundList(ctx: ShampooCtx, a: InboundListInput): Promise<Record<string, unknown>> {
  const kind = a.kind ?? "";
  const state = a.state ?? "pending";
  const empty = { tasks: [], entities: [], relations: [], count: 0 };
  if (!(kind === "" || kind in LETTERS) || !STATES.includes(state)) return Promise.resolve(empty);
  const letters = kind === "" ? ["t", "e", "r"] : LETTERS[kind as InboundKind];
  const limit = Math.min(100, Math.max(1, Math.trunc(a.limit ?? 20)));
  return read(ctx, async (db) => {
    const rows = await listItems(db, ctx.caller, {
      letters,
      state,
      project: given(a.project),
      quorumId: given(a.quorum_id)?.toLowerCase(),
      limit,
    });
    const of = (l: string) => rows.filter((r) => r.item_kind === l);
    const ents = of("e");
    const rels = of("r");
    const diffs = await entityDiffs(
      db,
      ctx.caller,
      ents.map((r) => content<StagedEntity>(r)),
    );
    const flags = await endpointFlags(
      db,
      ctx.caller,
      rels.map((r) => content<StagedRelation>(r)),
    );
    return {
      tasks: of("t").map(itemView),
      entities: ents.map((r, i) => ({ ...itemView(r), ...diffs[i] })),
      relations: rels.map((r, i) => ({ ...itemView(r), ...flags[i] })),
      count: rows.length,
    };
  });
}

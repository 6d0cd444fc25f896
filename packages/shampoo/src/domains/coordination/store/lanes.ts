import { type Kysely, sql, type Transaction } from "kernel";
import type { Caller } from "../../../access/caller.ts";
import type { Engine } from "../../../platform/engine.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import type { LaneRow } from "../schema.ts";
import { quorumVisible } from "./visibility.ts";

type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;

/** The lane `id` if the caller may see its quorum; with `engine`, locked for the rest of the write. */
export async function visibleLane(db: Db, caller: Caller, id: string, engine?: Engine): Promise<LaneRow | undefined> {
  const q = db
    .selectFrom("shampoo_lanes as l")
    .innerJoin("shampoo_quorums as q", (j) => j.onRef("q.id", "=", "l.quorum_id").onRef("q.profile", "=", "l.profile"))
    .selectAll("l")
    .where("l.profile", "=", caller.profile)
    .where("l.id", "=", id)
    .where(quorumVisible(caller, "q"));
  return (engine ? engine.forUpdate(q) : q).executeTakeFirst() as Promise<LaneRow | undefined>;
}

export async function laneInQuorum(db: Db, profile: string, laneId: string, quorumId: string): Promise<boolean> {
  const r = await db
    .selectFrom("shampoo_lanes")
    .select("id")
    .where("profile", "=", profile)
    .where("id", "=", laneId)
    .where("quorum_id", "=", quorumId)
    .executeTakeFirst();
  return r !== undefined;
}

export async function listLanes(
  db: Db,
  caller: Caller,
  f: { quorumId?: string; project?: string; state?: string; limit: number },
): Promise<LaneRow[]> {
  let q = db
    .selectFrom("shampoo_lanes as l")
    .innerJoin("shampoo_quorums as q", (j) => j.onRef("q.id", "=", "l.quorum_id").onRef("q.profile", "=", "l.profile"))
    .selectAll("l")
    .where("l.profile", "=", caller.profile)
    .where(quorumVisible(caller, "q"));
  if (f.quorumId !== undefined) q = q.where("l.quorum_id", "=", f.quorumId);
  if (f.project !== undefined) q = q.where("l.project", "=", f.project);
  if (f.state !== undefined) q = q.where("l.state", "=", f.state as LaneRow["state"]);
  return (await q.orderBy("l.created_at", "desc").orderBy("l.id").limit(f.limit).execute()) as LaneRow[];
}

/**
 * One axis's compare-and-swap: sets `set` only if the axis column still holds `from` at the
 * version read (`versionColumn`), raising that version in the same statement. False: the lane
 * moved underneath (a lost race); nothing changed.
 */
export async function casLane(
  trx: Transaction<ShampooDB>,
  lane: LaneRow,
  axis: {
    stateColumn: "state" | "review_state" | "merge_state";
    versionColumn: "state_version" | "review_version" | "merge_version";
  },
  set: Partial<LaneRow>,
): Promise<boolean> {
  const r = await trx
    .updateTable("shampoo_lanes")
    .set({ ...set, [axis.versionColumn]: sql`${sql.ref(axis.versionColumn)} + 1` })
    .where("profile", "=", lane.profile)
    .where("id", "=", lane.id)
    .where(axis.stateColumn, "=", lane[axis.stateColumn])
    .where(axis.versionColumn, "=", lane[axis.versionColumn])
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

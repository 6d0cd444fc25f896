import type { Kysely, Transaction } from "kernel";
import type { Caller } from "../../../access/caller.ts";
import type { Engine } from "../../../platform/engine.ts";
import type { ShampooDB } from "../../../store/schema.ts";
import type { QuorumParticipantRow, QuorumRow } from "../schema.ts";
import { quorumVisible } from "./visibility.ts";

type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;

/** The quorum `id` if the caller may see it; with `engine`, locked for the rest of the write. */
export async function visibleQuorum(
  db: Db,
  caller: Caller,
  id: string,
  engine?: Engine,
): Promise<QuorumRow | undefined> {
  const q = db
    .selectFrom("shampoo_quorums as q")
    .selectAll("q")
    .where("q.profile", "=", caller.profile)
    .where("q.id", "=", id)
    .where(quorumVisible(caller, "q"));
  return (engine ? engine.forUpdate(q) : q).executeTakeFirst() as Promise<QuorumRow | undefined>;
}

export async function listQuorums(
  db: Db,
  caller: Caller,
  f: { project?: string; status?: string; limit: number },
): Promise<QuorumRow[]> {
  let q = db
    .selectFrom("shampoo_quorums as q")
    .selectAll("q")
    .where("q.profile", "=", caller.profile)
    .where(quorumVisible(caller, "q"));
  if (f.project !== undefined) q = q.where("q.project", "=", f.project);
  if (f.status !== undefined) q = q.where("q.status", "=", f.status as QuorumRow["status"]);
  return (await q.orderBy("q.created_at", "desc").orderBy("q.id").limit(f.limit).execute()) as QuorumRow[];
}

export async function participantsOf(db: Db, profile: string, quorumIds: string[]): Promise<QuorumParticipantRow[]> {
  if (quorumIds.length === 0) return [];
  return (await db
    .selectFrom("shampoo_quorum_participants")
    .selectAll()
    .where("profile", "=", profile)
    .where("quorum_id", "in", quorumIds)
    .orderBy("created_at")
    .orderBy("kind")
    .orderBy("ref")
    .execute()) as QuorumParticipantRow[];
}

export async function getParticipant(
  db: Db,
  profile: string,
  key: { quorumId: string; kind: string; ref: string },
): Promise<QuorumParticipantRow | undefined> {
  return (await db
    .selectFrom("shampoo_quorum_participants")
    .selectAll()
    .where("profile", "=", profile)
    .where("quorum_id", "=", key.quorumId)
    .where("kind", "=", key.kind as QuorumParticipantRow["kind"])
    .where("ref", "=", key.ref)
    .executeTakeFirst()) as QuorumParticipantRow | undefined;
}

export async function participantCount(db: Db, profile: string, quorumId: string): Promise<number> {
  const r = await db
    .selectFrom("shampoo_quorum_participants")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("profile", "=", profile)
    .where("quorum_id", "=", quorumId)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Lanes of the quorum not yet terminal (done, failed, cancelled). */
export async function openLaneCount(db: Db, profile: string, quorumId: string): Promise<number> {
  const r = await db
    .selectFrom("shampoo_lanes")
    .select((eb) => eb.fn.countAll().as("n"))
    .where("profile", "=", profile)
    .where("quorum_id", "=", quorumId)
    .where("state", "in", ["open", "in_progress"])
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

import { type Kysely, type RawBuilder, sql, type Transaction } from "kernel";
import { type Caller, projectCondition, scopeOf } from "../../access/caller.ts";
import type { Engine } from "../../platform/engine.ts";
import type { ShampooDB } from "../../store/schema.ts";
import type { InboundItemRow } from "./schema.ts";

type Db = Kysely<ShampooDB> | Transaction<ShampooDB>;

/**
 * Who sees a staged item: conductor and star see all; anyone else sees items whose target
 * project is granted or whose quorum they participate in. Untargeted items stay override-only.
 */
function visible(caller: Caller): RawBuilder<boolean> {
  if (caller.role === "conductor" || caller.star) return sql<boolean>`1 = 1`;
  return sql<boolean>`((project IS NOT NULL AND ${projectCondition(scopeOf(caller))})
    OR (quorum_id IS NOT NULL AND EXISTS (SELECT 1 FROM shampoo_quorum_participants qp
      WHERE qp.profile = shampoo_inbound_items.profile AND qp.quorum_id = shampoo_inbound_items.quorum_id
        AND qp.kind = 'client' AND qp.ref = ${caller.principal})))`;
}

export async function listItems(
  db: Db,
  caller: Caller,
  f: { letters: readonly string[]; state: string; project?: string; quorumId?: string; limit: number },
): Promise<InboundItemRow[]> {
  let q = db
    .selectFrom("shampoo_inbound_items")
    .selectAll()
    .where("profile", "=", caller.profile)
    .where("state", "=", f.state as InboundItemRow["state"])
    .where("item_kind", "in", f.letters as InboundItemRow["item_kind"][])
    .where(visible(caller));
  if (f.project !== undefined) q = q.where("project", "=", f.project);
  if (f.quorumId !== undefined) q = q.where("quorum_id", "=", f.quorumId);
  return (await q.orderBy("item_kind", "desc").orderBy("n").limit(f.limit).execute()) as InboundItemRow[];
}

/** The named items of the profile (any standing), locked for the rest of the write. */
export async function itemsByRef(
  trx: Transaction<ShampooDB>,
  engine: Engine,
  profile: string,
  refs: Array<{ letter: string; n: number }>,
): Promise<Map<string, InboundItemRow>> {
  const out = new Map<string, InboundItemRow>();
  for (const letter of ["t", "e", "r"] as const) {
    const ns = refs.filter((r) => r.letter === letter).map((r) => r.n);
    for (let i = 0; i < ns.length; i += 500) {
      const q = trx
        .selectFrom("shampoo_inbound_items")
        .selectAll()
        .where("profile", "=", profile)
        .where("item_kind", "=", letter)
        .where("n", "in", ns.slice(i, i + 500))
        .orderBy("n");
      for (const r of (await engine.forUpdate(q).execute()) as InboundItemRow[]) out.set(`${r.item_kind}:${r.n}`, r);
    }
  }
  return out;
}

export async function itemByKey(
  trx: Transaction<ShampooDB>,
  profile: string,
  letter: string,
  key: string,
): Promise<InboundItemRow | undefined> {
  return (await trx
    .selectFrom("shampoo_inbound_items")
    .selectAll()
    .where("profile", "=", profile)
    .where("item_kind", "=", letter as InboundItemRow["item_kind"])
    .where("stage_key", "=", key)
    .executeTakeFirst()) as InboundItemRow | undefined;
}

/** The next number of a kind, under a per-profile lock (advisory on PostgreSQL; SQLite's write lock). */
export async function nextNumber(
  trx: Transaction<ShampooDB>,
  engine: Engine,
  profile: string,
  letter: string,
): Promise<number> {
  await engine.lockKey(trx, `inbound:${profile}:${letter}`);
  const r = await trx
    .selectFrom("shampoo_inbound_items")
    .select((eb) => eb.fn.max("n").as("m"))
    .where("profile", "=", profile)
    .where("item_kind", "=", letter as InboundItemRow["item_kind"])
    .executeTakeFirst();
  return Number(r?.m ?? 0) + 1;
}

/**
 * Sets `set` on a pending item only if it still holds the digest that was checked: a re-stage
 * between the check and this statement makes it match nothing (false), and the call fails whole.
 */
export async function decideItem(
  trx: Transaction<ShampooDB>,
  row: InboundItemRow,
  set: Partial<InboundItemRow>,
): Promise<boolean> {
  const r = await trx
    .updateTable("shampoo_inbound_items")
    .set(set)
    .where("profile", "=", row.profile)
    .where("item_kind", "=", row.item_kind)
    .where("n", "=", row.n)
    .where("state", "=", "pending")
    .where("digest", "=", row.digest)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

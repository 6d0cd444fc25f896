import { type Database, DomainError, type Engine, type Kysely } from "kernel";
import type { ChamberDB } from "../attempts/schema.ts";
import { insertHeadIfNewest } from "../attempts/store.ts";
import { canonicalJson } from "./jcs.ts";
import { consistencyProof, inclusionProof, type NodeSource, nodeHash, subtreeHash } from "./merkle.ts";
import { type Signer, SignerUnavailableError, type TreeHead } from "./signer.ts";
import { LEAF_TYPE, type LogLeaf, logLeafHash } from "./verify-log.ts";

export { LEAF_TYPE, type LogLeaf, logLeafHash };

/**
 * The card transparency log (docs/evidence-0.2.md §15): every signed card's hash is appended, in
 * the transaction that stores its signature, to an append-only RFC 6962 Merkle tree. The log keeps
 * every complete subtree's hash (chamber_log_nodes, level 0 = leaf hashes), so an append writes
 * about two rows and any proof reads O(log² n) of them, whatever the log's size. Tree heads are
 * signed lazily (when a proof or the head is asked for and the tree has grown), so sealing pays
 * for the leaf only.
 */

/** What a card's proof bundle carries (§15.4). */
export interface LogProof {
  index: number;
  leaf: LogLeaf;
  tree_head: TreeHead;
  inclusion: string[];
}

type Trx = Kysely<ChamberDB>;

const tagged = (b: Buffer) => `sha256:${b.toString("hex")}`;
/** Node hashes kept per log (32 bytes each); cleared when full. */
const NODE_CACHE_MAX = 65_536;

/**
 * Appends `leaf` inside the caller's transaction and returns its index. The state row is locked
 * (FOR UPDATE on PostgreSQL; SQLite serialises writers), so concurrent seals get distinct indexes.
 */
export async function appendLeaf(trx: Trx, engine: Engine, leaf: LogLeaf): Promise<number> {
  const state = await engine
    .forUpdate(trx.selectFrom("chamber_log_state").select("size").where("id", "=", 1))
    .executeTakeFirstOrThrow();
  const index = Number(state.size);
  let hash = logLeafHash(leaf);
  await trx
    .insertInto("chamber_log_leaves")
    .values({ idx: index, card_id: leaf.card_id, leaf_json: canonicalJson(leaf), logged_at: leaf.logged_at })
    .execute();
  const nodes = [{ level: 0, idx: index, hash: hash.toString("hex") }];
  // Every complete subtree this leaf closes: while the index is a right child, hash with its left sibling.
  for (let level = 0, i = index; i % 2 === 1; level++, i = (i - 1) / 2) {
    const left = await trx
      .selectFrom("chamber_log_nodes")
      .select("hash")
      .where("level", "=", level)
      .where("idx", "=", i - 1)
      .executeTakeFirstOrThrow();
    hash = nodeHash(Buffer.from(left.hash, "hex"), hash);
    nodes.push({ level: level + 1, idx: (i - 1) / 2, hash: hash.toString("hex") });
  }
  await trx.insertInto("chamber_log_nodes").values(nodes).execute();
  await trx
    .updateTable("chamber_log_state")
    .set({ size: index + 1 })
    .where("id", "=", 1)
    .execute();
  return index;
}

export class CardLog {
  constructor(
    private readonly database: Database<ChamberDB>,
    /** Signs new tree heads; without one, only heads already signed are served. */
    private readonly signer: Signer | null,
  ) {}

  /**
   * Complete-subtree hashes read so far. A stored node never changes (the log is append-only and a
   * node is written once its subtree is complete), so the cache holds across calls and instances:
   * the head signed after each seal then reads only the nodes that seal created.
   */
  private readonly nodes = new Map<string, Buffer>();

  private source(db: Trx): NodeSource {
    const cache = this.nodes;
    return async (level, index) => {
      const k = `${level}/${index}`;
      let h = cache.get(k);
      if (!h) {
        const row = await db
          .selectFrom("chamber_log_nodes")
          .select("hash")
          .where("level", "=", level)
          .where("idx", "=", index)
          .executeTakeFirst();
        if (!row) throw new Error(`log node ${k} is missing`);
        h = Buffer.from(row.hash, "hex");
        if (cache.size >= NODE_CACHE_MAX) cache.clear();
        cache.set(k, h);
      }
      return h;
    };
  }

  async size(): Promise<number> {
    const s = await this.database.db
      .selectFrom("chamber_log_state")
      .select("size")
      .where("id", "=", 1)
      .executeTakeFirst();
    return Number(s?.size ?? 0);
  }

  async root(size: number): Promise<string> {
    return tagged(await subtreeHash(this.source(this.database.db), 0, size));
  }

  /** The newest signed head; a new one is signed first when the tree has grown (and a signer is here). */
  async head(): Promise<TreeHead | null> {
    const size = await this.size();
    const latest = await this.latestHead();
    if (size === 0 || (latest && latest.tree_size >= size) || !this.signer) return latest;
    let head: TreeHead;
    try {
      head = await this.signer.signTreeHead(size, await this.root(size));
    } catch (e) {
      if (e instanceof SignerUnavailableError) return latest;
      throw e;
    }
    // Another instance may have stored a larger head meanwhile: then that one is the newest.
    if (await insertHeadIfNewest(this.database.db, head.tree_size, canonicalJson(head))) return head;
    return (await this.latestHead()) ?? head;
  }

  private async latestHead(): Promise<TreeHead | null> {
    const row = await this.database.db
      .selectFrom("chamber_log_heads")
      .select("head_json")
      .orderBy("tree_size", "desc")
      .limit(1)
      .executeTakeFirst();
    return row ? (JSON.parse(row.head_json) as TreeHead) : null;
  }

  /** A signed head of exactly `size` leaves, if one was ever signed. */
  async headOfSize(size: number): Promise<TreeHead | null> {
    const row = await this.database.db
      .selectFrom("chamber_log_heads")
      .select("head_json")
      .where("tree_size", "=", size)
      .executeTakeFirst();
    return row ? (JSON.parse(row.head_json) as TreeHead) : null;
  }

  /** The card's leaf and its inclusion proof in the tree of `treeSize` leaves (default: the newest head). */
  async inclusion(cardId: string, treeSize?: number): Promise<LogProof | null> {
    const row = await this.database.db
      .selectFrom("chamber_log_leaves")
      .select(["idx", "leaf_json"])
      .where("card_id", "=", cardId)
      .executeTakeFirst();
    if (!row) return null;
    const index = Number(row.idx);
    if (treeSize !== undefined) {
      // A stated size that can never cover the card is the client's mistake, not a wait.
      const size = await this.size();
      if (treeSize <= index || treeSize > size) {
        throw new DomainError(
          "bad_tree_size",
          `tree_size must be from ${index + 1} (the card is leaf ${index}) to ${size} (the log's size)`,
        );
      }
    }
    const head = treeSize === undefined ? await this.head() : await this.headOfSize(treeSize);
    if (treeSize !== undefined && !head) {
      throw new DomainError(
        "tree_head_not_signed",
        `no tree head of size ${treeSize} was ever signed (heads are signed at the log's size when asked for): use a size from a head you hold, or omit tree_size`,
      );
    }
    if (!head || head.tree_size <= index) {
      throw new DomainError("log_head_unavailable", "no signed tree head covers this card yet; retry shortly");
    }
    const proof = await inclusionProof(this.source(this.database.db), index, head.tree_size);
    return { index, leaf: JSON.parse(row.leaf_json) as LogLeaf, tree_head: head, inclusion: proof.map(tagged) };
  }

  /**
   * The card's inclusion under the first signed head that covers it (signing one if none does yet):
   * what its proof bundle carries, fixed from then on. A head is stored only if it is larger than
   * every stored head (insertHeadIfNewest), so once one covers the card no smaller one appears.
   */
  async inclusionAtIssue(cardId: string): Promise<LogProof | null> {
    const row = await this.database.db
      .selectFrom("chamber_log_leaves")
      .select("idx")
      .where("card_id", "=", cardId)
      .executeTakeFirst();
    if (!row) return null;
    const first = () =>
      this.database.db
        .selectFrom("chamber_log_heads")
        .select("tree_size")
        .where("tree_size", ">", Number(row.idx))
        .orderBy("tree_size", "asc")
        .limit(1)
        .executeTakeFirst();
    let covering = await first();
    if (!covering) {
      await this.head();
      covering = await first();
    }
    if (!covering)
      throw new DomainError("log_head_unavailable", "no signed tree head covers this card yet; retry shortly");
    return this.inclusion(cardId, Number(covering.tree_size));
  }

  /** RFC 6962 consistency proof between two tree sizes (both ≤ the current size). */
  async consistency(first: number, second: number): Promise<string[]> {
    const size = await this.size();
    if (!(first >= 1 && first <= second && second <= size)) {
      throw new DomainError("bad_tree_size", `need 1 ≤ first ≤ second ≤ ${size} (the log's size)`);
    }
    return (await consistencyProof(this.source(this.database.db), first, second)).map(tagged);
  }
}

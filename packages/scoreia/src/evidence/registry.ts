import { type Database, DomainError } from "kernel";
import type { CardRow, ChamberDB } from "../attempts/schema.ts";
import { eventRange, selectEvents } from "../attempts/store.ts";
import { write } from "../attempts/write.ts";
import { TOOLSETS, toolsetHash } from "../contract/index.ts";
import { SUITES } from "../suites/index.ts";
import { addToCodex, type Codex, comparisonKey, counts, readCodex, recomputeCodex } from "./codex.ts";
import { canonicalJson, sha256Tagged } from "./jcs.ts";
import { legacyManifest } from "./legacy-manifests.ts";
import { CardLog } from "./log.ts";
import {
  buildReplay,
  openingsOf,
  type PublicReplay,
  REVEAL_VERSION,
  type SaltedOpening,
  storedEvent,
  valueSalt,
} from "./replay.ts";
import type { CardSignature, PublicKeyRecord, Signer } from "./signer.ts";
import { PROOF_VERSION, type ProofBundle, type VerificationResult, verifyHistorical, verifyProof } from "./verify.ts";

/**
 * The read side of Evidence: cards, proofs, replays, keys, verification, evidence levels and the
 * Codex. Needs public data only (no signer), so the public web process can run it alone.
 */

export interface StoredCard {
  card_id: string;
  card_version: string;
  evidence_status: string;
  card: Record<string, unknown>;
  signature: CardSignature | null;
  created_at: string;
}

export interface CardFilters {
  suite?: string;
  verdict?: string;
  model?: string;
  product?: string;
  host?: string;
  assurance?: string;
  channel?: string;
  participation_class?: string;
  evidence_status?: string;
  card_version?: string;
}

export const FILTER_NAMES: Array<keyof CardFilters> = [
  "suite",
  "verdict",
  "model",
  "product",
  "host",
  "assurance",
  "channel",
  "participation_class",
  "evidence_status",
  "card_version",
];

function toStored(r: CardRow): StoredCard {
  return {
    card_id: r.card_id,
    card_version: r.card_version,
    evidence_status: r.evidence_status,
    card: JSON.parse(r.body_json),
    signature: r.signature_json ? JSON.parse(r.signature_json) : null,
    created_at: r.created_at,
  };
}

export class CardRegistry {
  /** The card transparency log (§15); signs new tree heads through `signer` when one is given. */
  readonly log: CardLog;

  constructor(
    private readonly database: Database<ChamberDB>,
    signer: Signer | null = null,
    /** Copies the signer's key records in first, so the keys document lists a new key at once. */
    private readonly refreshKeys: (() => Promise<void>) | null = null,
  ) {
    this.log = new CardLog(database, signer);
  }

  /** Toolset id → hash, for every contract this build knows (policy step of verification). */
  static knownToolsets(): Record<string, string> {
    return Object.fromEntries(Object.values(TOOLSETS).map((t) => [t.toolset_id, toolsetHash(t)]));
  }

  async get(cardId: string): Promise<StoredCard | null> {
    const r = await this.database.db
      .selectFrom("chamber_cards")
      .selectAll()
      .where("card_id", "=", cardId)
      .executeTakeFirst();
    return r ? toStored(r) : null;
  }

  async keys(): Promise<PublicKeyRecord[]> {
    // An unreachable signer leaves the records already published.
    await this.refreshKeys?.().catch(() => undefined);
    const rows = await this.database.db.selectFrom("chamber_keys").selectAll().orderBy("not_before").execute();
    return rows.map((r) => ({
      key_id: r.key_id,
      alg: "Ed25519",
      public_key: r.public_key,
      not_before: r.not_before,
      not_after: r.not_after,
    }));
  }

  /** The redacted public replay of a native card. */
  async replay(cardId: string): Promise<PublicReplay | null> {
    const card = await this.database.db
      .selectFrom("chamber_cards")
      .innerJoin("chamber_attempts", "chamber_attempts.handle", "chamber_cards.handle")
      .select([
        "chamber_attempts.attempt_no",
        "chamber_attempts.replay_salt",
        "chamber_attempts.suite_id",
        "chamber_attempts.suite_generation",
        "chamber_cards.card_version",
      ])
      .where("chamber_cards.card_id", "=", cardId)
      .executeTakeFirst();
    if (card?.card_version !== "0.2") return null;
    const events = await selectEvents.rows(this.database.db, eventRange(card));
    // Only events up to and including the seal belong to the card's chain.
    const sealAt = events.findIndex((e) => e.kind === "seal");
    const chained = sealAt >= 0 ? events.slice(0, sealAt + 1) : events;
    // Generations with a room secret commit values and observations (§14.2); legacy ones do not.
    const commits = SUITES[card.suite_id]?.generation !== card.suite_generation;
    return buildReplay(cardId, Buffer.from(card.replay_salt, "hex"), chained.map(storedEvent), commits);
  }

  /** The native proof bundle: card, its signature and key, the suite manifest, the replay. */
  async proof(cardId: string): Promise<ProofBundle | null> {
    const stored = await this.get(cardId);
    if (stored?.card_version !== "0.2" || !stored.signature) return null;
    const key = (await this.keys()).find((k) => k.key_id === stored.signature?.key_id);
    const suiteRef = stored.card.suite as { id: string; generation: string; manifest_hash: string };
    const manifest = await this.manifest(suiteRef.id, suiteRef.generation, suiteRef.manifest_hash);
    const replay = await this.replay(cardId);
    if (!key || !manifest || !replay) {
      throw new DomainError("proof_incomplete", `proof parts for ${cardId} are missing on this server`);
    }
    // Frozen at issue: the first signed head that covers the card, and the key record as it was
    // when the card was signed (open-ended): a rotation or a newer head never changes these bytes.
    // Newer heads are served apart (/log/tree-head.json, /log/consistency.json).
    const log = await this.log.inclusionAtIssue(cardId);
    return {
      proof_version: PROOF_VERSION,
      card: stored.card,
      card_hash: sha256Tagged(canonicalJson(stored.card)),
      signature: stored.signature,
      key: { ...key, not_after: null },
      manifest,
      replay,
      ...(log ? { log } : {}),
    };
  }

  /** A suite generation's public manifest: the shipped one, or one with a room secret (§14.1). */
  async manifest(suiteId: string, generation: string, hash?: string): Promise<Record<string, unknown> | null> {
    const suite = SUITES[suiteId];
    if (suite && suite.generation === generation) {
      // A card sealed before the shipped manifests were reworded (§4) binds the earlier text.
      const earlier = hash === undefined ? null : legacyManifest(suiteId, generation, hash);
      return earlier ?? (suite.manifest as unknown as Record<string, unknown>);
    }
    const row = await this.generationRow(suiteId, generation);
    return row ? (JSON.parse(row.manifest_json) as Record<string, unknown>) : null;
  }

  private generationRow(suiteId: string, generation: string) {
    return this.database.db
      .selectFrom("chamber_generations")
      .selectAll()
      .where("suite_id", "=", suiteId)
      .where("generation", "=", generation)
      .executeTakeFirst();
  }

  /**
   * What a retired generation publishes (§14.3): its secret and, for each of its sealed cards, the
   * openings (value and value salt) of the commitments re-grading reads (every action's value,
   * observation and private facts; handles, ally seeds and operator notes stay committed).
   * Null until revealed.
   */
  async revealed(suiteId: string, generation: string): Promise<Record<string, unknown> | null> {
    const row = await this.generationRow(suiteId, generation);
    if (!row?.secret) return null;
    const salts = await this.database.db
      .selectFrom("chamber_attempts")
      .innerJoin("chamber_cards", "chamber_cards.handle", "chamber_attempts.handle")
      .select(["chamber_cards.card_id", "chamber_attempts.replay_salt", "chamber_attempts.attempt_no"])
      .where("chamber_attempts.suite_id", "=", suiteId)
      .where("chamber_attempts.suite_generation", "=", generation)
      .orderBy("chamber_cards.card_id")
      .execute();
    // Each opening carries its own value salt (§7.2); the attempt's replay salt is never published:
    // it would open every commitment of the attempt, the guessable ones (ally seeds) included.
    const openings: Record<string, SaltedOpening[]> = {};
    for (const r of salts) {
      const events = await selectEvents.rows(this.database.db, eventRange(r));
      const sealAt = events.findIndex((e) => e.kind === "seal");
      const salt = Buffer.from(r.replay_salt, "hex");
      openings[r.card_id] = openingsOf((sealAt >= 0 ? events.slice(0, sealAt + 1) : events).map(storedEvent)).map(
        (o) => ({
          seq: o.seq,
          location: o.location,
          salt: valueSalt(salt, o.seq, o.location).toString("hex"),
          value: o.value,
        }),
      );
    }
    return {
      reveal_version: REVEAL_VERSION,
      suite_id: suiteId,
      generation,
      manifest_hash: row.manifest_hash,
      secret: row.secret,
      revealed_at: row.revealed_at,
      generator: (JSON.parse(row.manifest_json) as { generator?: unknown }).generator ?? null,
      openings,
    };
  }

  /** Server-side verification of one card, by the same steps an offline verifier runs. */
  async verify(cardId: string): Promise<VerificationResult | null> {
    const stored = await this.get(cardId);
    if (!stored) return null;
    if (stored.card_version !== "0.2") return verifyHistorical(stored.card);
    if (!stored.signature) {
      return {
        verdict: "pending_signature",
        card_id: cardId,
        message: `pending signature: ${cardId} is written and waits for its signature`,
        steps: [],
      };
    }
    const proof = await this.proof(cardId);
    // Step 10 against this server's current head: the proof's frozen head must be its prefix.
    const head = await this.log.head();
    const latestHead =
      head && proof?.log
        ? { tree_head: head, consistency: await this.log.consistency(proof.log.tree_head.tree_size, head.tree_size) }
        : undefined;
    return verifyProof(proof, await this.keys(), CardRegistry.knownToolsets(), latestHead ? { latestHead } : {});
  }

  /** Newest first, keyset pagination on (created_at, card_id). */
  async list(
    filters: CardFilters,
    page: { limit: number; cursor?: string },
  ): Promise<{ cards: StoredCard[]; next_cursor: string | null }> {
    let q = this.database.db.selectFrom("chamber_cards").selectAll();
    if (filters.evidence_status) q = q.where("evidence_status", "=", filters.evidence_status);
    if (filters.card_version) q = q.where("card_version", "=", filters.card_version);
    if (page.cursor) {
      const [at, id] = Buffer.from(page.cursor, "base64url").toString("utf8").split("|");
      if (!at || !id) throw new DomainError("bad_cursor", "cursor is not one this server issued");
      q = q.where((eb) =>
        eb.or([eb("created_at", "<", at), eb.and([eb("created_at", "=", at), eb("card_id", "<", id)])]),
      );
    }
    // Filters on card fields run on the parsed body: the JSON shape is the same on both engines.
    const wanted = (c: StoredCard): boolean => {
      const k = comparisonKey(c.card);
      const checks: Array<[string | undefined, string]> = [
        [filters.suite, k.suite_id],
        [filters.verdict, String(c.card.verdict ?? "")],
        [filters.model, k.declared_model],
        [filters.product, k.product],
        [filters.host, k.declared_host],
        [filters.assurance, k.assurance],
        [filters.channel, k.channel],
        [filters.participation_class, String(c.card.participation_class ?? "")],
      ];
      return checks.every(([want, have]) => want === undefined || want === have);
    };
    const out: StoredCard[] = [];
    let last: StoredCard | null = null;
    const batch = Math.max(page.limit * 4, 200);
    const ordered = q.orderBy("created_at", "desc").orderBy("card_id", "desc");
    let offset = 0;
    for (;;) {
      const rows = await ordered.limit(batch).offset(offset).execute();
      for (const r of rows) {
        const c = toStored(r);
        last = c;
        if (wanted(c)) {
          out.push(c);
          if (out.length === page.limit) break;
        }
      }
      if (out.length === page.limit || rows.length < batch) break;
      offset += batch;
    }
    const more = out.length === page.limit && last !== null;
    const tail = out[out.length - 1];
    return {
      cards: out,
      next_cursor: more && tail ? Buffer.from(`${tail.created_at}|${tail.card_id}`).toString("base64url") : null,
    };
  }

  /**
   * The Codex as maintained at signing (evidence/codex.ts): one read of its counters, whatever the
   * number of cards. Rows in name order of the four layers; no rank.
   */
  async codex(): Promise<Codex> {
    // Every signing adds to `cards` in two counter rows, so (rows, Σ cards) changes with any
    // update: one aggregate over the counters decides whether the document built last is current.
    const sig = await this.database.db
      .selectFrom("chamber_codex")
      .select((eb) => [eb.fn.countAll().as("n"), eb.fn.sum("cards").as("c")])
      .executeTakeFirst();
    const version = `${String(sig?.n ?? 0)}|${String(sig?.c ?? 0)}`;
    if (this.codexCache?.version !== version) this.codexCache = { version, codex: await readCodex(this.database.db) };
    return this.codexCache.codex;
  }

  private codexCache: { version: string; codex: Codex } | null = null;

  /**
   * The Codex recomputed from every stored card by full verification (every step of verifyProof:
   * signature, key window, replay chain, manifest, policy). The reference the maintained Codex is
   * tested against, and what `rebuildCodex` writes.
   */
  async recomputedCodex(): Promise<Codex> {
    return recomputeCodex(await this.verifiedCards());
  }

  /** Replaces the maintained counters by a full recomputation (an operator's repair). */
  async rebuildCodex(): Promise<{ counted: number }> {
    const cards = await this.verifiedCards();
    await write(this.database, async ({ trx }) => {
      await trx.deleteFrom("chamber_codex").execute();
      await trx.deleteFrom("chamber_codex_seeds").execute();
      for (const c of cards) await addToCodex(trx, c);
    });
    this.codexCache = null;
    return { counted: cards.filter(counts).length };
  }

  private async verifiedCards(): Promise<Array<Record<string, unknown>>> {
    const rows = await this.database.db
      .selectFrom("chamber_cards")
      .select(["card_id"])
      .where("card_version", "=", "0.2")
      .where("evidence_status", "=", "signed")
      .execute();
    const out: Array<Record<string, unknown>> = [];
    for (const r of rows) {
      const result = await this.verify(r.card_id).catch(() => null);
      const stored = result?.verdict === "valid" ? await this.get(r.card_id) : null;
      if (stored) out.push(stored.card);
    }
    return out;
  }

  /**
   * Imports historical 0.1 cards (and Labyrinth oly-16 cards). They are stored as given and are
   * never signed: verification reports them as unsigned historical.
   */
  async importHistorical(cards: unknown[], importedAt: string): Promise<{ imported: number; skipped: number }> {
    let imported = 0;
    let skipped = 0;
    await write(this.database, async ({ trx }) => {
      for (const c of cards) {
        const check = verifyHistorical(c);
        if (check.verdict !== "unsigned_historical") {
          throw new DomainError("historical_card_invalid", `${check.card_id ?? "a card"}: ${check.message}`);
        }
        const card = c as Record<string, unknown>;
        const exists = await trx
          .selectFrom("chamber_cards")
          .select("card_id")
          .where("card_id", "=", card.card_id as string)
          .executeTakeFirst();
        if (exists) {
          skipped++;
          continue;
        }
        await trx
          .insertInto("chamber_cards")
          .values({
            card_id: card.card_id as string,
            handle: null,
            card_version: "0.1",
            body_json: canonicalJson(card),
            signature_json: null,
            evidence_status: "unsigned_historical",
            created_at: typeof card.issued_at === "string" ? card.issued_at : importedAt,
            signed_at: null,
          })
          .execute();
        imported++;
      }
    });
    return { imported, skipped };
  }
}

export { CHANNELS, type Codex, type CodexRow, type ComparisonKey, type Level, levelFor } from "./codex.ts";

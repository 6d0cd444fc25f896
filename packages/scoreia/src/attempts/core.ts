import { type Clock, type Database, DomainError, type Engine, iso, type Kysely } from "kernel";
import { canonicalJson, toolsetHash } from "../contract/index.ts";
import { CanonicalizationError } from "../evidence/jcs.ts";
import { CardLog } from "../evidence/log.ts";
import { chainedHash, GENESIS, type StoredEvent, storedEvent } from "../evidence/replay.ts";
import type { Signer } from "../evidence/signer.ts";
import { SUITES, type Suite } from "../suites/index.ts";
import { legacyGeneration, type SuiteGeneration, SuiteSecrets, secretGeneration } from "../suites/secrets.ts";
import type { AttemptRow, ChamberDB, EventRow } from "./schema.ts";
import * as store from "./store.ts";
import type { AttemptState, CallContext, ChamberConfig, Envelope } from "./types.ts";

export type Trx = Kysely<ChamberDB>;

const LIVE: ReadonlySet<string> = new Set(["created", "active"]);

/**
 * What every step of the attempt lifecycle shares: the store, the clock, the signer, the
 * configuration, the suite generations, and the rules every step applies (pins, expiry, the
 * status envelope, the replay chain). The steps themselves live beside it, one file per
 * responsibility (enter.ts, play.ts, seal.ts, sign.ts, operate.ts); service.ts puts them together.
 * Its members are for those files, not for tools.
 */
export class ChamberCore {
  readonly toolsetHash: string;
  /** The card transparency log; a tree head is signed after each card joins it. */
  readonly log: CardLog;
  /** Key ids already copied into chamber_keys (sign.ts). */
  readonly knownKeys = new Set<string>();
  /** The signer's key records as last copied (sign.ts). */
  publishedPrint = "";
  /** Clock time of the last purge of unsealed attempts (enter.ts). */
  lastPurge = Number.NEGATIVE_INFINITY;
  private readonly generations = new Map<string, SuiteGeneration>();
  private readonly recorded = new Set<string>();

  constructor(
    readonly database: Database<ChamberDB>,
    readonly clock: Clock,
    readonly signer: Signer,
    readonly config: ChamberConfig,
    /** Room secrets per suite generation (suites/secrets.ts); random ones in memory by default. */
    readonly secrets: SuiteSecrets = SuiteSecrets.ephemeral(),
  ) {
    this.toolsetHash = toolsetHash(config.toolset);
    this.log = new CardLog(database, signer);
  }

  defaultSuite(): Suite {
    const def = this.config.toolset.suites.find((s) => s.default);
    const suite = def && SUITES[def.id];
    if (!suite) throw new Error("no default suite");
    return suite;
  }

  /** The generation an attempt binds, bound to its room secret. */
  generation(suiteId: string, generation: string): SuiteGeneration {
    const k = `${suiteId}/${generation}`;
    let gen = this.generations.get(k);
    if (!gen) {
      const suite = SUITES[suiteId];
      const rec = suite && generation !== suite.generation ? this.secrets.find(suiteId, generation) : null;
      if (suite && generation === suite.generation) gen = legacyGeneration(suite);
      else if (suite && rec) gen = secretGeneration(suite, rec);
      else throw new Error(`${k} is not served here (no such suite or no secret for the generation)`);
      this.generations.set(k, gen);
    }
    return gen;
  }

  /** The generation new attempts of `suite` enter (the newest not revealed). */
  currentGeneration(suite: Suite, now: number): SuiteGeneration {
    return this.generation(suite.id, this.secrets.current(suite, iso(now)).generation);
  }

  /** Every suite's current generation (what the manifest resources serve). */
  currentGenerations(): SuiteGeneration[] {
    const now = this.clock.now();
    return Object.values(SUITES).map((s) => this.currentGeneration(s, now));
  }

  /** Publishes a generation's manifest (never its secret) for the read side, once per process. */
  async recordGeneration(trx: Trx, gen: SuiteGeneration, now: number): Promise<void> {
    const k = `${gen.suite.id}/${gen.generation}`;
    if (!gen.commits || this.recorded.has(k)) return;
    await trx
      .insertInto("chamber_generations")
      .values({
        suite_id: gen.suite.id,
        generation: gen.generation,
        manifest_json: canonicalJson(gen.manifest),
        manifest_hash: gen.manifestHash,
        created_at: iso(now),
        revealed_at: null,
        secret: null,
      })
      .onConflict((oc) => oc.columns(["suite_id", "generation"]).doNothing())
      .execute();
    this.recorded.add(k);
  }

  /** Whether the attempt's replay commits values and observations (§14.2). */
  commits(row: AttemptRow): boolean {
    return !this.config.benchWithoutLogAndCommitments && this.generation(row.suite_id, row.suite_generation).commits;
  }

  suite(row: AttemptRow): Suite {
    return this.generation(row.suite_id, row.suite_generation).bound;
  }

  /**
   * The attempt `handle`, or attempt_not_found. With `lock` (inside a write) the row stays locked
   * until commit where the engine has row locks (SQLite's write transaction already serialises
   * writers), so expected_action_index checks cannot race.
   */
  async load(db: Trx, handle: string, lock?: Engine): Promise<AttemptRow> {
    const row = lock
      ? await store.selectAttemptLocked(db, lock, handle)
      : await store.selectAttempt.first(db, { handle });
    if (!row) {
      throw new DomainError("attempt_not_found", "no attempt has this handle; enter_open_challenge returns a new one", {
        allowed_next_tools: ["enter_open_challenge"],
      });
    }
    return row;
  }

  checkPin(ctx: CallContext, bound: string): void {
    if (ctx.pinnedToolset !== undefined && ctx.pinnedToolset !== bound) {
      throw new DomainError(
        "toolset_version_mismatch",
        `client expects ${ctx.pinnedToolset}, but this attempt binds ${bound}; drop the pin or match it`.slice(0, 240),
        { toolset_id: bound },
      );
    }
  }

  checkIndex(row: AttemptRow, expected: unknown, status: () => Record<string, unknown>): void {
    if (typeof expected === "number" && expected !== row.action_index) {
      throw new DomainError(
        "stale_action_index",
        `expected_action_index ${expected} does not match the transcript length ${row.action_index}; retry with ${row.action_index}`,
        {
          ...status(),
          retryable: true,
          attempt_handle: row.handle,
          current_action_index: row.action_index,
          recovery_hint: `resend with expected_action_index=${row.action_index}`,
        },
      );
    }
  }

  /** Expiry is derived from the clock, so it needs no background job. */
  effectiveState(row: AttemptRow, now: number): AttemptState {
    const s = row.state as AttemptState;
    if ((LIVE.has(s) || s === "terminal_unsealed" || s === "quarantined") && now >= Date.parse(row.expires_at)) {
      return "expired";
    }
    return s;
  }

  expiredError(row: AttemptRow, now: number): DomainError {
    const sealable = now < Date.parse(row.expires_at) + this.config.retentionSeconds * 1000;
    return new DomainError(
      "attempt_expired",
      sealable
        ? `the attempt expired at ${row.expires_at} (TTL ${this.config.ttlSeconds} s); seal_attempt still issues its card`
        : `the attempt expired at ${row.expires_at} and its retention has passed; enter_open_challenge starts a new one`,
      {
        attempt_handle: row.handle,
        attempt_state: "expired",
        expires_at: row.expires_at,
        allowed_next_tools: sealable ? ["seal_attempt"] : ["enter_open_challenge"],
      },
    );
  }

  toolsetHashFor(id: string): string {
    if (id === this.config.toolset.toolset_id) return this.toolsetHash;
    throw new Error(`no contract for ${id}`);
  }

  /** The status fields without `ok`, for error envelopes that concern a known attempt. */
  status(row: AttemptRow, suite: Suite, now: number): Record<string, unknown> {
    const { ok: _ok, ...rest } = this.envelope(row, suite, now);
    return rest;
  }

  /** The common status fields, always truthful for the row as stored after this call. */
  envelope(row: AttemptRow, suite: Suite, now: number): Envelope {
    const state = this.effectiveState(row, now);
    const live = LIVE.has(state);
    const room = live ? JSON.parse(row.room_json) : null;
    const mustSeal = state === "terminal_unsealed" || state === "quarantined" || state === "expired";
    return {
      ok: true,
      attempt_handle: row.handle,
      attempt_state: state,
      toolset_id: row.toolset_id,
      suite_id: row.suite_id,
      action_index: row.action_index,
      remaining_actions: Math.max(0, this.config.maxActions - row.action_index),
      allowed_next_tools: nextTools(state),
      allowed_ops: room ? suite.allowedOps(row.seed, room) : [],
      terminal: !live,
      must_seal: mustSeal,
      expires_at: row.expires_at,
      ...(row.card_id ? { card_id: row.card_id } : {}),
    };
  }

  /**
   * Event `seq` of `row` as stored, with its hash in the public
   * replay chain computed now from the values in hand. The caller writes it and stores the hash as
   * the attempt's chain_head in the same transaction. The hash is over the values as stored (their
   * JSON round trip): canonicalJson refuses anything that would not survive it, and then the
   * round-tripped values are hashed instead.
   */
  eventRow(
    row: AttemptRow,
    seq: number,
    kind: string,
    actionIndex: number | null,
    request: unknown,
    response: unknown,
    priv: unknown,
    now: number,
  ): EventRow {
    const stored: EventRow = {
      id: store.eventKey(store.attemptNo(row), seq),
      handle: row.handle,
      seq,
      kind,
      action_index: actionIndex,
      request_json: JSON.stringify(request),
      response_json: JSON.stringify(response),
      private_json: priv === null ? null : JSON.stringify(priv),
      at: iso(now),
      hash: null,
    };
    const prev = seq === 0 ? GENESIS : row.chain_head;
    // An attempt entered before the chain was kept on write has no head: its seal rebuilds the chain.
    if (prev === null) return stored;
    const salt = Buffer.from(row.replay_salt, "hex");
    const commits = this.commits(row);
    const values: StoredEvent = {
      seq,
      kind,
      action_index: actionIndex,
      at: stored.at,
      request,
      response,
      private: priv,
    };
    try {
      stored.hash = chainedHash(salt, values, prev, commits);
    } catch (e) {
      if (!(e instanceof CanonicalizationError)) throw e;
      stored.hash = chainedHash(salt, storedEvent(stored), prev, commits);
    }
    return stored;
  }
}

function nextTools(state: AttemptState): string[] {
  switch (state) {
    case "created":
    case "active":
      return ["chamber_action", "observe_chamber", "call_for_help", "seal_attempt"];
    case "terminal_unsealed":
    case "quarantined":
      return ["seal_attempt", "observe_chamber"];
    case "expired":
    case "pending_signature":
      return ["seal_attempt"];
    case "sealed":
      return ["enter_open_challenge"];
  }
}

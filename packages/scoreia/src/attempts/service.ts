import { randomBytes } from "node:crypto";
import { type Clock, type Database, DomainError, iso, type Kysely, logger } from "kernel";
import { canonicalJson, type ParticipationClass, type Toolset, toolsetHash } from "../contract/index.ts";
import { addToCodex, signatureVerifies } from "../evidence/codex.ts";
import { CanonicalizationError, sha256Tagged } from "../evidence/jcs.ts";
import { appendLeaf, CardLog, LEAF_TYPE } from "../evidence/log.ts";
import { buildReplay, chainedHash, GENESIS, type StoredEvent, storedEvent } from "../evidence/replay.ts";
import { type CardSignature, type PublicKeyRecord, type Signer, SignerUnavailableError } from "../evidence/signer.ts";
import { CLOCK_SKEW_MS } from "../evidence/verify.ts";
import { SUITES, type Suite } from "../suites/index.ts";
import { legacyGeneration, type SuiteGeneration, SuiteSecrets, secretGeneration } from "../suites/secrets.ts";
import type { RoomAction } from "../suites/types.ts";
import type { VerdictName } from "../suites/verdicts.ts";
import { checkPublicText, declaredIdentity } from "./identity.ts";
import { rulesSummary } from "./rules.ts";
import type { AttemptRow, CardRow, ChamberDB, EventRow } from "./schema.ts";
import * as store from "./store.ts";

/** Attempt states (seed 000 `attempt_states`). */
export type AttemptState =
  | "created"
  | "active"
  | "terminal_unsealed"
  | "sealed"
  | "expired"
  | "quarantined"
  | "pending_signature";

export type Verdict = VerdictName;

export interface ChamberConfig {
  toolset: Toolset;
  maxActions: number;
  ttlSeconds: number;
  retentionSeconds: number;
  /** The public-card notice every entrant receives; entry fails closed without it. */
  publicationNotice: { en: string; fr: string; privacy: string; terms: string } | null;
  /**
   * Origin of the public read side (e.g. https://chamber.example): seal_attempt links the card,
   * its proof and its verify page under it. Without one the links are paths.
   */
  publicOrigin?: string;
  /**
   * Benchmarks only (bench/chamber.ts `--evidence off`): no salted commitments of values and
   * observations in the replay (§14.2) and no transparency-log leaf or tree head per card (§15),
   * to measure what they cost in the same run. Never set by the server or its CLI.
   */
  benchWithoutLogAndCommitments?: boolean;
  /**
   * Benchmarks only (`--evidence batched`): the card's log leaf is appended as always, but no
   * tree head is signed at seal; one is signed when a proof or the head is asked for, covering
   * every card sealed since (what batching heads would cost). Never set by the server.
   */
  benchDeferTreeHeads?: boolean;
}

export function defaultConfig(toolset: Toolset): ChamberConfig {
  return {
    toolset,
    maxActions: toolset.limits.max_actions,
    ttlSeconds: toolset.limits.attempt_ttl_seconds,
    retentionSeconds: toolset.limits.finished_session_retention_seconds,
    publicationNotice: toolset.identity.publication_notice,
  };
}

/** Who is calling, as the MCP layer saw it. Never merged with the declared identity. */
export interface CallContext {
  mcpSession: string;
  /** MCP clientInfo from initialize, stored as a separate observation. */
  clientInfo?: { name: string; version: string; [k: string]: unknown };
  /** Toolset the client pinned in `_meta["scoreia/toolset_id"]`, if any. */
  pinnedToolset?: string;
  /** True only for runs launched by ScoreIA itself (server option); with origin=summoned gives scoreia_controlled. */
  controlled?: boolean;
}

export type Envelope = Record<string, unknown> & { ok: boolean };

const LIVE: ReadonlySet<string> = new Set(["created", "active"]);
/** Unsealed attempts past retention are deleted from enter, this often and this many at a time. */
const PURGE_EVERY_MS = 60_000;
const PURGE_BATCH = 500;

type Trx = Kysely<ChamberDB>;

/**
 * The attempt lifecycle: enter, observe, act, call for help, seal. Every change and its event
 * commit in one transaction; the attempt row is locked (FOR UPDATE on PostgreSQL; SQLite
 * serialises writers) so expected_action_index checks cannot race.
 */
export class ChamberService {
  readonly toolsetHash: string;
  private readonly knownKeys = new Set<string>();
  private publishedPrint = "";
  /** The card transparency log; a tree head is signed after each card joins it. */
  readonly log: CardLog;

  constructor(
    private readonly database: Database<ChamberDB>,
    private readonly clock: Clock,
    private readonly signer: Signer,
    readonly config: ChamberConfig,
    /** Room secrets per suite generation (suites/secrets.ts); random ones in memory by default. */
    readonly secrets: SuiteSecrets = SuiteSecrets.ephemeral(),
  ) {
    this.toolsetHash = toolsetHash(config.toolset);
    this.log = new CardLog(database, signer);
  }

  // ---------------------------------------------------------------- enter

  async enter(args: Record<string, unknown>, ctx: CallContext): Promise<Envelope> {
    this.checkPin(ctx, this.config.toolset.toolset_id);
    const notice = this.config.publicationNotice;
    if (!notice?.en || !notice.fr || !notice.privacy || !notice.terms) {
      throw new DomainError(
        "publication_notice_missing",
        "this Chamber has no complete public-card notice configured; no one may enter without it",
      );
    }
    const identity = declaredIdentity(args);
    const suiteId = (args.suite as string | undefined) ?? this.defaultSuite().id;
    const base = SUITES[suiteId];
    if (!base)
      throw new DomainError("suite_unknown", `suite ${suiteId} is unknown; known: ${Object.keys(SUITES).join(", ")}`);
    const now = this.clock.now();
    const gen = this.currentGeneration(base, now);
    const suite = gen.bound;
    const seedGiven = typeof args.seed === "string" && args.seed.length > 0;
    if (seedGiven) checkSeed(args.seed as string);
    const seed = seedGiven ? (args.seed as string) : `s-${randomBytes(8).toString("hex")}`;
    const handle = `chl-${randomBytes(8).toString("hex")}`;
    const participation = ((args.participation_class as ParticipationClass | undefined) ?? "external") as string;
    const assurance =
      ctx.controlled && identity.origin === "summoned"
        ? this.config.toolset.identity.summoned_assurance
        : this.config.toolset.identity.community_assurance;
    const room = suite.init(seed);
    const row: AttemptRow = {
      handle,
      toolset_id: this.config.toolset.toolset_id,
      suite_id: suite.id,
      suite_generation: gen.generation,
      manifest_hash: gen.manifestHash,
      seed,
      seed_source: !seedGiven ? "server" : ALLY_SEED.test(seed) ? "ally" : "participant",
      seed_sealed_before: 0, // set in the transaction below
      state: "created",
      action_index: 0,
      event_count: 1,
      quarantine_reason: null,
      replay_salt: randomBytes(32).toString("hex"),
      room_json: JSON.stringify(room),
      identity_json: JSON.stringify(identity),
      observed_client_json: ctx.clientInfo ? JSON.stringify(pickClient(ctx.clientInfo)) : null,
      preflight_json: args.preflight ? JSON.stringify(args.preflight) : null,
      route_key: (args.route_key as string | undefined) ?? null,
      participation_class: participation,
      assurance,
      channel: "mcp_session",
      mcp_session: ctx.mcpSession,
      created_at: iso(now),
      expires_at: iso(now + this.config.ttlSeconds * 1000),
      updated_at: iso(now),
      terminal_at: null,
      verdict: null,
      card_id: null,
      chain_head: null,
      attempt_no: 0, // numbered in the transaction that inserts it (nextAttemptNo); 0 is never valid
    };
    const out: Envelope = {
      ...this.envelope(row, suite, now),
      suite_generation: suite.generation,
      manifest_hash: row.manifest_hash,
      seed,
      objects: suite.objects(seed, room),
      room: { title: suite.manifest.title, summary: suite.manifest.summary },
      rules: rulesSummary(suite),
      declared: identity,
      assurance,
      participation_class: participation,
      publication_notice: notice,
    };
    await this.database.transaction(async (trx) => {
      if (row.seed_source === "ally") await this.claimAllySeed(trx, seed, suite.id, now);
      await this.recordGeneration(trx, gen, now);
      const sealedBefore = await trx
        .selectFrom("chamber_attempts")
        .select("handle")
        .where("suite_id", "=", suite.id)
        .where("seed", "=", seed)
        .where("suite_generation", "=", gen.generation)
        .where("card_id", "is not", null)
        .limit(1)
        .executeTakeFirst();
      row.seed_sealed_before = sealedBefore ? 1 : 0;
      const numbered = { ...row, attempt_no: await this.nextAttemptNo(trx) };
      const event = this.eventRow(numbered, 0, "enter", null, args, out, null, now);
      await store.insertAttempt.run(trx, { ...numbered, chain_head: event.hash });
      await store.insertEvent.run(trx, event);
    });
    await this.maybePurge(now);
    return out;
  }

  /**
   * Storage rule (docs/chamber.md, Storage): an attempt not sealed by expires_at + retention can
   * never become a card (seal refuses it), so it and its events stop costing storage. Run from
   * enter at most once per PURGE_EVERY_MS of clock time, PURGE_BATCH attempts at a time (a backlog
   * drains over the following entries); never touches sealed or pending attempts.
   */
  async purgeUnsealed(now = this.clock.now(), limit = PURGE_BATCH): Promise<number> {
    const cutoff = iso(now - this.config.retentionSeconds * 1000);
    return this.database.transaction(async (trx) => {
      const gone = await trx
        .selectFrom("chamber_attempts")
        .select(["handle", "attempt_no"])
        .where("expires_at", "<=", cutoff)
        .where("state", "in", ["created", "active", "terminal_unsealed", "quarantined"])
        .orderBy("expires_at")
        .limit(limit)
        .execute();
      if (gone.length === 0) return 0;
      const handles = gone.map((g) => g.handle);
      for (const g of gone) {
        const { lo, hi } = store.eventRange(g);
        await trx.deleteFrom("chamber_events").where("id", ">=", lo).where("id", "<", hi).execute();
      }
      await trx.deleteFrom("chamber_help").where("from_handle", "in", handles).execute();
      await trx.deleteFrom("chamber_attempts").where("handle", "in", handles).execute();
      return gone.length;
    });
  }

  private lastPurge = Number.NEGATIVE_INFINITY;

  private async maybePurge(now: number): Promise<void> {
    if (now - this.lastPurge < PURGE_EVERY_MS) return;
    this.lastPurge = now;
    await this.purgeUnsealed(now);
  }

  // ---------------------------------------------------------------- observe

  async observe(args: Record<string, unknown>, ctx: CallContext): Promise<Envelope> {
    const row = await this.load(this.database.db, args.challenge_handle as string, false);
    this.checkPin(ctx, row.toolset_id);
    const now = this.clock.now();
    const state = this.effectiveState(row, now);
    if (state === "expired") throw this.expiredError(row, now);
    const suite = this.suite(row);
    const room = JSON.parse(row.room_json);
    const object = args.object as string;
    const view = suite.observe(row.seed, room, object);
    if (!view) {
      throw new DomainError(
        "object_not_available",
        `no object ${JSON.stringify(object).slice(0, 60)} in this room; objects: ${suite.objects(row.seed, room).join(", ")}`.slice(
          0,
          240,
        ),
        this.status(row, suite, now),
      );
    }
    return {
      ...this.envelope(row, suite, now),
      object,
      observation: view,
      objects: suite.objects(row.seed, room),
    };
  }

  // ---------------------------------------------------------------- act

  async act(args: Record<string, unknown>, ctx: CallContext): Promise<Envelope> {
    const handle = args.challenge_handle as string;
    const now = this.clock.now();
    return this.database.transaction(async (trx) => {
      const row = await this.load(trx, handle, true);
      this.checkPin(ctx, row.toolset_id);
      const suite = this.suite(row);
      const state = this.effectiveState(row, now);
      // The status fields every refusal carries; built only when refusing.
      const base = () => this.status(row, suite, now);
      if (state === "sealed" || state === "pending_signature") {
        throw new DomainError(
          "attempt_already_sealed",
          "this attempt is sealed; enter_open_challenge starts a new one",
          base(),
        );
      }
      if (state === "expired") throw this.expiredError(row, now);
      if (state === "quarantined") {
        throw new DomainError("op_not_allowed", "this attempt is quarantined for review; no op is allowed", base());
      }
      if (state === "terminal_unsealed") {
        if (row.action_index >= this.config.maxActions) {
          throw new DomainError(
            "action_limit_reached",
            `all ${this.config.maxActions} actions are used; call seal_attempt`,
            base(),
          );
        }
        throw new DomainError("op_not_allowed", "the room is finished; call seal_attempt", base());
      }
      this.checkIndex(row, args.expected_action_index, base);
      const room = JSON.parse(row.room_json);
      const action: RoomAction = {
        op: args.op as RoomAction["op"],
        ...(args.object !== undefined ? { object: args.object as string } : {}),
        ...(args.value !== undefined ? { value: args.value as string | string[] } : {}),
      };
      const outcome = suite.act(row.seed, room, action);
      if (outcome.kind === "refused") {
        throw new DomainError(outcome.code, outcome.message.slice(0, 240), {
          ...base(),
          objects: suite.objects(row.seed, room),
        });
      }
      const index = row.action_index + 1;
      const ended = suite.solved(outcome.state) || suite.failed(outcome.state) || index >= this.config.maxActions;
      const next: AttemptRow = {
        ...row,
        state: ended ? "terminal_unsealed" : "active",
        action_index: index,
        room_json: JSON.stringify(outcome.state),
        updated_at: iso(now),
        terminal_at: ended ? iso(now) : null,
        event_count: row.event_count + 1,
      };
      const out: Envelope = {
        ...this.envelope(next, suite, now),
        op: action.op,
        observation: outcome.observation,
        ...(outcome.correct === undefined ? {} : { result: outcome.correct ? "correct" : "wrong" }),
        objects: suite.objects(row.seed, outcome.state),
        progress: suite.tally(outcome.state),
      };
      const event = this.eventRow(row, row.event_count, "action", index, args, out, outcome.private ?? null, now);
      await store.updateAfterAction.run(trx, { ...next, chain_head: event.hash });
      await store.insertEvent.run(trx, event);
      return out;
    });
  }

  // ---------------------------------------------------------------- call for help

  async callForHelp(args: Record<string, unknown>, ctx: CallContext): Promise<Envelope> {
    const now = this.clock.now();
    return this.database.transaction(async (trx) => {
      const row = await this.load(trx, args.challenge_handle as string, true);
      this.checkPin(ctx, row.toolset_id);
      const state = this.effectiveState(row, now);
      if (state === "sealed" || state === "pending_signature") {
        throw new DomainError(
          "attempt_already_sealed",
          "this attempt is sealed; an ally is named while the attempt is open",
          this.status(row, this.suite(row), now),
        );
      }
      if (state === "expired") throw this.expiredError(row, now);
      const suite = this.suite(row);
      // The ally gets a fresh seed of its own and a separate future attempt: it never joins this room.
      // An ally seed (a- + 16 hex) is a capability: the caller alone learns it (the public replay
      // commits it) and only call_for_help issues one, so nobody enters it before the ally.
      let allySeed = `a-${randomBytes(8).toString("hex")}`;
      while (allySeed === row.seed) allySeed = `a-${randomBytes(8).toString("hex")}`;
      const help = {
        id: `help-${randomBytes(8).toString("hex")}`,
        from_handle: row.handle,
        ally: args.ally as string,
        seed: allySeed,
        suite_id: suite.id,
        created_at: iso(now),
      };
      await trx.insertInto("chamber_help").values(help).execute();
      const out: Envelope = {
        ...this.envelope({ ...row, event_count: row.event_count + 1 }, suite, now),
        help_id: help.id,
        ally: help.ally,
        ally_suite: suite.id,
        ally_seed: allySeed,
        ally_instructions: `${help.ally} may later enter its own attempt with enter_open_challenge (suite=${suite.id}, seed=${allySeed}). It never joins this room and this attempt continues alone.`,
      };
      const event = this.eventRow(row, row.event_count, "call_for_help", null, args, out, null, now);
      await trx
        .updateTable("chamber_attempts")
        .set({ event_count: row.event_count + 1, updated_at: iso(now), chain_head: event.hash })
        .where("handle", "=", row.handle)
        .execute();
      await store.insertEvent.run(trx, event);
      return out;
    });
  }

  // ---------------------------------------------------------------- seal

  async seal(args: Record<string, unknown>, ctx: CallContext): Promise<Envelope> {
    const now = this.clock.now();
    if (typeof args.next_candidate === "string") {
      // Shown publicly with the seal event: same rules as identity claims.
      checkPublicText("next_candidate", args.next_candidate);
    }
    const phase1 = await this.database.transaction(async (trx) => {
      const row = await this.load(trx, args.challenge_handle as string, true);
      this.checkPin(ctx, row.toolset_id);
      const state = this.effectiveState(row, now);
      if (state === "sealed") return { row, firstSeal: false, done: true, card: null };
      if (state === "pending_signature") return { row, firstSeal: false, done: false, card: null };
      this.checkIndex(row, args.expected_action_index, () => ({}));
      if (state === "expired" && now >= Date.parse(row.expires_at) + this.config.retentionSeconds * 1000) {
        throw this.expiredError(row, now);
      }
      const suite = this.suite(row);
      const room = JSON.parse(row.room_json);
      const verdict = this.verdict(row, state, suite, room);
      const cardId = `sia-${randomBytes(16).toString("hex")}`;
      // The seal event joins the chain first; the card then binds the chain's head.
      const event = this.eventRow(row, row.event_count, "seal", null, args, { card_id: cardId, verdict }, null, now);
      await store.insertEvent.run(trx, event);
      const chain =
        event.hash === null
          ? await this.rebuiltChain(trx, row, cardId)
          : { head: event.hash, events: row.event_count + 1 };
      const card = this.cardBody(row, suite, room, verdict, cardId, now, chain);
      const sealed: AttemptRow = {
        ...row,
        state: "pending_signature",
        verdict,
        card_id: cardId,
        terminal_at: row.terminal_at ?? iso(now),
        updated_at: iso(now),
        event_count: row.event_count + 1,
        chain_head: chain.head,
      };
      const cardRow: CardRow = {
        card_id: cardId,
        handle: row.handle,
        card_version: "0.2",
        body_json: canonicalJson(card),
        signature_json: null,
        evidence_status: "pending_signature",
        created_at: iso(now),
        signed_at: null,
      };
      await store.insertCard.run(trx, cardRow);
      await store.updateAfterSeal.run(trx, sealed);
      return { row: sealed, firstSeal: true, done: false, card: cardRow as CardRow | null };
    });

    let { row } = phase1;
    // A first seal has the card it just wrote; a repeated one reads it.
    let card = phase1.card ?? (await store.selectCard.first(this.database.db, { card_id: row.card_id as string }));
    if (!card) throw new Error(`card ${row.card_id} of ${row.handle} is missing`);
    if (!phase1.done) {
      const signed = await this.signPending(card, now);
      if (!signed) {
        const first = phase1.firstSeal;
        throw new DomainError(
          first ? "signature_unavailable" : "evidence_pending",
          first
            ? "the card is written but no signer is reachable; it will be signed without any change to its content. Call seal_attempt again later."
            : "the card is still waiting for its signature; call seal_attempt again later",
          {
            retryable: true,
            attempt_handle: row.handle,
            attempt_state: "pending_signature",
            already_sealed: !first,
            card_id: row.card_id,
            evidence_status: "pending_signature",
            recovery_hint: "retry seal_attempt with the same challenge_handle",
          },
        );
      }
      row = { ...row, state: "sealed" };
      card = signed;
    }
    const suite = this.suite(row);
    const out: Envelope = {
      ...this.envelope(row, suite, now),
      already_sealed: !phase1.firstSeal,
      card_id: row.card_id,
      evidence_status: card.evidence_status,
      verdict: row.verdict,
      links: this.cardLinks(row.card_id as string),
    };
    if (args.include_export_bundle === true) out.export_bundle = { card: JSON.parse(card.body_json) };
    return out;
  }

  /** Signs a pending card. Returns false when no signer is reachable (the card stays pending). */
  async trySign(cardId: string, now = this.clock.now()): Promise<boolean> {
    const card = await store.selectCard.first(this.database.db, { card_id: cardId });
    if (!card) throw new Error(`no card ${cardId}`);
    return (await this.signPending(card, now)) !== null;
  }

  /**
   * Signs `card` if it is still pending and returns it as stored afterwards (signed), or null
   * when no signer is reachable (the card stays pending).
   */
  private async signPending(card: CardRow, now: number): Promise<CardRow | null> {
    if (card.evidence_status === "signed") return card;
    let signature: CardSignature;
    try {
      signature = await this.signer.signCard(sha256Tagged(card.body_json));
    } catch (e) {
      if (e instanceof SignerUnavailableError) return null;
      throw e;
    }
    // Never store a signature that would verify as signed_before_issue (a signer clock far behind):
    // the card stays pending and the next seal retries.
    const issuedAt = Date.parse((JSON.parse(card.body_json) as { issued_at: string }).issued_at);
    if (Date.parse(signature.signed_at) < issuedAt - CLOCK_SKEW_MS) {
      logger("attempts").warn(`signer clock is behind: ${signature.signed_at} for a card issued ${iso(issuedAt)}`);
      return null;
    }
    await this.publishKeys(signature.key_id);
    const signatureJson = canonicalJson(signature);
    const stored = await this.database.transaction(async (trx) => {
      const res = await store.signCard.run(trx, {
        card_id: card.card_id,
        signature_json: signatureJson,
        signed_at: signature.signed_at,
      });
      if (Number(res.numAffectedRows) === 1) {
        await store.markSealed.run(trx, { handle: card.handle as string, updated_at: iso(now) });
        // Into the transparency log with the signature, in one transaction: a signed card is a logged card.
        if (!this.config.benchWithoutLogAndCommitments)
          await appendLeaf(trx, this.database.dialect, {
            type: LEAF_TYPE,
            card_id: card.card_id,
            card_hash: sha256Tagged(card.body_json),
            signed_at: signature.signed_at,
            logged_at: iso(now),
          });
        // The Codex counts the card in the transaction that signs it, and only if it verifies.
        if (signatureVerifies(card.body_json, signature, await this.keyRecords(trx))) {
          await addToCodex(trx, JSON.parse(card.body_json));
        }
        return { ...card, signature_json: signatureJson, evidence_status: "signed", signed_at: signature.signed_at };
      }
      // A concurrent seal signed it first: its signature is the one stored.
      return store.selectCard.first(trx, { card_id: card.card_id });
    });
    // A signed head covering the new leaf, so its proof can be served at once (best effort: an
    // unreachable signer leaves it to the next head; CardLog.head never throws for that).
    if (!this.config.benchWithoutLogAndCommitments && !this.config.benchDeferTreeHeads) await this.log.head();
    return stored ?? null;
  }

  /**
   * Copies the signer's public key records into chamber_keys, so that the web process can serve
   * and verify with public keys only. Cheap when the key is already known.
   */
  async publishKeys(ensureKeyId?: string): Promise<void> {
    if (ensureKeyId && this.knownKeys.has(ensureKeyId)) return;
    const records = await this.signer.publicKeys();
    // Unchanged since the last copy (the keys document asks on every request): nothing to write.
    const print = JSON.stringify(records);
    if (print === this.publishedPrint) return;
    await this.database.transaction(async (trx) => {
      for (const r of records) {
        // Upsert: concurrent seals may publish the same key at once. A window only ever closes.
        await trx
          .insertInto("chamber_keys")
          .values(r)
          .onConflict((oc) => oc.column("key_id").doUpdateSet((eb) => ({ not_after: eb.ref("excluded.not_after") })))
          .execute();
        this.knownKeys.add(r.key_id);
      }
    });
    this.publishedPrint = print;
  }

  /** The published key records (chamber_keys), as a verifier reads them. */
  private async keyRecords(trx: Trx): Promise<PublicKeyRecord[]> {
    const rows = await trx.selectFrom("chamber_keys").selectAll().execute();
    return rows.map((r) => ({ ...r, alg: "Ed25519" }));
  }

  /** The chain of an attempt entered before it was kept on write, rebuilt from its stored events. */
  private async rebuiltChain(trx: Trx, row: AttemptRow, cardId: string): Promise<{ head: string; events: number }> {
    const events = (await store.selectEvents.rows(trx, store.eventRange(row))).map(storedEvent);
    const commits = this.commits(row);
    const replay = buildReplay(cardId, Buffer.from(row.replay_salt, "hex"), events, commits);
    return { head: replay.head, events: replay.events.length };
  }

  /** Operators set an attempt aside for review; it can still be sealed, to a quarantined card. */
  async quarantine(handle: string, reason: string): Promise<void> {
    const now = this.clock.now();
    await this.database.transaction(async (trx) => {
      const row = await this.load(trx, handle, true);
      if (row.state === "sealed" || row.state === "pending_signature") {
        throw new DomainError("attempt_already_sealed", "a sealed attempt cannot be quarantined");
      }
      const event = this.eventRow(
        row,
        row.event_count,
        "quarantine",
        null,
        { reason },
        { attempt_state: "quarantined" },
        null,
        now,
      );
      await trx
        .updateTable("chamber_attempts")
        .set({
          state: "quarantined",
          quarantine_reason: reason,
          updated_at: iso(now),
          event_count: row.event_count + 1,
          chain_head: event.hash,
        })
        .where("handle", "=", handle)
        .execute();
      await store.insertEvent.run(trx, event);
    });
  }

  // ---------------------------------------------------------------- helpers

  private defaultSuite(): Suite {
    const def = this.config.toolset.suites.find((s) => s.default);
    const suite = def && SUITES[def.id];
    if (!suite) throw new Error("no default suite");
    return suite;
  }

  private readonly generations = new Map<string, SuiteGeneration>();
  private readonly recorded = new Set<string>();

  /** The generation an attempt binds, bound to its room secret. */
  private generation(suiteId: string, generation: string): SuiteGeneration {
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
  private currentGeneration(suite: Suite, now: number): SuiteGeneration {
    return this.generation(suite.id, this.secrets.current(suite, iso(now)).generation);
  }

  /** Every suite's current generation (what the manifest resources serve). */
  currentGenerations(): SuiteGeneration[] {
    const now = this.clock.now();
    return Object.values(SUITES).map((s) => this.currentGeneration(s, now));
  }

  /** Publishes a generation's manifest (never its secret) for the read side, once per process. */
  private async recordGeneration(trx: Trx, gen: SuiteGeneration, now: number): Promise<void> {
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

  /** The first entry with an ally seed uses it up; a seed call_for_help never issued is refused. */
  private async claimAllySeed(trx: Trx, seed: string, suiteId: string, now: number): Promise<void> {
    const help = await trx
      .selectFrom("chamber_help")
      .select(["id", "suite_id"])
      .where("seed", "=", seed)
      .executeTakeFirst();
    if (!help || help.suite_id !== suiteId) {
      throw new DomainError(
        "value_format_invalid",
        "seeds a-… are issued by call_for_help for one ally and suite; choose another seed, or omit it",
      );
    }
    await trx
      .updateTable("chamber_help")
      .set({ entered_at: iso(now) })
      .where("id", "=", help.id)
      .where("entered_at", "is", null)
      .execute();
  }

  /**
   * Retires a generation and publishes its secret (commit-reveal, docs/evidence-0.2.md §14.3):
   * from now on new attempts enter the next generation, and anyone can rebuild this one's rooms.
   */
  async reveal(suiteId: string, generation: string): Promise<{ secret: string; revealed_at: string }> {
    const now = iso(this.clock.now());
    const rec = this.secrets.reveal(suiteId, generation, now);
    if (!rec)
      throw new DomainError("generation_unknown", `no generation ${suiteId}/${generation} with a room secret here`);
    const gen = this.generation(suiteId, generation);
    await this.database.transaction(async (trx) => {
      await this.recordGeneration(trx, gen, this.clock.now());
      await trx
        .updateTable("chamber_generations")
        .set({ revealed_at: rec.revealed_at, secret: rec.secret })
        .where("suite_id", "=", suiteId)
        .where("generation", "=", generation)
        .execute();
    });
    return { secret: rec.secret, revealed_at: rec.revealed_at as string };
  }

  /** Whether the attempt's replay commits values and observations (§14.2). */
  private commits(row: AttemptRow): boolean {
    return !this.config.benchWithoutLogAndCommitments && this.generation(row.suite_id, row.suite_generation).commits;
  }

  private suite(row: AttemptRow): Suite {
    return this.generation(row.suite_id, row.suite_generation).bound;
  }

  private async load(db: Trx | Database<ChamberDB>["db"], handle: string, lock: boolean): Promise<AttemptRow> {
    const query = lock && this.database.dialect === "postgres" ? store.selectAttemptForUpdate : store.selectAttempt;
    const row = await query.first(db, { handle });
    if (!row) {
      throw new DomainError("attempt_not_found", "no attempt has this handle; enter_open_challenge returns a new one", {
        allowed_next_tools: ["enter_open_challenge"],
      });
    }
    return row;
  }

  /** A number for a new attempt, inside the transaction that inserts it. */
  private async nextAttemptNo(trx: Trx): Promise<number> {
    const next =
      this.database.dialect === "postgres"
        ? await store.nextAttemptNoPostgres.first(trx, {})
        : await store.nextAttemptNoSqlite.first(trx, {});
    return Number(next?.no);
  }

  private checkPin(ctx: CallContext, bound: string): void {
    if (ctx.pinnedToolset !== undefined && ctx.pinnedToolset !== bound) {
      throw new DomainError(
        "toolset_version_mismatch",
        `client expects ${ctx.pinnedToolset}, but this attempt binds ${bound}; drop the pin or match it`.slice(0, 240),
        { toolset_id: bound },
      );
    }
  }

  private checkIndex(row: AttemptRow, expected: unknown, status: () => Record<string, unknown>): void {
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

  private expiredError(row: AttemptRow, now: number): DomainError {
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

  private verdict(row: AttemptRow, state: AttemptState, suite: Suite, room: Record<string, unknown>): Verdict {
    if (suite.solved(room)) return "solved";
    if (row.state === "quarantined") return "quarantined";
    if (state === "expired") return "expired";
    if (suite.failed(room)) return "failed";
    if (row.action_index >= this.config.maxActions) return "exhausted";
    return "abandoned";
  }

  /** The card record. Canonical JSON of this object is what gets signed. */
  private cardBody(
    row: AttemptRow,
    suite: Suite,
    room: Record<string, unknown>,
    verdict: Verdict,
    cardId: string,
    now: number,
    chain: { head: string; events: number },
  ): Record<string, unknown> {
    const id = JSON.parse(row.identity_json);
    const tally = suite.tally(room);
    const ended = row.terminal_at ? Date.parse(row.terminal_at) : Math.min(now, Date.parse(row.expires_at));
    return {
      card_version: "0.2",
      card_id: cardId,
      issued_at: iso(now),
      identity: {
        declared_model: id.model_claim,
        provider_claim: id.provider_claim,
        product: id.product,
        product_plan: id.product_plan,
        declared_host: id.host,
        host_version: id.host_version,
        origin: id.origin,
        assurance: row.assurance,
      },
      observed_client: row.observed_client_json ? JSON.parse(row.observed_client_json) : null,
      channel: row.channel,
      participation_class: row.participation_class,
      route_key: row.route_key,
      suite: { id: suite.id, generation: suite.generation, engine: suite.engine, manifest_hash: row.manifest_hash },
      seed: row.seed,
      seed_source: row.seed_source,
      seed_sealed_before: row.seed_sealed_before === 1,
      toolset: { id: row.toolset_id, hash: this.toolsetHashFor(row.toolset_id) },
      verdict,
      attempt: {
        entered_at: row.created_at,
        ended_at: iso(ended),
        actions_used: row.action_index,
        max_actions: this.config.maxActions,
        hints_used: tally.hints_used,
        wrong_submissions: tally.wrong_submissions,
        stages_cleared: tally.stages_cleared,
        stages_total: tally.stages_total,
        duration_ms: ended - Date.parse(row.created_at),
      },
      preflight: row.preflight_json ? JSON.parse(row.preflight_json) : null,
      replay: chain,
    };
  }

  /** Where the sealed card can be read and checked (docs/http.md); absolute under publicOrigin. */
  private cardLinks(cardId: string): Record<string, string> {
    const origin = (this.config.publicOrigin ?? "").replace(/\/+$/, "");
    return {
      card: `${origin}/cards/${cardId}`,
      card_json: `${origin}/cards/${cardId}.json`,
      proof: `${origin}/proofs/${cardId}.json`,
      verify_page: `${origin}/verify?card=${cardId}`,
    };
  }

  private toolsetHashFor(id: string): string {
    if (id === this.config.toolset.toolset_id) return this.toolsetHash;
    throw new Error(`no contract for ${id}`);
  }

  /** The status fields without `ok`, for error envelopes that concern a known attempt. */
  private status(row: AttemptRow, suite: Suite, now: number): Record<string, unknown> {
    const { ok: _ok, ...rest } = this.envelope(row, suite, now);
    return rest;
  }

  /** The common status fields, always truthful for the row as stored after this call. */
  private envelope(row: AttemptRow, suite: Suite, now: number): Envelope {
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
  private eventRow(
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

const ALLY_SEED = /^a-[0-9a-f]{16}$/;

/**
 * A participant's seed is printed on a public card: checked like the identity claims (no e-mail,
 * URL, token, control character), and it may not pose as a server seed (s-…); a- seeds are ally
 * seeds, claimed in the entry's transaction.
 */
function checkSeed(seed: string): void {
  checkPublicText("seed", seed);
  if (/^s-/.test(seed)) {
    throw new DomainError(
      "value_format_invalid",
      "seeds s-… are drawn by the server; omit seed to get one, or choose another",
    );
  }
  if (/^a-/.test(seed) && !ALLY_SEED.test(seed)) {
    throw new DomainError("value_format_invalid", "seeds a-… are issued by call_for_help; choose another seed");
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

function pickClient(c: NonNullable<CallContext["clientInfo"]>): Record<string, string> {
  // clientInfo is whatever the client sent: cut to 120 code points and make it valid Unicode,
  // since it ends up in a signed card.
  const clean = (v: unknown) => Array.from(String(v).toWellFormed()).slice(0, 120).join("");
  const out: Record<string, string> = { name: clean(c.name), version: clean(c.version) };
  if (typeof c.title === "string") out.title = clean(c.title);
  return out;
}

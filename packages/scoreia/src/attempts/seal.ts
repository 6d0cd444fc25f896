import { randomBytes } from "node:crypto";
import { DomainError, iso } from "kernel";
import { canonicalJson } from "../contract/index.ts";
import { buildReplay, storedEvent } from "../evidence/replay.ts";
import type { Suite } from "../suites/index.ts";
import type { ChamberCore, Trx } from "./core.ts";
import { checkPublicText } from "./identity.ts";
import type { AttemptRow, CardRow } from "./schema.ts";
import { signPending } from "./sign.ts";
import * as store from "./store.ts";
import type { AttemptState, CallContext, Envelope, Verdict } from "./types.ts";
import { write } from "./write.ts";

/**
 * seal_attempt, in two steps: one write closes the chain with the seal event and stores the card
 * pending its signature (or finds it sealed before); then the card is signed (sign.ts), or the
 * caller learns it waits for a signer and may seal again later.
 */
export async function seal(core: ChamberCore, args: Record<string, unknown>, ctx: CallContext): Promise<Envelope> {
  const now = core.clock.now();
  if (typeof args.next_candidate === "string") {
    // Shown publicly with the seal event: same rules as identity claims.
    checkPublicText("next_candidate", args.next_candidate);
  }
  const phase1 = await write(core.database, async ({ trx, engine }) => {
    const row = await core.load(trx, args.challenge_handle as string, engine);
    core.checkPin(ctx, row.toolset_id);
    const state = core.effectiveState(row, now);
    if (state === "sealed") return { row, firstSeal: false, done: true, card: null };
    if (state === "pending_signature") return { row, firstSeal: false, done: false, card: null };
    core.checkIndex(row, args.expected_action_index, () => ({}));
    if (state === "expired" && now >= Date.parse(row.expires_at) + core.config.retentionSeconds * 1000) {
      throw core.expiredError(row, now);
    }
    const suite = core.suite(row);
    const room = JSON.parse(row.room_json);
    const verdict = verdictOf(core, row, state, suite, room);
    const cardId = `sia-${randomBytes(16).toString("hex")}`;
    // The seal event joins the chain first; the card then binds the chain's head.
    const event = core.eventRow(row, row.event_count, "seal", null, args, { card_id: cardId, verdict }, null, now);
    await store.insertEvent.run(trx, event);
    const chain =
      event.hash === null
        ? await rebuiltChain(core, trx, row, cardId)
        : { head: event.hash, events: row.event_count + 1 };
    const card = cardBody(core, row, suite, room, verdict, cardId, now, chain);
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
  let card = phase1.card ?? (await store.selectCard.first(core.database.db, { card_id: row.card_id as string }));
  if (!card) throw new Error(`card ${row.card_id} of ${row.handle} is missing`);
  if (!phase1.done) {
    const signed = await signPending(core, card, now);
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
  const suite = core.suite(row);
  const out: Envelope = {
    ...core.envelope(row, suite, now),
    already_sealed: !phase1.firstSeal,
    card_id: row.card_id,
    evidence_status: card.evidence_status,
    verdict: row.verdict,
    links: cardLinks(core, row.card_id as string),
  };
  if (args.include_export_bundle === true) out.export_bundle = { card: JSON.parse(card.body_json) };
  return out;
}

function verdictOf(
  core: ChamberCore,
  row: AttemptRow,
  state: AttemptState,
  suite: Suite,
  room: Record<string, unknown>,
): Verdict {
  if (suite.solved(room)) return "solved";
  if (row.state === "quarantined") return "quarantined";
  if (state === "expired") return "expired";
  if (suite.failed(room)) return "failed";
  if (row.action_index >= core.config.maxActions) return "exhausted";
  return "abandoned";
}

/** The card record. Canonical JSON of this object is what gets signed. */
function cardBody(
  core: ChamberCore,
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
    toolset: { id: row.toolset_id, hash: core.toolsetHashFor(row.toolset_id) },
    verdict,
    attempt: {
      entered_at: row.created_at,
      ended_at: iso(ended),
      actions_used: row.action_index,
      max_actions: core.config.maxActions,
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
function cardLinks(core: ChamberCore, cardId: string): Record<string, string> {
  const origin = (core.config.publicOrigin ?? "").replace(/\/+$/, "");
  return {
    card: `${origin}/cards/${cardId}`,
    card_json: `${origin}/cards/${cardId}.json`,
    proof: `${origin}/proofs/${cardId}.json`,
    verify_page: `${origin}/verify?card=${cardId}`,
  };
}

/** The chain of an attempt entered before it was kept on write, rebuilt from its stored events. */
async function rebuiltChain(
  core: ChamberCore,
  trx: Trx,
  row: AttemptRow,
  cardId: string,
): Promise<{ head: string; events: number }> {
  const events = (await store.selectEvents.rows(trx, store.eventRange(row))).map(storedEvent);
  const replay = buildReplay(cardId, Buffer.from(row.replay_salt, "hex"), events, core.commits(row));
  return { head: replay.head, events: replay.events.length };
}

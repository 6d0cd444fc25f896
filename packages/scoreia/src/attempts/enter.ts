import { randomBytes } from "node:crypto";
import { DomainError, iso } from "kernel";
import type { ParticipationClass } from "../contract/index.ts";
import { SUITES } from "../suites/index.ts";
import type { ChamberCore, Trx } from "./core.ts";
import { checkPublicText, declaredIdentity } from "./identity.ts";
import { rulesSummary } from "./rules.ts";
import type { AttemptRow } from "./schema.ts";
import * as store from "./store.ts";
import type { CallContext, Envelope } from "./types.ts";
import { write } from "./write.ts";

/** Unsealed attempts past retention are deleted from enter, this often and this many at a time. */
const PURGE_EVERY_MS = 60_000;
export const PURGE_BATCH = 500;

const ALLY_SEED = /^a-[0-9a-f]{16}$/;

/** enter_open_challenge: a new attempt in the suite's current generation, numbered and chained. */
export async function enter(core: ChamberCore, args: Record<string, unknown>, ctx: CallContext): Promise<Envelope> {
  const { config } = core;
  core.checkPin(ctx, config.toolset.toolset_id);
  const notice = config.publicationNotice;
  if (!notice?.en || !notice.fr || !notice.privacy || !notice.terms) {
    throw new DomainError(
      "publication_notice_missing",
      "this Chamber has no complete public-card notice configured; no one may enter without it",
    );
  }
  const identity = declaredIdentity(args);
  const suiteId = (args.suite as string | undefined) ?? core.defaultSuite().id;
  const base = SUITES[suiteId];
  if (!base)
    throw new DomainError("suite_unknown", `suite ${suiteId} is unknown; known: ${Object.keys(SUITES).join(", ")}`);
  const now = core.clock.now();
  const gen = core.currentGeneration(base, now);
  const suite = gen.bound;
  const seedGiven = typeof args.seed === "string" && args.seed.length > 0;
  if (seedGiven) checkSeed(args.seed as string);
  const seed = seedGiven ? (args.seed as string) : `s-${randomBytes(8).toString("hex")}`;
  const handle = `chl-${randomBytes(8).toString("hex")}`;
  const participation = ((args.participation_class as ParticipationClass | undefined) ?? "external") as string;
  const assurance =
    ctx.controlled && identity.origin === "summoned"
      ? config.toolset.identity.summoned_assurance
      : config.toolset.identity.community_assurance;
  const room = suite.init(seed);
  const row: AttemptRow = {
    handle,
    toolset_id: config.toolset.toolset_id,
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
    expires_at: iso(now + config.ttlSeconds * 1000),
    updated_at: iso(now),
    terminal_at: null,
    verdict: null,
    card_id: null,
    chain_head: null,
    attempt_no: 0, // numbered in the transaction that inserts it (store.nextAttemptNo); 0 is never valid
  };
  const out: Envelope = {
    ...core.envelope(row, suite, now),
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
  await write(core.database, async ({ trx, engine }) => {
    if (row.seed_source === "ally") await claimAllySeed(trx, seed, suite.id, now);
    await core.recordGeneration(trx, gen, now);
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
    const numbered = { ...row, attempt_no: await store.nextAttemptNo(trx, engine) };
    const event = core.eventRow(numbered, 0, "enter", null, args, out, null, now);
    await store.insertAttempt.run(trx, { ...numbered, chain_head: event.hash });
    await store.insertEvent.run(trx, event);
  });
  await maybePurge(core, now);
  return out;
}

/**
 * Storage rule (docs/chamber.md, Storage): an attempt not sealed by expires_at + retention can
 * never become a card (seal refuses it), so it and its events stop costing storage. Run from
 * enter at most once per PURGE_EVERY_MS of clock time, PURGE_BATCH attempts at a time (a backlog
 * drains over the following entries); never touches sealed or pending attempts.
 */
export async function purgeUnsealed(core: ChamberCore, now: number, limit: number): Promise<number> {
  const cutoff = iso(now - core.config.retentionSeconds * 1000);
  return write(core.database, async ({ trx }) => {
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

async function maybePurge(core: ChamberCore, now: number): Promise<void> {
  if (now - core.lastPurge < PURGE_EVERY_MS) return;
  core.lastPurge = now;
  await purgeUnsealed(core, now, PURGE_BATCH);
}

/** The first entry with an ally seed uses it up; a seed call_for_help never issued is refused. */
async function claimAllySeed(trx: Trx, seed: string, suiteId: string, now: number): Promise<void> {
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

function pickClient(c: NonNullable<CallContext["clientInfo"]>): Record<string, string> {
  // clientInfo is whatever the client sent: cut to 120 code points and make it valid Unicode,
  // since it ends up in a signed card.
  const clean = (v: unknown) => Array.from(String(v).toWellFormed()).slice(0, 120).join("");
  const out: Record<string, string> = { name: clean(c.name), version: clean(c.version) };
  if (typeof c.title === "string") out.title = clean(c.title);
  return out;
}

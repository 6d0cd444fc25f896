import type { Kysely } from "kernel";
import type { ChamberDB } from "../attempts/schema.ts";
import { SUITES } from "../suites/index.ts";
import { verifyEd25519 } from "./ed25519.ts";
import { canonicalJson, sha256Tagged } from "./jcs.ts";
import { type CardSignature, type PublicKeyRecord, statementBytes } from "./signer.ts";
import { strictBase64url } from "./verify.ts";

/**
 * The Codex: coverage, not a grade (docs/http.md, Codex). Maintained as cards are signed: the
 * transaction that stores a card's signature also adds the card to its comparison key and to its
 * cell (subject × suite × channel), so a read costs the number of cells, never the number of cards
 * (issue 16 §6: a recomputation from every card took 338 ms at 20,000 cards).
 *
 * What counts (issue 16 §3): a native card whose signature verifies, sealed after at least one
 * action, with one of the four outcomes below. A zero-action card says nothing about the subject;
 * `expired` (never sealed in time) and `quarantined` (set aside by an operator) are not outcomes.
 */

export const OUTCOMES = ["solved", "failed", "exhausted", "abandoned"] as const;
export type Outcome = (typeof OUTCOMES)[number];
export type Outcomes = Record<Outcome, number>;

/**
 * Where a card's seed came from, in the card's own words (`seed_source`, docs/evidence-0.2.md §2.1):
 * chosen by the participant, drawn by the server (`s-…`), or given to an ally by `call_for_help`.
 */
export const SEED_SOURCES = ["participant", "server", "ally"] as const;
export type SeedSource = (typeof SEED_SOURCES)[number];
export type SeedSources = Record<SeedSource, number>;

export type Level = "exploratory" | "provisional" | "confirmed";

/** 1–2 distinct seeds exploratory, 3–4 provisional, 5+ confirmed (protocol 0.2). */
export function levelFor(distinctSeeds: number): Level | null {
  if (distinctSeeds <= 0) return null;
  if (distinctSeeds <= 2) return "exploratory";
  if (distinctSeeds <= 4) return "provisional";
  return "confirmed";
}

export const CHANNELS = ["mcp_session", "provider_api", "local_model"] as const;

/** The comparison key evidence levels are counted on (protocol 0.2 "equivalent … parameters"). */
export interface ComparisonKey {
  declared_model: string;
  product: string;
  declared_host: string;
  assurance: string;
  suite_id: string;
  suite_generation: string;
  channel: string;
  parameters: { toolset_id: string };
}

export type Subject = Pick<ComparisonKey, "declared_model" | "product" | "declared_host" | "assurance">;

export interface CodexKey {
  parameters: { toolset_id: string };
  suite_generation: string;
  cards: number;
  distinct_seeds: number;
  outcomes: Outcomes;
  seed_sources: SeedSources;
  seed_sealed_before: number;
  level: Level | null;
}

export interface CodexCell {
  cards: number;
  /** Distinct seeds over the whole cell (a seed played under two toolsets counts once). */
  distinct_seeds: number;
  outcomes: Outcomes;
  /** How many of the cell's cards have their seed from each source (they sum to `cards`). */
  seed_sources: SeedSources;
  /**
   * How many of the cell's cards say `seed_sealed_before: true`: their seed had already been
   * sealed (same suite, generation and seed) when the attempt entered. Cards signed before the
   * field existed do not say so and are not counted here. Levels still count distinct seeds only.
   */
  seed_sealed_before: number;
  /** One entry per comparison key in the cell: levels are only compared within a key. */
  keys: CodexKey[];
}

export interface CodexRow {
  subject: Subject;
  cells: Record<string, CodexCell>;
}

export interface Codex {
  /**
   * Each suite's shipped (base) generation, and every generation its counted cards bind (the
   * shipped one and those with a room secret, `<base>.<8 hex>`), in code-unit order.
   */
  suites: Array<{ id: string; generation: string; counted_generations: string[] }>;
  channels: string[];
  outcomes: Outcome[];
  seed_sources: SeedSource[];
  rows: CodexRow[];
  empty_cell: "not measured";
}

export function comparisonKey(card: Record<string, unknown>): ComparisonKey {
  const id = (card.identity ?? {}) as Record<string, string>;
  const suite = (card.suite ?? {}) as Record<string, string>;
  const toolset = (card.toolset ?? {}) as Record<string, string>;
  return {
    declared_model: id.declared_model ?? "unknown",
    product: id.product ?? "unknown",
    declared_host: id.declared_host ?? "unknown",
    assurance: id.assurance ?? "unknown",
    suite_id: suite.id ?? "unknown",
    suite_generation: suite.generation ?? "unknown",
    channel: String(card.channel ?? "unknown"),
    parameters: { toolset_id: toolset.id ?? "unknown" },
  };
}

/** Whether a (verified) card counts: native, at least one action, one of the four outcomes. */
export function counts(card: Record<string, unknown>): boolean {
  const attempt = (card.attempt ?? {}) as { actions_used?: unknown };
  return (
    card.card_version === "0.2" &&
    typeof attempt.actions_used === "number" &&
    attempt.actions_used >= 1 &&
    (OUTCOMES as readonly string[]).includes(String(card.verdict))
  );
}

/** The signature check of verification (key, signature, key window) for a card about to be counted. */
export function signatureVerifies(bodyJson: string, signature: CardSignature, keys: PublicKeyRecord[]): boolean {
  const key = keys.find((k) => k.key_id === signature.key_id);
  const raw = key && strictBase64url(key.public_key, 32);
  const sig = strictBase64url(signature.sig, 64);
  if (!key || !raw || !sig) return false;
  const at = Date.parse(signature.signed_at);
  if (!(at >= Date.parse(key.not_before)) || (key.not_after !== null && !(at < Date.parse(key.not_after)))) {
    return false;
  }
  return verifyEd25519(raw, statementBytes(sha256Tagged(bodyJson), signature.key_id, signature.signed_at), sig);
}

const ZERO: Outcomes = { solved: 0, failed: 0, exhausted: 0, abandoned: 0 };
const NO_SOURCES: SeedSources = { participant: 0, server: 0, ally: 0 };

/** The counter column of a card's seed source; a source outside the vocabulary is an error, never dropped. */
const SOURCE_COLUMN = {
  participant: "seed_participant",
  server: "seed_server",
  ally: "seed_ally",
} as const satisfies Record<SeedSource, string>;

function seedSourceOf(card: Record<string, unknown>): SeedSource {
  const source = String(card.seed_source);
  if (!(SEED_SOURCES as readonly string[]).includes(source)) {
    throw new Error(`codex: card ${String(card.card_id)} has seed_source ${JSON.stringify(card.seed_source)}`);
  }
  return source as SeedSource;
}

/** 1 when the card says its seed had been sealed before its entry; 0 otherwise (and on older cards). */
function sealedBefore(card: Record<string, unknown>): 0 | 1 {
  return card.seed_sealed_before === true ? 1 : 0;
}

function cellIdOf(k: ComparisonKey): string {
  return canonicalJson({
    declared_model: k.declared_model,
    product: k.product,
    declared_host: k.declared_host,
    assurance: k.assurance,
    suite_id: k.suite_id,
    channel: k.channel,
  });
}

/**
 * Adds one verified, counting card to the Codex tables inside the caller's transaction: the seed
 * is recorded once per key and once per cell (a repeated seed never raises a level), then the two
 * counter rows are upserted (with the seed's source and whether it had been sealed before). Four
 * statements, whatever the registry's size.
 */
export async function addToCodex(trx: Kysely<ChamberDB>, card: Record<string, unknown>): Promise<void> {
  if (!counts(card)) return;
  const key = comparisonKey(card);
  const verdict = card.verdict as Outcome;
  const seed = String(card.seed);
  const source = SOURCE_COLUMN[seedSourceOf(card)];
  const reused = sealedBefore(card);
  const scopes: Array<["key" | "cell", string]> = [
    ["key", canonicalJson(key)],
    ["cell", cellIdOf(key)],
  ];
  for (const [kind, id] of scopes) {
    const inserted = await trx
      .insertInto("chamber_codex_seeds")
      .values({ scope: `${kind}:${id}`, seed })
      .onConflict((oc) => oc.columns(["scope", "seed"]).doNothing())
      .executeTakeFirst();
    const fresh = Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0 ? 1 : 0;
    await trx
      .insertInto("chamber_codex")
      .values({
        scope: kind,
        id,
        key_json: canonicalJson(key),
        cards: 1,
        distinct_seeds: fresh,
        ...ZERO,
        [verdict]: 1,
        seed_participant: 0,
        seed_server: 0,
        seed_ally: 0,
        [source]: 1,
        seed_sealed_before: reused,
      })
      .onConflict((oc) =>
        oc.columns(["scope", "id"]).doUpdateSet((eb) => ({
          cards: eb("chamber_codex.cards", "+", 1),
          distinct_seeds: eb("chamber_codex.distinct_seeds", "+", fresh),
          [verdict]: eb(`chamber_codex.${verdict}`, "+", 1),
          [source]: eb(`chamber_codex.${source}`, "+", 1),
          seed_sealed_before: eb("chamber_codex.seed_sealed_before", "+", reused),
        })),
      )
      .execute();
  }
}

interface Counter {
  key: ComparisonKey;
  cards: number;
  distinct_seeds: number;
  outcomes: Outcomes;
  seed_sources: SeedSources;
  seed_sealed_before: number;
}

/** Locale-independent order (UTF-16 code units), so every machine lists the same way. */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function subjectOf(k: ComparisonKey): Subject {
  return {
    declared_model: k.declared_model,
    product: k.product,
    declared_host: k.declared_host,
    assurance: k.assurance,
  };
}

/** Rows in name order of their four layers (declared model first), code-unit order: no rank. */
function inNameOrder(a: CodexRow, b: CodexRow): number {
  for (const f of ["declared_model", "product", "declared_host", "assurance"] as const) {
    const c = byCodeUnits(a.subject[f], b.subject[f]);
    if (c !== 0) return c;
  }
  return 0;
}

/** The Codex document from per-key and per-cell counters. */
export function codexFrom(keys: Counter[], cells: Counter[]): Codex {
  const rows = new Map<string, CodexRow>();
  const rowOf = (k: ComparisonKey) => {
    const sid = canonicalJson(subjectOf(k));
    let row = rows.get(sid);
    if (!row) {
      row = { subject: subjectOf(k), cells: {} };
      rows.set(sid, row);
    }
    return row;
  };
  for (const c of cells) {
    rowOf(c.key).cells[`${c.key.suite_id}|${c.key.channel}`] = {
      cards: c.cards,
      distinct_seeds: c.distinct_seeds,
      outcomes: { ...c.outcomes },
      seed_sources: { ...c.seed_sources },
      seed_sealed_before: c.seed_sealed_before,
      keys: [],
    };
  }
  const sorted = [...keys].sort((a, b) => byCodeUnits(canonicalJson(a.key), canonicalJson(b.key)));
  for (const k of sorted) {
    const cell = rowOf(k.key).cells[`${k.key.suite_id}|${k.key.channel}`];
    if (!cell) throw new Error(`codex: a key without its cell (${canonicalJson(k.key)})`);
    cell.keys.push({
      parameters: { toolset_id: k.key.parameters.toolset_id },
      suite_generation: k.key.suite_generation,
      cards: k.cards,
      distinct_seeds: k.distinct_seeds,
      outcomes: { ...k.outcomes },
      seed_sources: { ...k.seed_sources },
      seed_sealed_before: k.seed_sealed_before,
      level: levelFor(k.distinct_seeds),
    });
  }
  return {
    suites: Object.values(SUITES).map((s) => ({
      id: s.id,
      generation: s.generation,
      counted_generations: [
        ...new Set(keys.filter((k) => k.key.suite_id === s.id).map((k) => k.key.suite_generation)),
      ].sort(byCodeUnits),
    })),
    channels: [...CHANNELS],
    outcomes: [...OUTCOMES],
    seed_sources: [...SEED_SOURCES],
    rows: [...rows.values()].sort(inNameOrder),
    empty_cell: "not measured",
  };
}

/** The Codex as maintained: one read of the counter rows. */
export async function readCodex(db: Kysely<ChamberDB>): Promise<Codex> {
  const rows = await db.selectFrom("chamber_codex").selectAll().execute();
  const keys: Counter[] = [];
  const cells: Counter[] = [];
  for (const r of rows) {
    const counter: Counter = {
      key: JSON.parse(r.key_json),
      cards: Number(r.cards),
      distinct_seeds: Number(r.distinct_seeds),
      outcomes: {
        solved: Number(r.solved),
        failed: Number(r.failed),
        exhausted: Number(r.exhausted),
        abandoned: Number(r.abandoned),
      },
      seed_sources: {
        participant: Number(r.seed_participant),
        server: Number(r.seed_server),
        ally: Number(r.seed_ally),
      },
      seed_sealed_before: Number(r.seed_sealed_before),
    };
    (r.scope === "key" ? keys : cells).push(counter);
  }
  return codexFrom(keys, cells);
}

/** The Codex recomputed from a list of cards already verified (the rebuild and the tests' reference). */
export function recomputeCodex(verified: Array<Record<string, unknown>>): Codex {
  const groups = { key: new Map<string, Counter & { seeds: Set<string> }>(), cell: new Map() };
  for (const card of verified) {
    if (!counts(card)) continue;
    const key = comparisonKey(card);
    for (const [kind, id] of [
      ["key", canonicalJson(key)],
      ["cell", cellIdOf(key)],
    ] as const) {
      const map = groups[kind] as Map<string, Counter & { seeds: Set<string> }>;
      const g = map.get(id) ?? {
        key,
        cards: 0,
        distinct_seeds: 0,
        outcomes: { ...ZERO },
        seed_sources: { ...NO_SOURCES },
        seed_sealed_before: 0,
        seeds: new Set<string>(),
      };
      g.cards++;
      g.outcomes[card.verdict as Outcome]++;
      g.seed_sources[seedSourceOf(card)]++;
      g.seed_sealed_before += sealedBefore(card);
      g.seeds.add(String(card.seed));
      g.distinct_seeds = g.seeds.size;
      map.set(id, g);
    }
  }
  return codexFrom([...groups.key.values()], [...(groups.cell as Map<string, Counter>).values()]);
}

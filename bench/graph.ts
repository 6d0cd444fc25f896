/**
 * SHAMPOO's knowledge graph against the reference MCP memory server
 * (@modelcontextprotocol/server-memory, a devDependency), side by side in one run.
 *
 * For each size N (default 1,000 / 10,000 / 100,000 entities; 5 observations each, one relation
 * per entity after the first, a Zipf-distributed 30,000-word vocabulary — the corpus the former
 * graph-perf test built) both stores are seeded with the same corpus:
 *   - reference: its memory.jsonl written directly, in the exact format its saveGraph writes;
 *   - SHAMPOO: `--seed tables` (default) writes the rows straight into the tables (multi-row
 *     INSERTs, with the tables' secondary indexes, GIN included, and SQLite's FTS5 indexes built
 *     once after the load: lib.ts withIndexesDeferred; the generated tsvector columns on
 *     PostgreSQL fill as in production; no history events — nothing measured here reads them), or
 *     `--seed import` runs importMemoryJsonl (domains/graph/service/jsonl.ts) on the reference's file:
 *     the real create_entities/create_relations rules, one transaction, one history event per
 *     row — the path a user migrating a memory.jsonl takes; about 10× slower to seed (10,000
 *     entities: 40 s against 4 s on SQLite, 177 s against 46 s on PostgreSQL, on 2 shared cores).
 * Every seed is checked (read_graph total, open_nodes of a seeded entity) before measuring.
 *
 * Then, per size:
 *   1. side by side over stdio, each a real SDK Client (listTools, then callTool with its
 *      client-side output validation; stdout read by line-transport.ts, linear in the message
 *      size, unlike the SDK's own stdio transport) on a spawned server: the reference
 *      (`node …/server-memory/dist/index.js`, MEMORY_FILE_PATH) and SHAMPOO
 *      (`node packages/shampoo/bin/shampoo.mjs serve --db <file>`):
 *        create_entities — ONE new entity (3 observations) per call;
 *        search_nodes — the "agent" mix: an exact entity name, a two-word phrase from a stored
 *        observation, a topical word (Zipf-sampled below the 100 most frequent words, which play
 *        the part of function words nobody searches for, and which make the reference answer
 *        with most of the graph), a rare word (uniform over the vocabulary), and a common word
 *        (one of the 5 most frequent: in nearly every entity; issue 14's "common words").
 *      The reference re-reads (and on writes rewrites) its whole file on every call, so its
 *      phases are bounded by --ref-seconds: it stops after that much measured time once every
 *      query kind has 3 calls, and the report gives how many calls it made; a call over
 *      --ref-timeout is recorded at that bound (a lower bound) and the server restarted. Speedup = reference mean / SHAMPOO mean per call;
 *      targets ≥ 5× at 1,000 and ≥ 100× at 100,000 (issue), judged for both tools.
 *   2. in-process, `shampoo.registry.call(name, args, ctx)` (the full tool pipeline with the
 *      server's own call context) on SQLite (the same file) and PostgreSQL (a fresh schema,
 *      dropped afterwards): the same creates and agent mix, and the "target" mix of the
 *      former perf test (an entity name, one, two or three Zipf words — frequent words
 *      included), a warm-up pass, then measured with process CPU time per call. Target:
 *      search_nodes p95 < 10 ms at 100,000 entities / 500,000 observations.
 *
 *   npm run bench -- graph [--sizes 1000,10000,100000] [--db sqlite,postgres] [--seed tables|import]
 *     [--calls 200] [--queries 200] [--target-queries 400] [--warmup 10] [--ref-seconds 60] [--no-write]
 *     [--ref-timeout 300] [--stdio-reader line|sdk] [--reuse NAME]
 *
 * --reuse NAME keeps the seeded SQLite store of each size as <tmpdir>/shampoo-graph-NAME-<seed>-<size>.db
 * and, when that file exists, copies it instead of seeding (100,000 entities take minutes to
 * seed); the run works on the copy, so every run starts from the same graph. The reference's
 * file is written anew each run (seconds). PostgreSQL is always seeded.
 */
import { randomUUID } from "node:crypto";
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import os, { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { iso, type SessionInfo, sql, systemClock } from "kernel";
import { rng } from "kernel/rng.ts";
import { dropPgSchema, PG_URL } from "kernel/store/testing.ts";
import { localCaller } from "shampoo/access/caller.ts";
import { openShampoo, type Shampoo } from "shampoo/app.ts";
import type { ShampooCtx } from "shampoo/context.ts";
import { contentHash, normalizeName } from "shampoo/domains/graph/model.ts";
import { phraseRows } from "shampoo/domains/graph/schema.ts";
import { importMemoryJsonl } from "shampoo/domains/graph/service/jsonl.ts";
import {
  BENCH_DIR,
  type Benchmark,
  bulkInsert,
  dateStamp,
  fmt,
  type LatencySummary,
  listOption as list,
  log,
  type MachineInfo,
  machineInfo,
  machineLine,
  markdownTable,
  now,
  onCleanup,
  Samples,
  seedingPgUrl,
  withIndexesDeferred,
  writeResults,
} from "./lib.ts";
import { LineStdioTransport } from "./line-transport.ts";

const SHAMPOO_BIN = join(BENCH_DIR, "..", "packages", "shampoo", "bin", "shampoo.mjs");
const REFERENCE_SCRIPT = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/package.json")),
  "dist",
  "index.js",
);
const CLIENT_INFO = { name: "shampoo-graph-bench", version: "0.1.0" };

const OBS_PER_ENTITY = 5;
const NEW_OBS = 3;
const VOCAB = 30_000;
/** Zipf ranks below this are the "function words" the agent mix never searches for alone. */
const TOPICAL_FROM_RANK = 100;
const PROJECT = "memory";
const ENTITY_TYPES = ["person", "org", "place", "project", "tool"];
const RELATION_TYPES = ["works_with", "part_of", "uses", "knows", "depends_on"];
const TARGET_SPEEDUP: Record<number, number> = { 1000: 5, 100000: 100 };
const TARGET_P95_MS = 10;
const TARGET_SIZE = 100_000;
/** A phase stopped by its time budget has made at least this many calls of every query kind (or calls, without kinds). */
const MIN_CALLS_PER_KIND = 3;
/** STDIO_DEFAULT_MAX_BUFFER_SIZE of the SDK's stdio transports. */
const SDK_STDIO_LIMIT = 10 * 1024 * 1024;

type DbKind = "sqlite" | "postgres";
type Op = "create_entities" | "search_nodes";
type Sc = Record<string, unknown>;

// ---------------------------------------------------------------- corpus

/** 30,000 random words of 3..10 letters, most frequent first, with Zipf(1.0) cumulative weights. */
export class Vocabulary {
  readonly words: string[] = [];
  private readonly cum = new Float64Array(VOCAB);
  private readonly total: number;

  constructor(seed = 42) {
    const r = rng(seed);
    const letters = "abcdefghijklmnopqrstuvwxyz";
    const seen = new Set<string>();
    while (this.words.length < VOCAB) {
      const len = 3 + Math.floor(r() * 8);
      let w = "";
      for (let i = 0; i < len; i++) w += letters[Math.floor(r() * 26)];
      if (!seen.has(w)) {
        seen.add(w);
        this.words.push(w);
      }
    }
    let total = 0;
    for (let i = 0; i < VOCAB; i++) {
      total += 1 / (i + 1);
      this.cum[i] = total;
    }
    this.total = total;
  }

  /** A Zipf-distributed word index (rank, 0 = most frequent) drawn with `r`. */
  rank(r: () => number): number {
    const x = r() * this.total;
    let lo = 0;
    let hi = VOCAB - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.cum[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  word(r: () => number): string {
    return this.words[this.rank(r)] as string;
  }

  sentence(r: () => number): string {
    const len = 8 + Math.floor(r() * 12);
    return Array.from({ length: len }, () => this.word(r)).join(" ");
  }
}

export interface SeedEntity {
  name: string;
  entityType: string;
  observations: string[];
}

export interface Corpus {
  entities: SeedEntity[];
  /** Entity j ≥ 1 → an earlier entity. */
  relations: Array<{ from: number; to: number; relationType: string }>;
}

export function buildCorpus(vocab: Vocabulary, n: number): Corpus {
  const r = rng(20261130);
  const entities: SeedEntity[] = [];
  const relations: Corpus["relations"] = [];
  for (let j = 0; j < n; j++) {
    entities.push({
      name: `${vocab.word(r)} ${vocab.word(r)} ${j}`,
      entityType: ENTITY_TYPES[Math.floor(r() * ENTITY_TYPES.length)] as string,
      observations: Array.from({ length: OBS_PER_ENTITY }, () => vocab.sentence(r)),
    });
    if (j > 0)
      relations.push({
        from: j,
        to: Math.floor(r() * j),
        relationType: RELATION_TYPES[Math.floor(r() * RELATION_TYPES.length)] as string,
      });
  }
  return { entities, relations };
}

/** The reference's memory.jsonl, exactly as its saveGraph writes it (entities, then relations, "\n"-joined). */
function writeReferenceFile(file: string, c: Corpus): number {
  const fd = openSync(file, "w");
  let bytes = 0;
  try {
    let chunk: string[] = [];
    let first = true;
    const flush = () => {
      if (!chunk.length) return;
      // saveGraph joins every line with "\n" and ends without one
      bytes += writeSync(fd, (first ? "" : "\n") + chunk.join("\n"));
      first = false;
      chunk = [];
    };
    const line = (l: string) => {
      chunk.push(l);
      if (chunk.length >= 5000) flush();
    };
    for (const e of c.entities)
      line(JSON.stringify({ type: "entity", name: e.name, entityType: e.entityType, observations: e.observations }));
    for (const rel of c.relations)
      line(
        JSON.stringify({
          type: "relation",
          from: (c.entities[rel.from] as SeedEntity).name,
          to: (c.entities[rel.to] as SeedEntity).name,
          relationType: rel.relationType,
        }),
      );
    flush();
  } finally {
    closeSync(fd);
  }
  return bytes;
}

// ---------------------------------------------------------------- queries

type QueryKind = "name" | "phrase" | "topical" | "rare" | "common" | "word1" | "words2" | "words3";

interface Query {
  kind: QueryKind;
  query: string;
}

/** Zipf ranks of the "common" queries: words found in nearly every entity's observations. */
const COMMON_RANKS = 5;

/**
 * What an agent looks up: names, phrases it saw, topical and rare terms (see the header), and a
 * common word (one of the COMMON_RANKS most frequent: at five observations of 8–19 words each,
 * the most frequent word is in about 99 % of entities), the query that reads the most.
 */
export function agentQueries(vocab: Vocabulary, c: Corpus, count: number, seed: number): Query[] {
  const r = rng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const out: Query[] = [];
  for (let i = 0; i < count; i++) {
    const kind = (["name", "phrase", "topical", "rare", "common"] as const)[i % 5];
    if (kind === "name") out.push({ kind, query: pick(c.entities).name });
    else if (kind === "phrase") {
      const words = pick(pick(c.entities).observations).split(" ");
      const at = Math.floor(r() * (words.length - 1));
      out.push({ kind, query: `${words[at]} ${words[at + 1]}` });
    } else if (kind === "topical") {
      let rank = vocab.rank(r);
      while (rank < TOPICAL_FROM_RANK) rank = vocab.rank(r);
      out.push({ kind, query: vocab.words[rank] as string });
    } else if (kind === "common") out.push({ kind, query: vocab.words[Math.floor(r() * COMMON_RANKS)] as string });
    else out.push({ kind: "rare", query: vocab.words[Math.floor(r() * VOCAB)] as string });
  }
  return out;
}

/**
 * The former graph-perf test's mix: an entity name, one, two or three Zipf words (frequent words
 * included). Unlike that test, the words come from the corpus's own vocabulary (it drew them from
 * a second, different random vocabulary, so most of its word queries matched nothing).
 */
export function targetQueries(vocab: Vocabulary, c: Corpus, count: number, seed: number): Query[] {
  const r = rng(seed);
  const out: Query[] = [];
  for (let i = 0; i < count; i++) {
    const k = i % 4;
    if (k === 0)
      out.push({ kind: "name", query: (c.entities[Math.floor(r() * c.entities.length)] as SeedEntity).name });
    else {
      const words = Array.from({ length: k }, () => vocab.word(r)).join(" ");
      out.push({ kind: (["word1", "words2", "words3"] as const)[k - 1] as QueryKind, query: words });
    }
  }
  return out;
}

/** New entities for the create phases: unique per size and driver, ONE per call. */
function newEntities(vocab: Vocabulary, n: number, tag: string, count: number, seed: number): SeedEntity[] {
  const r = rng(seed);
  return Array.from({ length: count }, (_, i) => ({
    name: `new ${tag} ${n} ${i} ${vocab.word(r)}`,
    entityType: ENTITY_TYPES[Math.floor(r() * ENTITY_TYPES.length)] as string,
    observations: Array.from({ length: NEW_OBS }, () => vocab.sentence(r)),
  }));
}

// ---------------------------------------------------------------- progress

function progress(label: string, total: number): (done: number) => void {
  const t0 = now();
  let last = t0;
  return (done) => {
    const t = now();
    if (done < total && t - last < 5000) return;
    last = t;
    log(`  ${label}: ${done.toLocaleString("en")} / ${total.toLocaleString("en")} (${fmt((t - t0) / 1000, 1)} s)`);
  };
}

// ---------------------------------------------------------------- SHAMPOO stores

export interface Store {
  kind: DbKind;
  /** SQLite file, or the PostgreSQL URL with its schema. */
  location: string;
  open(): Promise<Shampoo>;
  version: string;
  drop(): Promise<void>;
}

export async function newStore(kind: DbKind, dir: string, size: number): Promise<Store> {
  if (kind === "sqlite") {
    const file = join(dir, `shampoo-${size}.db`);
    const s = await openShampoo({ db: file });
    const v = await scalar(s, "select sqlite_version() as v");
    await s.close();
    return {
      kind,
      location: file,
      open: () => openShampoo({ db: file }),
      version: `SQLite ${v} (WAL, synchronous=NORMAL)`,
      drop: async () => {
        for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
      },
    };
  }
  const schema = `bench_graph_${process.pid}_${Date.now().toString(36)}`;
  const drop = onCleanup(async () => {
    await dropPgSchema(schema);
  });
  const url = seedingPgUrl(PG_URL);
  const s = await openShampoo({ db: url, pgSchema: schema });
  const v = await scalar(s, "show server_version");
  await s.close();
  return {
    kind,
    location: `${PG_URL} schema ${schema}`,
    open: () => openShampoo({ db: url, pgSchema: schema }),
    version: `PostgreSQL ${v.split(" ")[0]}`,
    drop,
  };
}

async function scalar(s: Shampoo, query: string): Promise<string> {
  const r = await sql.raw<Record<string, unknown>>(query).execute(s.database.db);
  return String(Object.values(r.rows[0] ?? {})[0] ?? "?");
}

/** The graph's tables the fast path writes (their secondary indexes are built after the load). */
const GRAPH_TABLES = ["shampoo_entities", "shampoo_observations", "shampoo_relations", "shampoo_entity_phrases"];

/**
 * The fast path: rows straight into the tables (see the header), as multi-row INSERTs, with the
 * tables' secondary indexes (and SQLite's FTS5 feeds) built once after the load (lib.ts
 * bulkInsert, withIndexesDeferred).
 */
export async function seedTables(s: Shampoo, c: Corpus, label: string): Promise<void> {
  const at = iso(Date.parse("2026-11-30T12:00:00Z"));
  const db = s.database.db;
  const dialect = s.database.dialect;
  const batch = 5000;
  const ids = c.entities.map(() => randomUUID());
  // Live rows, never moved: the lifecycle audit columns stay NULL.
  const stamp = { created_at: at, created_by: "bench", lifecycle: "live", last_event_id: "bench" };
  const tick = progress(`${label} entities`, c.entities.length);
  const t0 = now();
  await withIndexesDeferred(db, dialect, GRAPH_TABLES, async () => {
    for (let i = 0; i < c.entities.length; i += batch) {
      await db.transaction().execute(async (trx) => {
        const ents: Sc[] = [];
        const obs: Sc[] = [];
        const phrases: Sc[] = [];
        for (let j = i; j < Math.min(c.entities.length, i + batch); j++) {
          const e = c.entities[j] as SeedEntity;
          const id = ids[j] as string;
          ents.push({
            id,
            profile: "default",
            project: PROJECT,
            name: e.name,
            name_norm: normalizeName(e.name),
            entity_type: e.entityType,
            alias_text: "",
            visibility: "shared",
            updated_at: at,
            ...stamp,
          });
          // The phrase index of names (graph/schema.ts 0003), as createEntitiesIn writes it.
          phrases.push(...(phraseRows("default", id, [e.name]) as unknown as Sc[]));
          e.observations.forEach((content, k) => {
            obs.push({
              id: randomUUID(),
              entity_id: id,
              profile: "default",
              content,
              content_hash: contentHash(content),
              ord: k + 1,
              ...stamp,
            });
          });
        }
        await bulkInsert(trx, "shampoo_entities", ents);
        await bulkInsert(trx, "shampoo_observations", obs);
        await bulkInsert(trx, "shampoo_entity_phrases", phrases);
      });
      tick(Math.min(c.entities.length, i + batch));
    }
    const rels = c.relations.map((rel) => ({
      id: randomUUID(),
      profile: "default",
      from_id: ids[rel.from] as string,
      to_id: ids[rel.to] as string,
      relation_type: rel.relationType,
      ...stamp,
    }));
    for (let i = 0; i < rels.length; i += 20_000) {
      await db.transaction().execute((trx) => bulkInsert(trx, "shampoo_relations", rels.slice(i, i + 20_000)));
    }
    log(`  ${label}: rows loaded in ${fmt((now() - t0) / 1000, 1)} s; building indexes`);
  });
  log(`  ${label}: seeded in ${fmt((now() - t0) / 1000, 1)} s`);
}

/** The real path: importMemoryJsonl on the reference's file. */
async function seedImport(s: Shampoo, file: string, label: string): Promise<void> {
  const ctx: ShampooCtx = {
    caller: localCaller(),
    source: { tool: "bench.import" },
    clock: systemClock,
    database: s.database,
  };
  let phase = "";
  let tick: (done: number) => void = () => {};
  await importMemoryJsonl(ctx, readFileSync(file, "utf8"), {
    project: PROJECT,
    batchSize: 1000,
    onProgress: (p) => {
      if (p.phase === "read") return;
      if (p.phase !== phase) {
        phase = p.phase;
        tick = progress(`${label} import ${p.phase}`, p.total);
      }
      tick(p.done);
    },
  });
  if (s.database.dialect === "postgres")
    await sql`ANALYZE ${sql.join(GRAPH_TABLES.map((t) => sql.id(t)))}`.execute(s.database.db);
}

/** The seed is what we think it is: every entity listed, a seeded entity opens with its observations. */
async function checkSeed(s: Shampoo, c: Corpus): Promise<void> {
  const ctx = contextOf(s, "seed-check");
  const graph = (await s.registry.call("read_graph", { limit: 1 }, ctx)).structuredContent;
  if (graph.total !== c.entities.length)
    throw new Error(`seed check: read_graph total ${String(graph.total)}, expected ${c.entities.length}`);
  const probe = c.entities[Math.floor(c.entities.length / 2)] as SeedEntity;
  const open = (await s.registry.call("open_nodes", { names: [probe.name] }, ctx)).structuredContent;
  const got = (open.entities as Array<{ observations: string[] }> | undefined)?.[0]?.observations;
  if (JSON.stringify(got) !== JSON.stringify(probe.observations))
    throw new Error(`seed check: open_nodes(${probe.name}) gave ${JSON.stringify(got)?.slice(0, 200)}`);
}

export function contextOf(s: Shampoo, sessionId: string): ShampooCtx {
  const session: SessionInfo = {
    sessionId,
    transport: "memory",
    clientInfo: () => CLIENT_INFO,
    log: async () => {},
  };
  return s.mcp.context(session);
}

// ---------------------------------------------------------------- drivers

interface Reply {
  ok: boolean;
  /** Entities in the answer (search_nodes), entities created (create_entities). */
  entities: number;
  error?: string;
  /** The call hit the driver's timeout. */
  timedOut?: boolean;
}

interface Driver {
  call(op: Op, args: Sc): Promise<Reply>;
  /** MCP ping: the transport's round trip with no tool behind it (stdio only). */
  ping?(): Promise<void>;
  /** A fresh server process on the same store, after a call that timed out left the old one busy (stdio only). */
  restart?(): Promise<void>;
  /** Size of the last answer as JSON, computed outside the timed call. */
  lastChars(): number;
  close(): Promise<void>;
}

/** The text of a tool result's content blocks (where a server puts its error message). */
function contentText(content: unknown): string {
  if (!Array.isArray(content)) return "";
  return content
    .map((b: { type?: unknown; text?: unknown }) => (b.type === "text" && typeof b.text === "string" ? b.text : ""))
    .join(" ")
    .trim();
}

function reply(op: Op, isError: boolean | undefined, sc: Sc | undefined, content?: unknown): Reply {
  if (isError || !sc) {
    const text = contentText(content);
    const what = isError ? "error result" : "result without structuredContent";
    return {
      ok: false,
      entities: 0,
      error: `${what}: ${text ? text.slice(0, 500) : sc ? JSON.stringify(sc).slice(0, 300) : "(no text)"}`,
    };
  }
  if (op === "create_entities") {
    // reference: the entities it added; SHAMPOO: created count
    const n = typeof sc.created === "number" ? sc.created : Array.isArray(sc.entities) ? sc.entities.length : 0;
    return n === 1 ? { ok: true, entities: 1 } : { ok: false, entities: n, error: JSON.stringify(sc).slice(0, 300) };
  }
  return { ok: true, entities: Array.isArray(sc.entities) ? sc.entities.length : 0 };
}

/**
 * How long the bench waits for one reference call by default (--ref-timeout). Its answer to a
 * common word at 100,000 entities holds nearly the whole graph (145 MB of JSON-RPC: the 68 MB
 * graph twice, as structured content and as indented text); a call that takes longer is recorded
 * at this bound, as a timeout (a lower bound of its latency), and the server is restarted so that
 * the next call does not wait behind the one still running.
 */
const REF_CALL_TIMEOUT_S = 300;

/**
 * How the client reads the server's stdout: `line` (LineStdioTransport, linear in the message
 * size) or `sdk` (the SDK's StdioClientTransport, quadratic: see line-transport.ts).
 */
type StdioReader = "line" | "sdk";

async function stdioDriver(
  command: string,
  args: string[],
  env: Record<string, string>,
  reader: StdioReader,
  callTimeoutMs = 600_000,
): Promise<Driver> {
  let stderr = "";
  let client: Client;
  let close: () => Promise<void>;
  const start = async () => {
    const fullEnv = { ...(process.env as Record<string, string>), ...env };
    // Both readers accept messages far over the SDK's default limit (10 MiB per message, which
    // drops the connection on the reference's biggest search answers at 100,000 entities), so
    // that those answers can be measured (and counted: see answers_over_sdk_limit).
    const transport =
      reader === "line"
        ? new LineStdioTransport({ command, args, env: fullEnv, maxMessageBytes: 2 ** 30 })
        : new StdioClientTransport({ command, args, env: fullEnv, stderr: "pipe", maxBufferSize: 2 ** 30 });
    transport.stderr?.on("data", (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-2000);
    });
    client = new Client(CLIENT_INFO);
    close = onCleanup(() => client.close());
    try {
      await client.connect(transport);
      await client.listTools(); // as real clients do; also arms callTool's output validation
    } catch (e) {
      await close();
      throw new Error(`${args.join(" ")}: ${(e as Error).message}\n${stderr}`);
    }
  };
  await start();
  let last: unknown;
  return {
    async call(op, a) {
      try {
        const r = await client.callTool({ name: op, arguments: a }, undefined, { timeout: callTimeoutMs });
        last = r;
        return reply(op, r.isError === true, r.structuredContent as Sc | undefined, r.content);
      } catch (e) {
        last = undefined;
        const message = (e as Error).message;
        return {
          ok: false,
          entities: 0,
          error: `${message} ${stderr.slice(-300)}`,
          timedOut: /Request timed out/.test(message),
        };
      }
    },
    async restart() {
      await close();
      await start();
    },
    lastChars: () => (last === undefined ? 0 : JSON.stringify(last).length),
    ping: async () => {
      await client.ping();
    },
    close: () => close(),
  };
}

function inProcessDriver(s: Shampoo): Driver {
  const ctx = contextOf(s, "bench-in-process");
  let last: unknown;
  return {
    async call(op, a) {
      const r = await s.registry.call(op, a, ctx);
      last = r.structuredContent;
      return reply(op, r.isError, r.structuredContent, r.text ? [{ type: "text", text: r.text }] : undefined);
    },
    lastChars: () => (last === undefined ? 0 : JSON.stringify(last).length),
    close: async () => {},
  };
}

// ---------------------------------------------------------------- phases

interface PhaseResult {
  op: Op;
  mix?: "agent" | "target";
  requested: number;
  calls: number;
  /** Stopped by the time budget before `requested`. */
  capped: boolean;
  errors: number;
  first_error?: string;
  elapsed_s: number;
  latency: LatencySummary;
  /** Process CPU per call (in-process only: the server is this process). */
  cpu?: LatencySummary;
  by_kind?: Record<string, LatencySummary>;
  mean_entities: number;
  mean_answer_chars: number;
  max_answer_chars: number;
  /** Answers larger than the SDK stdio client's default message limit (10 MiB). */
  answers_over_sdk_limit: number;
  /** Calls that hit the driver's timeout (recorded at it: lower bounds). */
  timeouts?: number;
  timeouts_by_kind?: Record<string, number>;
  load_avg_1m: number;
}

interface PhaseOptions {
  warmup: Sc[];
  calls: Sc[];
  kinds?: string[];
  budgetMs: number;
  cpu?: boolean;
  label: string;
}

async function phase(driver: Driver, op: Op, o: PhaseOptions): Promise<PhaseResult> {
  const load = loadAvg();
  for (const a of o.warmup) {
    const r = await driver.call(op, a);
    if (r.timedOut) {
      log(`  ${o.label} warm-up ${op}: a call timed out (${r.error?.slice(0, 80)}); restarting the server, going on`);
      await driver.restart?.();
    } else if (!r.ok) throw new Error(`${o.label} warm-up ${op} ${JSON.stringify(a).slice(0, 120)} failed: ${r.error}`);
  }
  const samples = new Samples();
  const cpu = new Samples();
  const kinds = new Map<string, Samples>();
  let errors = 0;
  let timeouts = 0;
  const kindTimeouts = new Map<string, number>();
  let firstError: string | undefined;
  let entities = 0;
  let chars = 0;
  let maxChars = 0;
  let overLimit = 0;
  const tick = progress(`${o.label} ${op}`, o.calls.length);
  const t0 = now();
  let capped = false;
  for (const [i, a] of o.calls.entries()) {
    const c0 = o.cpu ? process.cpuUsage() : undefined;
    const t = now();
    const r = await driver.call(op, a);
    const ms = now() - t;
    if (c0) {
      const d = process.cpuUsage(c0);
      cpu.add((d.user + d.system) / 1000);
    }
    samples.add(ms);
    const kind = o.kinds?.[i];
    if (kind) {
      const k = kinds.get(kind) ?? new Samples();
      kinds.set(kind, k);
      k.add(ms);
    }
    if (r.timedOut) {
      timeouts++;
      if (kind) kindTimeouts.set(kind, (kindTimeouts.get(kind) ?? 0) + 1);
      // The server is still working on it: the next call would wait behind it.
      await driver.restart?.();
    } else if (!r.ok) {
      errors++;
      firstError ??= r.error;
    }
    entities += r.entities;
    const size = driver.lastChars();
    chars += size;
    maxChars = Math.max(maxChars, size);
    if (size > SDK_STDIO_LIMIT) overLimit++;
    tick(i + 1);
    const enough = o.kinds
      ? [...new Set(o.kinds)].every((k) => (kinds.get(k)?.count ?? 0) >= MIN_CALLS_PER_KIND)
      : i + 1 >= MIN_CALLS_PER_KIND;
    if (i + 1 < o.calls.length && enough && now() - t0 > o.budgetMs) {
      capped = true;
      break;
    }
  }
  const elapsed = (now() - t0) / 1000;
  const n = samples.count;
  const res: PhaseResult = {
    op,
    requested: o.calls.length,
    calls: n,
    capped,
    errors,
    elapsed_s: round(elapsed, 3),
    latency: roundSummary(samples.summary()),
    mean_entities: round(entities / Math.max(1, n), 1),
    mean_answer_chars: Math.round(chars / Math.max(1, n)),
    max_answer_chars: maxChars,
    answers_over_sdk_limit: overLimit,
    load_avg_1m: load,
  };
  if (firstError) res.first_error = firstError;
  if (timeouts) {
    res.timeouts = timeouts;
    res.timeouts_by_kind = Object.fromEntries(kindTimeouts);
  }
  if (o.cpu) res.cpu = roundSummary(cpu.summary());
  if (kinds.size) res.by_kind = Object.fromEntries([...kinds].map(([k, s]) => [k, roundSummary(s.summary())]));
  const s = res.latency;
  log(
    `  ${o.label} ${op}: ${n} calls in ${fmt(elapsed, 1)} s${capped ? ` (capped at ${fmt(o.budgetMs / 1000, 0)} s; ${o.calls.length} requested)` : ""}, ` +
      `p50 ${fmt(s.p50_ms, 2)} ms p95 ${fmt(s.p95_ms, 2)} ms p99 ${fmt(s.p99_ms, 2)} ms mean ${fmt(s.mean_ms, 2)} ms` +
      `${op === "search_nodes" ? `, ${fmt(res.mean_entities, 1)} entities / ${res.mean_answer_chars.toLocaleString("en")} chars per answer` : ""}` +
      `${errors ? `, ${errors} ERRORS: ${firstError}` : ""}${timeouts ? `, ${timeouts} timed out (recorded at the timeout)` : ""}`,
  );
  return res;
}

const PINGS = 100;

/** The floor of a stdio call: MCP ping round trips (JSON-RPC over the pipes, no tool). */
async function pings(driver: Driver): Promise<LatencySummary | undefined> {
  if (!driver.ping) return undefined;
  for (let i = 0; i < 10; i++) await driver.ping();
  const s = new Samples();
  for (let i = 0; i < PINGS; i++) {
    const t = now();
    await driver.ping();
    s.add(now() - t);
  }
  return roundSummary(s.summary());
}

/**
 * What the reference pays before any tool logic: its loadGraph reads the whole memory.jsonl and
 * parses every line, on every call. Timed in this process the same way (fs.promises.readFile as
 * UTF-8, split, JSON.parse), so that ratios measured on different machines can be read: this cost
 * varies between machines far more than SHAMPOO's calls do (see docs/shampoo-graph.md).
 */
async function referenceLoad(file: string): Promise<LatencySummary> {
  const load = async () =>
    (await readFile(file, "utf-8"))
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line) as unknown).length;
  await load();
  const s = new Samples();
  const t0 = now();
  // 20 loads, or fewer once 10 s have gone by (100,000 entities: about a second each).
  while (s.count < 20 && (s.count < 5 || now() - t0 < 10_000)) {
    const t = now();
    await load();
    s.add(now() - t);
  }
  return roundSummary(s.summary());
}

const createArgs = (es: SeedEntity[]): Sc[] => es.map((e) => ({ entities: [e] }));
const searchArgs = (qs: Query[]): Sc[] => qs.map((q) => ({ query: q.query }));

// ---------------------------------------------------------------- one size

interface SizeResult {
  size: number;
  observations: number;
  relations: number;
  reference_file_mb: number;
  /** The reference's file read and parse, timed in-process (referenceLoad). */
  reference_load: LatencySummary;
  seed: { method: string; reference_s: number; stores: Record<string, { seconds: number; store: string }> };
  stdio: { reference: PhaseResult[]; shampoo: PhaseResult[]; ping: Record<string, LatencySummary> };
  in_process: Record<string, PhaseResult[]>;
  /**
   * Reference over SHAMPOO per call; `lower_bound` when reference calls timed out (recorded at the
   * timeout), and then `met` is null unless even the bound reaches the target.
   */
  speedup: Array<{
    op: Op;
    mean: number;
    p50: number;
    target: number | null;
    met: boolean | null;
    lower_bound: boolean;
  }>;
}

interface Options {
  dbs: DbKind[];
  seed: "tables" | "import";
  calls: number;
  queries: number;
  targetQueries: number;
  warmup: number;
  refMs: number;
  /** How long one reference call may take before it is recorded as a timeout (a lower bound). */
  refTimeoutMs: number;
  reader: StdioReader;
  reuse?: string;
}

async function runSize(vocab: Vocabulary, size: number, o: Options): Promise<SizeResult> {
  const dir = mkdtempSync(join(tmpdir(), "shampoo-graph-bench-"));
  const rmDir = onCleanup(async () => rmSync(dir, { recursive: true, force: true }));
  const stores = new Map<DbKind, Store>();
  try {
    log(`\n== ${size.toLocaleString("en")} entities`);
    let t = now();
    const corpus = buildCorpus(vocab, size);
    const refFile = join(dir, "memory.jsonl");
    const bytes = writeReferenceFile(refFile, corpus);
    const refSeed = (now() - t) / 1000;
    log(
      `  corpus: ${size.toLocaleString("en")} entities, ${(size * OBS_PER_ENTITY).toLocaleString("en")} observations, ` +
        `${corpus.relations.length.toLocaleString("en")} relations; reference memory.jsonl ${fmt(bytes / 2 ** 20, 1)} MB written in ${fmt(refSeed, 1)} s`,
    );

    const refLoad = await referenceLoad(refFile);
    log(`  reference file load in-process (read + parse, as its every call does): p50 ${ms(refLoad.p50_ms)} ms`);

    const agent = agentQueries(vocab, corpus, o.queries + o.warmup, 7 + size);
    const target = targetQueries(vocab, corpus, o.targetQueries, 11 + size);
    const warmQ = searchArgs(agent.slice(0, o.warmup));
    const measQ = agent.slice(o.warmup);

    // Seed every SHAMPOO store first (the SQLite one is also the stdio server's file).
    const seedTimes: SizeResult["seed"]["stores"] = {};
    for (const kind of o.dbs) {
      const kept =
        kind === "sqlite" && o.reuse !== undefined
          ? join(tmpdir(), `shampoo-graph-${o.reuse}-${o.seed}-${size}.db`)
          : undefined;
      if (kept && existsSync(kept)) copyFileSync(kept, join(dir, `shampoo-${size}.db`));
      const store = await newStore(kind, dir, size);
      stores.set(kind, store);
      t = now();
      const s = await store.open();
      const reused = kept !== undefined && existsSync(kept);
      try {
        if (!reused) {
          if (o.seed === "tables") await seedTables(s, corpus, `seed ${kind}`);
          else await seedImport(s, refFile, `seed ${kind}`);
        }
        await checkSeed(s, corpus);
      } finally {
        await s.close();
      }
      // Closed: the WAL is checkpointed into the file, which is then all there is to keep.
      if (kept && !reused) copyFileSync(store.location, kept);
      seedTimes[kind] = { seconds: round((now() - t) / 1000, 1), store: store.version };
      log(
        `  ${reused ? `reused ${kept}` : `seeded ${kind} (${o.seed})`} in ${fmt((now() - t) / 1000, 1)} s, checked${kept && !reused ? `; kept as ${kept}` : ""}`,
      );
    }

    const result: SizeResult = {
      size,
      observations: size * OBS_PER_ENTITY,
      relations: corpus.relations.length,
      reference_file_mb: round(bytes / 2 ** 20, 1),
      reference_load: refLoad,
      seed: { method: o.seed, reference_s: round(refSeed, 1), stores: seedTimes },
      stdio: { reference: [], shampoo: [], ping: {} },
      in_process: {},
      speedup: [],
    };

    // 1. Side by side over stdio.
    const creates = (tag: string, seed: number) => {
      const all = newEntities(vocab, size, tag, o.warmup + o.calls, seed);
      return { warmup: createArgs(all.slice(0, o.warmup)), calls: createArgs(all.slice(o.warmup)) };
    };
    const kinds = measQ.map((q) => q.kind);
    {
      const ref = await stdioDriver(
        process.execPath,
        [REFERENCE_SCRIPT],
        { MEMORY_FILE_PATH: refFile },
        o.reader,
        o.refTimeoutMs,
      );
      try {
        const p = await pings(ref);
        if (p) result.stdio.ping.reference = p;
        const c = creates("reference", 1);
        result.stdio.reference.push(
          await phase(ref, "create_entities", { ...c, budgetMs: o.refMs, label: "reference stdio" }),
        );
        result.stdio.reference.push({
          ...(await phase(ref, "search_nodes", {
            warmup: warmQ,
            calls: searchArgs(measQ),
            kinds,
            budgetMs: o.refMs,
            label: "reference stdio",
          })),
          mix: "agent",
        });
      } finally {
        await ref.close();
      }
    }
    const sqlite = stores.get("sqlite");
    if (sqlite) {
      const sh = await stdioDriver(process.execPath, [SHAMPOO_BIN, "serve", "--db", sqlite.location], {}, o.reader);
      try {
        const p = await pings(sh);
        if (p) result.stdio.ping.shampoo = p;
        log(
          `  stdio ping p50: reference ${ms(result.stdio.ping.reference?.p50_ms ?? Number.NaN)} ms, SHAMPOO ${ms(p?.p50_ms ?? Number.NaN)} ms`,
        );
        const c = creates("shampoo-stdio", 2);
        result.stdio.shampoo.push(
          await phase(sh, "create_entities", { ...c, budgetMs: Number.POSITIVE_INFINITY, label: "shampoo stdio" }),
        );
        result.stdio.shampoo.push({
          ...(await phase(sh, "search_nodes", {
            warmup: warmQ,
            calls: searchArgs(measQ),
            kinds,
            budgetMs: Number.POSITIVE_INFINITY,
            label: "shampoo stdio",
          })),
          mix: "agent",
        });
      } finally {
        await sh.close();
      }
      for (const op of ["create_entities", "search_nodes"] as const) {
        const r = result.stdio.reference.find((p) => p.op === op);
        const s = result.stdio.shampoo.find((p) => p.op === op);
        if (!r || !s) continue;
        const target = TARGET_SPEEDUP[size] ?? null;
        const mean = round(r.latency.mean_ms / s.latency.mean_ms, 1);
        const lowerBound = (r.timeouts ?? 0) > 0;
        result.speedup.push({
          op,
          mean,
          p50: round(r.latency.p50_ms / s.latency.p50_ms, 1),
          target,
          met: target === null ? null : mean >= target ? true : lowerBound ? null : false,
          lower_bound: lowerBound,
        });
      }
    }

    // 2. In-process, every store.
    for (const [kind, store] of stores) {
      const s = await store.open();
      try {
        const d = inProcessDriver(s);
        const label = `${kind} in-process`;
        const c = creates(`${kind}-in-process`, 3);
        const phases: PhaseResult[] = [];
        phases.push(await phase(d, "create_entities", { ...c, budgetMs: Number.POSITIVE_INFINITY, cpu: true, label }));
        const agentMix = async (suffix = ""): Promise<PhaseResult> => ({
          ...(await phase(d, "search_nodes", {
            warmup: warmQ,
            calls: searchArgs(measQ),
            kinds,
            budgetMs: Number.POSITIVE_INFINITY,
            cpu: true,
            label: `${label} agent mix${suffix}`,
          })),
          mix: "agent",
        });
        phases.push(await agentMix());
        // The target mix: one full warm pass (JIT, page cache), then the measured pass.
        phases.push({
          ...(await phase(d, "search_nodes", {
            warmup: searchArgs(target),
            calls: searchArgs(target),
            kinds: target.map((q) => q.kind),
            budgetMs: Number.POSITIVE_INFINITY,
            cpu: true,
            label: `${label} target mix`,
          })),
          mix: "target",
        });
        result.in_process[kind] = phases;
      } finally {
        await s.close();
      }
    }
    return result;
  } finally {
    // Also on failure: a PostgreSQL schema must not outlive the run.
    for (const store of stores.values()) await store.drop().catch(() => {});
    await rmDir();
  }
}

// ---------------------------------------------------------------- report

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

function roundSummary(v: LatencySummary): LatencySummary {
  return {
    count: v.count,
    mean_ms: round(v.mean_ms, 4),
    p50_ms: round(v.p50_ms, 4),
    p95_ms: round(v.p95_ms, 4),
    p99_ms: round(v.p99_ms, 4),
    max_ms: round(v.max_ms, 4),
  };
}

const loadAvg = () => round(os.loadavg()[0] ?? 0, 2);
const n = (x: number) => x.toLocaleString("en");
const ms = (x: number) => (x >= 100 ? fmt(x, 0) : x >= 10 ? fmt(x, 1) : fmt(x, 2));

function stdioTable(results: SizeResult[]): string {
  const rows: Array<Array<string | number>> = [];
  for (const r of results)
    for (const op of ["create_entities", "search_nodes"] as const) {
      const ref = r.stdio.reference.find((p) => p.op === op);
      const sh = r.stdio.shampoo.find((p) => p.op === op);
      const sp = r.speedup.find((x) => x.op === op);
      if (!ref || !sh) continue;
      rows.push([
        n(r.size),
        op,
        `${ref.calls}${ref.capped ? "*" : ""}${ref.timeouts ? ` (${ref.timeouts} timed out)` : ""}`,
        ...[ref.latency.p50_ms, ref.latency.p95_ms, ref.latency.p99_ms, ref.latency.mean_ms].map(
          (x) => `${ref.timeouts ? "≥ " : ""}${ms(x)}`,
        ),
        sh.calls,
        ms(sh.latency.p50_ms),
        ms(sh.latency.p95_ms),
        ms(sh.latency.p99_ms),
        ms(sh.latency.mean_ms),
        sp ? `${sp.lower_bound ? "≥ " : ""}${fmt(sp.mean, 1)}×` : "-",
        sp ? `${sp.lower_bound ? "≥ " : ""}${fmt(sp.p50, 1)}×` : "-",
        sp?.target ? `≥ ${sp.target}×: ${verdict(sp.met)}` : "-",
      ]);
    }
  return markdownTable(
    [
      "entities",
      "tool",
      "ref calls",
      "ref p50 ms",
      "p95",
      "p99",
      "mean",
      "SHAMPOO calls",
      "p50 ms",
      "p95",
      "p99",
      "mean",
      "speedup (mean)",
      "(p50)",
      "target",
    ],
    rows,
    ["r", "l", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r", "r", "l"],
  );
}

function answersTable(results: SizeResult[]): string {
  const rows: Array<Array<string | number>> = [];
  for (const r of results) {
    const ref = r.stdio.reference.find((p) => p.op === "search_nodes");
    const sh = r.stdio.shampoo.find((p) => p.op === "search_nodes");
    if (!ref || !sh) continue;
    const kinds = Object.keys(ref.by_kind ?? {});
    rows.push([
      n(r.size),
      fmt(ref.mean_entities, 1),
      n(ref.mean_answer_chars),
      n(ref.max_answer_chars),
      ref.answers_over_sdk_limit,
      fmt(sh.mean_entities, 1),
      n(sh.mean_answer_chars),
      n(sh.max_answer_chars),
      kinds
        .map((k) => `${k} ${ms(ref.by_kind?.[k]?.p50_ms ?? Number.NaN)} / ${ms(sh.by_kind?.[k]?.p50_ms ?? Number.NaN)}`)
        .join(", "),
    ]);
  }
  return markdownTable(
    [
      "entities",
      "ref entities/answer",
      "ref chars/answer",
      "max",
      "> 10 MiB",
      "SHAMPOO entities/answer",
      "SHAMPOO chars/answer",
      "max",
      "p50 ms by query kind (ref / SHAMPOO)",
    ],
    rows,
    ["r", "r", "r", "r", "r", "r", "r", "r", "l"],
  );
}

/** MET, MISSED, or not judged: a lower bound (reference calls that timed out) under the target. */
const verdict = (met: boolean | null): string =>
  met === null ? "not judged (lower bound below it)" : met ? "MET" : "MISSED";

/** Issue 14 § 4: search_nodes speedup over the reference for every kind of query, by size. */
const KIND_TARGETS: Record<number, number> = { 1000: 1, 10000: 10, 100000: 20 };

/** Per query kind over stdio: the reference's p50 over SHAMPOO's, judged against KIND_TARGETS. */
function kindSpeedupTable(results: SizeResult[]): string {
  const rows: Array<Array<string | number>> = [];
  for (const r of results) {
    const ref = r.stdio.reference.find((p) => p.op === "search_nodes");
    const sh = r.stdio.shampoo.find((p) => p.op === "search_nodes");
    if (!ref?.by_kind || !sh?.by_kind) continue;
    const target = KIND_TARGETS[r.size];
    for (const [kind, a] of Object.entries(ref.by_kind)) {
      const b = sh.by_kind[kind];
      if (!b) continue;
      const p50 = a.p50_ms / b.p50_ms;
      const mean = a.mean_ms / b.mean_ms;
      // Reference calls that timed out were recorded at the timeout: its figures are lower bounds.
      const lb = ref.timeouts_by_kind?.[kind] ? "≥ " : "";
      rows.push([
        n(r.size),
        kind,
        a.count,
        `${lb}${ms(a.p50_ms)}`,
        `${lb}${ms(a.mean_ms)}`,
        b.count,
        ms(b.p50_ms),
        ms(b.mean_ms),
        `${lb}${fmt(p50, 1)}×`,
        `${lb}${fmt(mean, 1)}×`,
        target === undefined
          ? "-"
          : `≥ ${target}×: ${verdict(Math.min(p50, mean) >= target ? true : lb ? null : false)}`,
      ]);
    }
  }
  return markdownTable(
    [
      "entities",
      "query kind",
      "ref calls",
      "ref p50 ms",
      "ref mean",
      "SHAMPOO calls",
      "p50 ms",
      "mean",
      "speedup (p50)",
      "(mean)",
      "goal (both)",
    ],
    rows,
    ["r", "l", "r", "r", "r", "r", "r", "r", "r", "r", "l"],
  );
}

function inProcessTable(results: SizeResult[]): string {
  const rows: Array<Array<string | number>> = [];
  for (const r of results)
    for (const [kind, phases] of Object.entries(r.in_process))
      for (const p of phases) {
        const target = p.mix === "target" && r.size === TARGET_SIZE;
        rows.push([
          kind,
          n(r.size),
          p.mix ? `${p.op} (${p.mix})` : p.op,
          p.calls,
          ms(p.latency.p50_ms),
          ms(p.latency.p95_ms),
          ms(p.latency.p99_ms),
          ms(p.latency.max_ms),
          p.cpu ? ms(p.cpu.p95_ms) : "-",
          target ? `p95 < ${TARGET_P95_MS} ms: ${p.latency.p95_ms < TARGET_P95_MS ? "MET" : "MISSED"}` : "-",
          p.errors,
        ]);
      }
  return markdownTable(
    ["store", "entities", "tool (query mix)", "calls", "p50 ms", "p95", "p99", "max", "CPU p95 ms", "target", "errors"],
    rows,
    ["l", "r", "l", "r", "r", "r", "r", "r", "r", "l", "r"],
  );
}

function byKindTable(results: SizeResult[]): string {
  const rows: Array<Array<string | number>> = [];
  for (const r of results)
    for (const [kind, phases] of Object.entries(r.in_process)) {
      const p = phases.find((x) => x.mix === "target");
      if (!p?.by_kind) continue;
      rows.push([
        kind,
        n(r.size),
        ...Object.values(p.by_kind).map((s) => `${ms(s.p50_ms)} / ${ms(s.p95_ms)}`),
        fmt(p.mean_entities, 1),
      ]);
    }
  const first = Object.values(results[0]?.in_process ?? {})[0]?.find((x) => x.mix === "target");
  return markdownTable(
    ["store", "entities", ...Object.keys(first?.by_kind ?? {}).map((k) => `${k} p50 / p95 ms`), "entities/answer"],
    rows,
  );
}

function tables(results: SizeResult[]): string {
  return [
    "Side by side over stdio (SDK Client → spawned server); `*` = stopped by --ref-seconds:",
    "",
    stdioTable(results),
    "",
    `Transport floor (MCP ping, no tool; ${PINGS} round trips) p50 reference / SHAMPOO: ${results
      .map(
        (r) =>
          `${n(r.size)}: ${ms(r.stdio.ping.reference?.p50_ms ?? Number.NaN)} / ${ms(r.stdio.ping.shampoo?.p50_ms ?? Number.NaN)} ms`,
      )
      .join("; ")}.`,
    `The reference's own floor: reading and parsing its memory.jsonl, as each of its calls does (timed in-process, p50): ${results
      .map((r) => `${n(r.size)}: ${ms(r.reference_load.p50_ms)} ms (${fmt(r.reference_file_mb, 1)} MB)`)
      .join("; ")}.`,
    "",
    "search_nodes answers over stdio (agent mix; chars = the JSON of the whole tool result; `> 10 MiB` = answers over the SDK",
    "stdio client's default message limit, which drops the connection — this bench raises the limit to measure them):",
    "",
    answersTable(results),
    "",
    "search_nodes by query kind over stdio, against issue 14's goals (at least 1× the reference at 1,000 entities, 10× at",
    "10,000, 20× at 100,000, for every kind; judged on both the p50 and the mean ratio; the reference's calls are the ones",
    "its capped phase made, split over the five kinds):",
    "",
    kindSpeedupTable(results),
    "",
    "SHAMPOO in-process (`registry.call`, full tool pipeline):",
    "",
    inProcessTable(results),
    "",
    "",
    "search_nodes target mix by query kind, in-process:",
    "",
    byKindTable(results),
  ].join("\n");
}

function markdown(results: SizeResult[], machine: MachineInfo, meta: Sc, o: Options): string {
  const seedLines = results.map(
    (r) =>
      `${n(r.size)}: reference file ${fmt(r.reference_file_mb, 1)} MB (${fmt(r.seed.reference_s, 1)} s); ` +
      Object.values(r.seed.stores)
        .map((v) => `${v.store} ${fmt(v.seconds, 1)} s`)
        .join("; "),
  );
  const capped = results.flatMap((r) =>
    r.stdio.reference
      .filter((p) => p.capped)
      .map((p) => `${n(r.size)} ${p.op}: ${p.calls} of ${p.requested} calls in ${fmt(p.elapsed_s, 0)} s`),
  );
  return [
    `# SHAMPOO knowledge graph vs @modelcontextprotocol/server-memory — ${meta.date}`,
    "",
    `Corpus per size: N entities, ${OBS_PER_ENTITY} observations each (8–19 words), one relation per entity after the first, a`,
    `Zipf(1.0) vocabulary of ${n(VOCAB)} random words; the same corpus in both stores. Reference (v${meta.reference_version}):`,
    "its memory.jsonl written directly in its own format. SHAMPOO: " +
      (o.seed === "tables"
        ? "rows written straight into the tables as multi-row INSERTs, their secondary indexes (and SQLite's FTS5 indexes, rebuilt from the rows) built once after the load, the same indexes production keeps row by row; no history events; because importMemoryJsonl — the real path, one transaction with a history event per row — seeds about 10× slower (10,000 entities: 40 s vs 4 s on SQLite, 177 s vs 46 s on PostgreSQL; `--seed import` runs it)."
        : "importMemoryJsonl of the reference's file (the real create_entities/create_relations rules, one transaction, a history event per row)."),
    "Each seed is checked (read_graph total, open_nodes of a seeded entity).",
    "",
    `create_entities: ONE new entity (${NEW_OBS} observations) per call; ${o.warmup} warm-up calls first, then up to ${o.calls}.`,
    `search_nodes (agent mix, ${o.queries} queries after ${o.warmup} warm-up): an exact entity name, a two-word phrase from a stored observation,`,
    `a topical word (Zipf, ranks ≥ ${TOPICAL_FROM_RANK}), a rare word (uniform over the vocabulary), a common word (one of the ${COMMON_RANKS} most frequent, in nearly every entity). The reference matches the whole query`,
    "as a substring and answers with every matching entity and relation; SHAMPOO matches words and packs the best evidence",
    "under its 16,000-character budget. Target mix (in-process, the former graph-perf test): an entity name, one, two or three",
    `Zipf words (frequent words included), ${o.targetQueries} queries after a full warm-up pass.`,
    "",
    "Stdio: each server spawned and driven by an SDK Client (listTools, then callTool with its output validation); SHAMPOO is",
    "`node packages/shampoo/bin/shampoo.mjs serve --db <file>` (SQLite). Speedup = reference mean / SHAMPOO mean per call.",
    o.reader === "line"
      ? "The client reads each server's stdout with bench/line-transport.ts (linear in the message size; the SDK's own stdio transport takes time quadratic in it, minutes for the reference's largest answers) and decodes every message as the SDK does."
      : "The client reads each server's stdout with the SDK's StdioClientTransport (`--stdio-reader sdk`: time quadratic in the message size, minutes for the reference's largest answers).",
    `The reference re-reads its whole file on every call (and rewrites it on every write), so each of its phases stops after`,
    `${fmt(o.refMs / 1000, 0)} s of measured calls (and at least ${MIN_CALLS_PER_KIND} calls of every query kind): ${capped.length ? capped.join("; ") : "no phase was capped in this run"}.`,
    `A reference call over ${fmt(o.refTimeoutMs / 1000, 0)} s is recorded at that bound and counted as a timeout (its server is then restarted); figures that include one are lower bounds, marked ≥.`,
    "",
    `Machine: ${machineLine(machine)}. Load average (1 min): ${meta.load_avg_1m_start} at start, ${meta.load_avg_1m_end} at end;`,
    "each phase records its own in the JSON. The machine is shared (2 cores): wall times include waiting for a CPU;",
    "in-process phases also give the process CPU time per call.",
    "",
    tables(results),
    "",
    `Seeding: ${seedLines.join(" · ")}.`,
    "",
    "Reproduce: `npm run bench -- graph` (options: --sizes 1000,10000,100000 --db sqlite,postgres --seed tables|import",
    `--calls 200 --queries 200 --target-queries 400 --warmup 10 --ref-seconds 60 --ref-timeout ${REF_CALL_TIMEOUT_S} --stdio-reader line|sdk --no-write --reuse NAME). Raw figures: the dated JSON next to this file.`,
    "",
  ].join("\n");
}

// ---------------------------------------------------------------- entry

function int(v: string | undefined, name: string, min: number): number {
  const x = Number(v);
  if (!Number.isInteger(x) || x < min) throw new Error(`--${name} takes an integer ≥ ${min}`);
  return x;
}

export const benchmark: Benchmark = {
  name: "graph",
  description:
    "knowledge graph vs @modelcontextprotocol/server-memory over stdio (create_entities, search_nodes) at 1k/10k/100k entities, and in-process search p95",
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        sizes: { type: "string", default: "1000,10000,100000" },
        db: { type: "string" },
        seed: { type: "string", default: "tables" },
        calls: { type: "string", default: "200" },
        queries: { type: "string", default: "200" },
        "target-queries": { type: "string", default: "400" },
        warmup: { type: "string", default: "10" },
        "ref-seconds": { type: "string", default: "60" },
        "ref-timeout": { type: "string", default: String(REF_CALL_TIMEOUT_S) },
        "stdio-reader": { type: "string", default: "line" },
        "no-write": { type: "boolean", default: false },
        reuse: { type: "string" },
      },
      strict: true,
    });
    const sizes = String(values.sizes)
      .split(",")
      .map((s) => int(s.trim().replace(/_/g, ""), "sizes", 2));
    if (values.seed !== "tables" && values.seed !== "import") throw new Error("--seed is tables or import");
    const o: Options = {
      dbs: list<DbKind>(values.db, ["sqlite", "postgres"], ["sqlite", "postgres"]),
      seed: values.seed,
      calls: int(values.calls, "calls", 1),
      queries: int(values.queries, "queries", 1),
      targetQueries: int(values["target-queries"], "target-queries", 1),
      warmup: int(values.warmup, "warmup", 0),
      refMs: Number(values["ref-seconds"]) * 1000,
      refTimeoutMs: Number(values["ref-timeout"]) * 1000,
      reader: values["stdio-reader"] as StdioReader,
    };
    if (!(o.refMs > 0)) throw new Error("--ref-seconds takes seconds");
    if (!(o.refTimeoutMs > 0)) throw new Error("--ref-timeout takes seconds");
    if (o.reader !== "line" && o.reader !== "sdk") throw new Error("--stdio-reader is line or sdk");
    if (values.reuse !== undefined) {
      if (!/^[a-z0-9_]+$/.test(values.reuse)) throw new Error("--reuse takes a name of a-z, 0-9 and _");
      o.reuse = values.reuse;
    }

    const machine = machineInfo();
    const startedAt = new Date().toISOString();
    const referenceVersion = String(
      JSON.parse(readFileSync(join(dirname(REFERENCE_SCRIPT), "..", "package.json"), "utf8")).version,
    );
    log(
      `graph: sizes ${sizes.map(n).join(", ")}; stores ${o.dbs.join(", ")}; seed ${o.seed}; ${o.calls} creates, ` +
        `${o.queries} + ${o.targetQueries} searches; reference capped at ${values["ref-seconds"]} s per phase`,
    );
    log(`machine: ${machineLine(machine)}; load average ${machine.load_avg_1m}`);
    const vocab = new Vocabulary();
    const results: SizeResult[] = [];
    const t0 = now();
    for (const size of sizes) results.push(await runSize(vocab, size, o));

    const meta = {
      date: dateStamp(),
      reference_version: referenceVersion,
      load_avg_1m_start: machine.load_avg_1m,
      load_avg_1m_end: loadAvg(),
      total_s: round((now() - t0) / 1000, 1),
    };
    const md = markdown(results, machine, meta, o);
    log("");
    log(tables(results));
    log(`\ntotal ${fmt(meta.total_s, 0)} s`);
    if (!values["no-write"]) {
      const paths = writeResults(
        "graph",
        {
          benchmark: "graph",
          ...meta,
          started_at: startedAt,
          options: { ...o, ref_seconds: o.refMs / 1000 },
          corpus: { obs_per_entity: OBS_PER_ENTITY, vocabulary: VOCAB, new_entity_observations: NEW_OBS },
          targets: {
            speedup: TARGET_SPEEDUP,
            search_by_kind_speedup: KIND_TARGETS,
            search_p95_ms: TARGET_P95_MS,
            at_entities: TARGET_SIZE,
          },
          machine,
          results,
        },
        md,
      );
      log(`wrote ${paths.json} and ${paths.markdown}`);
    }
    const errors = results.flatMap((r) =>
      [...r.stdio.reference, ...r.stdio.shampoo, ...Object.values(r.in_process).flat()].filter((p) => p.errors > 0),
    );
    if (errors.length) {
      process.stderr.write(`errors in ${errors.length} phase(s); see first_error in the JSON\n`);
      process.exitCode = 1;
    }
  },
};

import { createHash, createHmac, randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson, sha256Tagged } from "../contract/index.ts";
import { GENERATOR, type Generator } from "./generator.ts";
import type { Suite, SuiteManifest } from "./types.ts";

/**
 * Room secrets (issue 16 §1, docs/evidence-0.2.md §14). A suite's code is public and a seed is
 * public, so a room that followed from the seed alone would be an answer key. Each generation of
 * a suite therefore has a 32-byte secret held by the server (like the signing keys: a file in the
 * data directory, mode 0600, never in the repository), and a room is built from
 *
 *   room seed = lowercase hex of HMAC-SHA256(key = secret, message = UTF-8(seed))
 *
 * Same seed + same generation → same room; without the secret the seed says nothing about it.
 * The generation's public manifest commits to the secret (`room_secret.commitment` = sha256 of
 * its 32 bytes), so when the secret is revealed (the generation retires) anyone can check it is
 * the one every card of the generation bound, rebuild every room and re-grade every card.
 */

export const ROOM_DERIVATION = "room seed = lowercase hex of HMAC-SHA256(key = secret, message = UTF-8(seed))";

export interface GenerationRecord {
  suite_id: string;
  /** `<suite's base generation>.<first 8 hex digits of the secret's commitment>`, e.g. "001.3fa2c9d1". */
  generation: string;
  /** 64 lowercase hex digits. */
  secret: string;
  created_at: string;
  /** Set when the generation retired and its secret was published. */
  revealed_at: string | null;
  /**
   * The code that builds its rooms (generator.ts), named in its manifest. Absent on generations
   * created before the manifest named it; they keep their manifest (and hash) as they were.
   */
  generator?: Generator;
}

/** One servable generation of a suite: its manifest and how it turns a seed into a room. */
export interface SuiteGeneration {
  suite: Suite;
  generation: string;
  manifest: SuiteManifest & { room_secret?: { commitment: string; derivation: string }; generator?: Generator };
  manifestHash: string;
  /** Legacy generations (before room secrets) build rooms from the seed itself. */
  roomSeed(seed: string): string;
  /** True when replay values are committed (generations with a secret, §14.2). */
  commits: boolean;
  /** The suite with this generation's id and manifest, building every room from roomSeed(seed). */
  bound: Suite;
}

/** `suite` seen through a generation: every seed it is given becomes the room seed first. */
function bind(suite: Suite, generation: string, manifest: SuiteManifest, roomSeed: (seed: string) => string): Suite {
  // The last seed's room seed, memoised: an action asks for it three or four times.
  let lastSeed: string | null = null;
  let lastRoom = "";
  const r = (seed: string) => {
    if (seed !== lastSeed) {
      lastRoom = roomSeed(seed);
      lastSeed = seed;
    }
    return lastRoom;
  };
  return {
    id: suite.id,
    generation,
    engine: suite.engine,
    manifest,
    init: (seed) => suite.init(r(seed)),
    objects: (seed, state) => suite.objects(r(seed), state),
    allowedOps: (seed, state) => suite.allowedOps(r(seed), state),
    observe: (seed, state, object) => suite.observe(r(seed), state, object),
    act: (seed, state, action) => suite.act(r(seed), state, action),
    solved: (state) => suite.solved(state),
    failed: (state) => suite.failed(state),
    tally: (state) => suite.tally(state),
  };
}

export function roomSeedOf(secret: Buffer, seed: string): string {
  return createHmac("sha256", secret).update(seed, "utf8").digest("hex");
}

export function secretCommitment(secret: Buffer): string {
  return `sha256:${createHash("sha256").update(secret).digest("hex")}`;
}

/**
 * The manifest of a secret generation: the suite's manifest, renamed, committing to the secret and,
 * for generations created since it exists, naming the room generator (§14.1).
 */
export function generationManifest(
  suite: Suite,
  generation: string,
  secret: Buffer,
  generator?: Generator | null,
): SuiteGeneration["manifest"] {
  return {
    ...suite.manifest,
    generation,
    room_secret: { commitment: secretCommitment(secret), derivation: ROOM_DERIVATION },
    ...(generator ? { generator } : {}),
  };
}

export function secretGeneration(
  suite: Suite,
  rec: { generation: string; secret: string; generator?: Generator },
): SuiteGeneration {
  const secret = Buffer.from(rec.secret, "hex");
  const manifest = generationManifest(suite, rec.generation, secret, rec.generator);
  const roomSeed = (seed: string) => roomSeedOf(secret, seed);
  return {
    suite,
    generation: rec.generation,
    manifest,
    manifestHash: sha256Tagged(canonicalJson(manifest)),
    roomSeed,
    commits: true,
    bound: bind(suite, rec.generation, manifest, roomSeed),
  };
}

/** The generation as it shipped before room secrets: kept so that its attempts and cards still work. */
export function legacyGeneration(suite: Suite): SuiteGeneration {
  return {
    suite,
    generation: suite.generation,
    manifest: suite.manifest,
    manifestHash: sha256Tagged(canonicalJson(suite.manifest)),
    roomSeed: (seed) => seed,
    commits: false,
    bound: suite,
  };
}

/**
 * The server's room secrets, one current generation per suite. On disk (`dir`):
 * suite-secrets.json (mode 0600), written atomically; in memory for tests and benchmarks.
 */
export class SuiteSecrets {
  private stamp = "";

  private constructor(
    private records: GenerationRecord[],
    private readonly file: string | null,
    private readonly fixed: Buffer | null,
  ) {
    this.stamp = this.currentStamp();
  }

  private currentStamp(): string {
    if (!this.file) return "";
    try {
      const st = statSync(this.file);
      return `${st.mtimeMs}:${st.size}`;
    } catch {
      return "";
    }
  }

  /** Another process (`scoreia reveal`) may have retired a generation: re-read the file when it changed. */
  private refresh(): void {
    if (!this.file) return;
    const stamp = this.currentStamp();
    if (stamp === this.stamp) return;
    this.records = existsSync(this.file) ? (JSON.parse(readFileSync(this.file, "utf8")) as GenerationRecord[]) : [];
    this.stamp = stamp;
  }

  /** Random secrets kept in memory. */
  static ephemeral(): SuiteSecrets {
    return new SuiteSecrets([], null, null);
  }

  /** Every generation's secret derived from one fixed value: tests that pin rooms. */
  static fixedForTests(secret: Buffer): SuiteSecrets {
    return new SuiteSecrets([], null, secret);
  }

  static open(dir: string): SuiteSecrets {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const file = join(dir, "suite-secrets.json");
    const records = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as GenerationRecord[]) : [];
    return new SuiteSecrets(records, file, null);
  }

  private save(): void {
    if (!this.file) return;
    writeFileSync(`${this.file}.tmp`, `${JSON.stringify(this.records, null, 2)}\n`, { mode: 0o600 });
    renameSync(`${this.file}.tmp`, this.file);
    this.stamp = this.currentStamp();
  }

  private newSecret(suiteId: string, generation: string): string {
    if (this.fixed) return createHmac("sha256", this.fixed).update(`${suiteId}/${generation}`).digest("hex");
    return randomBytes(32).toString("hex");
  }

  /**
   * The generation new attempts of `suite` enter, created on first use. A generation named after
   * another room generator (this build's suite code differs from the one it names) is left as it
   * is, unrevealed, and a new one begins: a generation's manifest never changes, and it names the
   * code that builds its rooms. Generations that name none (made before) are kept.
   */
  current(suite: Suite, now: string): GenerationRecord {
    this.refresh();
    let rec = this.records.findLast((r) => r.suite_id === suite.id && r.revealed_at === null);
    if (rec?.generator && rec.generator.source_hash !== GENERATOR.source_hash) rec = undefined;
    if (!rec) {
      // Named after its commitment, so that two secret stores never give one name two manifests.
      const n = this.records.filter((r) => r.suite_id === suite.id).length + 1;
      const secret = this.newSecret(suite.id, String(n));
      const generation = `${suite.generation}.${secretCommitment(Buffer.from(secret, "hex")).slice(7, 15)}`;
      rec = { suite_id: suite.id, generation, secret, created_at: now, revealed_at: null, generator: GENERATOR };
      this.records.push(rec);
      this.save();
    }
    return rec;
  }

  find(suiteId: string, generation: string): GenerationRecord | null {
    this.refresh();
    return this.records.find((r) => r.suite_id === suiteId && r.generation === generation) ?? null;
  }

  /** Retires the generation: it is marked revealed (new attempts get the next one) and returned. */
  reveal(suiteId: string, generation: string, now: string): GenerationRecord | null {
    const rec = this.find(suiteId, generation);
    if (!rec) return null;
    if (rec.revealed_at === null) {
      rec.revealed_at = now;
      this.save();
    }
    return rec;
  }

  all(): GenerationRecord[] {
    return this.records.map((r) => ({ ...r }));
  }
}

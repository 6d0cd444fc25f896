/**
 * Evidence verification throughput: cards verified per second by the CLI path (`scoreia verify
 * FILE`: read the proof bundle, strict JSON parse, every verification step: card signature,
 * replay chain, manifest, policy, transparency-log inclusion) against raw Ed25519 verification
 * of the same signatures, measured in the same run on the same machine, with the cost of each
 * step alone as a multiple of one raw Ed25519 verify.
 * Target (issues 3 and 16): the CLI path within 2× of raw Ed25519.
 */
import { verify as edVerify } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock, openDatabase, serveHttp } from "kernel";
import { chamberOn, migrateChamber } from "scoreia/app.ts";
import type { ChamberDB } from "scoreia/attempts/schema.ts";
import { ed25519PublicKey } from "scoreia/evidence/ed25519.ts";
import { canonicalJson, sha256Tagged } from "scoreia/evidence/jcs.ts";
import { CardRegistry } from "scoreia/evidence/registry.ts";
import { verifyReplay } from "scoreia/evidence/replay.ts";
import { LocalKeyring, statementBytes } from "scoreia/evidence/signer.ts";
import { firstDuplicate, parseStrictJson } from "scoreia/evidence/strict-json.ts";
import { type ProofBundle, verifyProof } from "scoreia/evidence/verify.ts";
import { verifyLog } from "scoreia/evidence/verify-log.ts";
import { type Benchmark, fmt, log, machineInfo, machineLine, markdownTable, writeResults } from "./lib.ts";

const CARDS = 64;
const ACTIONS = 20;

function rate(ms: number, fn: () => void): { perSecond: number; iterations: number } {
  const end = performance.now() + ms;
  let n = 0;
  while (performance.now() < end) {
    for (let i = 0; i < 50; i++) fn();
    n += 50;
  }
  return { perSecond: (n * 1000) / ms, iterations: n };
}

async function makeProofs(
  dir: string,
): Promise<{ files: string[]; keys: unknown[]; serve: () => Promise<{ url: string; close: () => Promise<void> }> }> {
  const database = await openDatabase<ChamberDB>(join(dir, "evidence.db"));
  await migrateChamber(database);
  const clock = new ManualClock();
  const chamber = chamberOn(database, { clock, signer: LocalKeyring.ephemeral(clock) });
  const ctx = { mcpSession: "bench" };
  const reg = new CardRegistry(database);
  const files: string[] = [];
  for (let c = 0; c < CARDS; c++) {
    const call = async (name: string, args: Record<string, unknown>) =>
      (await chamber.mcp.registry.call(name, args, ctx)).structuredContent as Record<string, unknown>;
    const e = await call("enter_open_challenge", {
      provider_claim: "bench",
      model_claim: "bench-model",
      product: "bench-model",
      host: "cursor",
      seed: `bench-${c}`,
    });
    for (let i = 0; i < ACTIONS; i++) {
      const r = await call("chamber_action", {
        challenge_handle: e.attempt_handle,
        op: "look",
        expected_action_index: i,
      });
      if (r.ok !== true) throw new Error(`action refused: ${JSON.stringify(r)}`);
    }
    const s = await call("seal_attempt", { challenge_handle: e.attempt_handle });
    const proof = await reg.proof(s.card_id as string);
    if (!proof?.log) throw new Error("bench proof has no log inclusion proof");
    const file = join(dir, `${s.card_id as string}.json`);
    writeFileSync(file, canonicalJson(proof));
    files.push(file);
  }
  const keys = await reg.keys();
  // The same registry over HTTP, for `scoreia verify --all --server URL`.
  const serve = async () => {
    const http = await serveHttp({ mcp: chamber.mcp, routes: chamber.routes, port: 0, maxRequestBytes: 1 << 20 });
    return {
      url: `http://127.0.0.1:${http.port}`,
      close: async () => {
        await http.close();
        await database.close();
      },
    };
  };
  return { files, keys, serve };
}

/**
 * Runs `scoreia verify --all --server URL` in this process (its per-card lines silenced) and
 * returns its summary: the mean verification time per card and its ratio to a raw Ed25519 verify
 * that it times itself, in the same run.
 */
async function verifyAllSummary(url: string): Promise<{ line: string; msPerCard: number; rawUnits: number }> {
  const { verifyAll } = await import("scoreia/cli/verify-all.ts");
  const out = process.stdout.write.bind(process.stdout);
  const err = process.stderr.write.bind(process.stderr);
  let summary = "";
  process.stdout.write = (() => true) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    const text = String(chunk);
    if (text.startsWith("scoreia verify --all:")) summary = text.trim();
    return true;
  }) as typeof process.stderr.write;
  let code: number;
  try {
    code = await verifyAll({ all: true, server: url } as Parameters<typeof verifyAll>[0], []);
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
  const m = /([\d.]+) ms per card \(([\d.]+)× a raw Ed25519 verify/.exec(summary);
  if (code !== 0 || !m) throw new Error(`verify --all failed (${code}): ${summary}`);
  return { line: summary, msPerCard: Number(m[1]), rawUnits: Number(m[2]) };
}

export const benchmark: Benchmark = {
  name: "evidence",
  description: "cards verified per second (CLI path: card + log inclusion + replay) vs raw Ed25519, same run",
  async run(argv) {
    const seconds = Number(argv[argv.indexOf("--duration") + 1] ?? "3") || 3;
    const ms = seconds * 1000;
    const dir = mkdtempSync(join(tmpdir(), "scoreia-bench-evidence-"));
    try {
      log(`evidence: sealing ${CARDS} cards of ${ACTIONS} actions each…`);
      const { files, keys, serve } = await makeProofs(dir);
      const trusted = keys as never;
      const known = CardRegistry.knownToolsets();
      const texts = files.map((f) => readFileSync(f, "utf8"));
      const bundles = texts.map((t) => parseStrictJson(t) as ProofBundle);
      for (const b of bundles) {
        const r = verifyProof(b, trusted, known);
        if (r.verdict !== "valid" || !r.steps.some((x) => x.step === "log" && x.ok)) {
          throw new Error(`bench proof does not verify with its log: ${r.message}`);
        }
      }
      // Raw Ed25519 over exactly the statements the cards carry.
      const raw = bundles.map((b) => {
        const key = ed25519PublicKey(Buffer.from(b.key.public_key, "base64url"));
        if (!key) throw new Error("bad key");
        return {
          key,
          msg: statementBytes(sha256Tagged(canonicalJson(b.card)), b.signature.key_id, b.signature.signed_at),
          sig: Buffer.from(b.signature.sig, "base64url"),
        };
      });
      const cycle = <T>(xs: T[]) => {
        let i = 0;
        return () => xs[i++ % xs.length] as T;
      };
      log("evidence: raw Ed25519 verify…");
      const nextRaw = cycle(raw);
      const rawRate = rate(ms, () => {
        const r = nextRaw();
        if (!edVerify(null, r.msg, r.key, r.sig)) throw new Error("raw verify failed");
      });
      log("evidence: CLI path (read file, strict parse, verify every step)…");
      const nextFile = cycle(files);
      const cliRate = rate(ms, () => {
        const text = readFileSync(nextFile(), "utf8");
        if (verifyProof(parseStrictJson(text), trusted, known).verdict !== "valid") throw new Error("verify failed");
      });
      const nextText = cycle(texts);
      const memRate = rate(ms, () => {
        if (verifyProof(parseStrictJson(nextText()), trusted, known).verdict !== "valid") {
          throw new Error("verify failed");
        }
      });

      log("evidence: scoreia verify --all --server (the whole registry, each tree head once)…");
      const served = await serve();
      let all: Awaited<ReturnType<typeof verifyAllSummary>>;
      try {
        all = await verifyAllSummary(served.url);
      } finally {
        await served.close();
      }

      // Each step alone, on the same bundles.
      log("evidence: each step alone…");
      const nextBundle = cycle(bundles);
      const steps: Array<[string, () => void]> = [
        ["read the file", () => readFileSync(nextFile(), "utf8")],
        ["JSON.parse", () => JSON.parse(nextText())],
        ["duplicate-member scan (strict JSON)", () => firstDuplicate(nextText())],
        [
          "card: RFC 8785 + SHA-256 + Ed25519",
          () => {
            const b = nextBundle();
            const stmt = statementBytes(sha256Tagged(canonicalJson(b.card)), b.signature.key_id, b.signature.signed_at);
            if (!edVerify(null, stmt, raw[0]?.key as never, Buffer.from(b.signature.sig, "base64url"))) {
              throw new Error("card verify failed");
            }
          },
        ],
        [
          "replay chain (every event re-hashed)",
          () => {
            const b = nextBundle();
            if (verifyReplay(b.replay, (b.card.replay as { head: string }).head)) throw new Error("replay failed");
          },
        ],
        [
          "log: leaf, signed tree head (Ed25519), inclusion",
          () => {
            const b = nextBundle();
            const card = { card_id: b.card.card_id, card_hash: b.card_hash, signed_at: b.signature.signed_at };
            if (verifyLog(b.log, card, trusted)) throw new Error("log failed");
          },
        ],
        ["manifest: RFC 8785 + SHA-256", () => sha256Tagged(canonicalJson(nextBundle().manifest))],
        [
          "verifyProof, bundle parsed (every step)",
          () => {
            if (verifyProof(nextBundle(), trusted, known).verdict !== "valid") throw new Error("verify failed");
          },
        ],
      ];
      const breakdown = steps.map(([name, fn]) => {
        const r = rate(Math.max(1000, ms / 2), fn);
        return {
          step: name,
          per_second: r.perSecond,
          us_per_card: 1e6 / r.perSecond,
          raw_units: rawRate.perSecond / r.perSecond,
        };
      });

      const bytes = Math.round(texts.reduce((s, t) => s + t.length, 0) / texts.length);
      const events = (bundles[0] as ProofBundle).replay.events.length;
      const machine = machineInfo();
      const ratio = rawRate.perSecond / cliRate.perSecond;
      const rows = [
        ["raw Ed25519 verify", fmt(rawRate.perSecond, 0), "1.00×"],
        [
          "CLI path: read + strict parse + verify proof (card, replay, log)",
          fmt(cliRate.perSecond, 0),
          `${fmt(ratio)}× slower`,
        ],
        [
          "same, bundle text already in memory",
          fmt(memRate.perSecond, 0),
          `${fmt(rawRate.perSecond / memRate.perSecond)}× slower`,
        ],
        [
          "`verify --all --server`: every step incl. consistency, network excluded",
          fmt(1000 / all.msPerCard, 0),
          `${fmt(all.rawUnits)}× slower (raw timed by the CLI itself)`,
        ],
      ];
      const stepRows = breakdown.map((b) => [b.step, fmt(b.us_per_card, 1), `${fmt(b.raw_units)}×`]);
      const verdict = ratio <= 2 ? "meets" : "MISSES";
      const md = [
        `# Evidence verification — ${new Date().toISOString().slice(0, 10)}`,
        "",
        `Proof bundles of ${events} replay events (${CARDS} distinct cards of ${ACTIONS} actions, the current generation: values and`,
        `observations committed, §14.2; each with its transparency-log inclusion proof and signed tree head, §15), ${bytes} bytes`,
        "each on average, verified exactly as `scoreia verify FILE` does: read, strict JSON parse (duplicate members refused),",
        "then `verifyProof`: shape, canonical form, key, signature, key window, replay chain (every event re-hashed), manifest,",
        `policy, log. Raw Ed25519 = node:crypto verify of the same signature statements. ${seconds} s per row, one core.`,
        "",
        `Machine: ${machineLine(machine)}. Load average (1 min) at the end: ${fmt(machine.load_avg_1m ?? Number.NaN)}.`,
        "",
        markdownTable(["path", "cards/s", "vs raw"], rows, ["l", "r", "r"]),
        "",
        `Target: CLI path within 2× of raw Ed25519 — ${verdict} (${fmt(ratio)}×).`,
        "",
        `\`scoreia verify --all --server URL\` over the same ${CARDS} cards, served by the real HTTP routes: keys and the current`,
        "tree head fetched once, one consistency proof per distinct bundle head, each tree head's signature verified once;",
        `its own summary line: \`${all.line}\`.`,
        "",
        "Each step alone (µs per card, and in units of one raw Ed25519 verify of the same run):",
        "",
        markdownTable(["step", "µs/card", "raw verifies"], stepRows, ["l", "r", "r"]),
      ].join("\n");
      log(md);
      const paths = writeResults(
        "evidence",
        {
          machine,
          cards: CARDS,
          actions: ACTIONS,
          events_per_replay: events,
          bytes_per_proof: bytes,
          raw: rawRate,
          cli: cliRate,
          in_memory: memRate,
          ratio,
          breakdown,
          verify_all: { ms_per_card: all.msPerCard, raw_units: all.rawUnits, summary: all.line },
        },
        md,
      );
      log(`written: ${paths.json}, ${paths.markdown}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

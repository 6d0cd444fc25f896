/**
 * The Codex at registry scale (issue 16 §6: /codex.json was recomputed from every card on every
 * request, 338 ms at 20,000 cards, and a 304 cost the same). Now it is kept as counters in the
 * transaction that signs a card; this measures GET /codex.json and its 304 over real HTTP at
 * 1,000 and 100,000 cards, against the old recomputation (parse every stored card, group) in the
 * same run. Filling: a few real seals, then card rows inserted with the sign-time Codex update
 * (`addToCodex`, the code the signing transaction runs) for each — sealing 100,000 attempts would
 * take minutes and measure the lifecycle, not the Codex.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock, openDatabase, serveHttp } from "kernel";
import { chamberOn, migrateChamber } from "scoreia/app.ts";
import type { ChamberDB } from "scoreia/attempts/schema.ts";
import { addToCodex, recomputeCodex } from "scoreia/evidence/codex.ts";
import { canonicalJson } from "scoreia/evidence/jcs.ts";
import { LocalKeyring } from "scoreia/evidence/signer.ts";
import { type Benchmark, fmt, log, machineInfo, machineLine, markdownTable, summarize, writeResults } from "./lib.ts";

const SIZES = [1_000, 100_000];
const SUBJECTS = 200;
const VERDICTS = ["solved", "failed", "exhausted", "abandoned"];

async function timed(n: number, fn: () => Promise<void>): Promise<ReturnType<typeof summarize>> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return summarize(out);
}

export const benchmark: Benchmark = {
  name: "codex",
  description: "GET /codex.json and its 304 at 1,000 and 100,000 cards, vs recomputing from every card, same run",
  async run(argv) {
    const requests = Number(argv[argv.indexOf("--requests") + 1] ?? "200") || 200;
    const dir = mkdtempSync(join(tmpdir(), "scoreia-bench-codex-"));
    const database = await openDatabase<ChamberDB>(join(dir, "codex.db"));
    await migrateChamber(database);
    const clock = new ManualClock();
    const chamber = chamberOn(database, { clock, signer: LocalKeyring.ephemeral(clock) });
    const ctx = { mcpSession: "bench" };
    const call = async (name: string, args: Record<string, unknown>) =>
      (await chamber.mcp.registry.call(name, args, ctx)).structuredContent as Record<string, unknown>;
    const rows: Array<Array<string>> = [];
    const raw: Record<string, unknown> = {};
    try {
      // A real signed card: its body is the template of the inserted ones.
      const e = await call("enter_open_challenge", {
        provider_claim: "bench",
        model_claim: "bench-model",
        product: "bench-model",
        host: "cursor",
      });
      await call("chamber_action", { challenge_handle: e.attempt_handle, op: "look" });
      const sealed = await call("seal_attempt", { challenge_handle: e.attempt_handle });
      const template = (await chamber.registry.get(sealed.card_id as string))?.card as Record<string, unknown>;
      let have = 1;
      for (const size of SIZES) {
        log(`codex: filling to ${size} cards…`);
        while (have < size) {
          const batch = Math.min(2000, size - have);
          await database.transaction(async (trx) => {
            for (let i = 0; i < batch; i++) {
              const n = have + i;
              const id = `sia-${n.toString(16).padStart(32, "0")}`;
              const card = {
                ...template,
                card_id: id,
                seed: `seed-${n % 97}`,
                verdict: VERDICTS[n % 4],
                identity: { ...(template.identity as object), declared_model: `model-${n % SUBJECTS}` },
              };
              await trx
                .insertInto("chamber_cards")
                .values({
                  card_id: id,
                  handle: null,
                  card_version: "0.2",
                  body_json: canonicalJson(card),
                  signature_json: null,
                  evidence_status: "signed",
                  created_at: new Date(Date.parse("2026-01-01T00:00:00Z") + n * 1000).toISOString(),
                  signed_at: null,
                })
                .execute();
              await addToCodex(trx, card);
            }
          });
          have += batch;
        }
        // A fresh listener per size: a keep-alive connection left idle through the fill would be stale.
        const http = await serveHttp({ mcp: chamber.mcp, routes: chamber.routes, port: 0, maxRequestBytes: 65536 });
        const base = `http://127.0.0.1:${http.port}`;
        const first = await fetch(`${base}/codex.json`);
        const etag = first.headers.get("etag") as string;
        const bytes = (await first.arrayBuffer()).byteLength;
        log(`codex: ${size} cards: GET /codex.json ×${requests}…`);
        const full = await timed(requests, async () => {
          const r = await fetch(`${base}/codex.json`);
          await r.arrayBuffer();
          if (r.status !== 200) throw new Error(`status ${r.status}`);
        });
        const cached = await timed(requests, async () => {
          const r = await fetch(`${base}/codex.json`, { headers: { "if-none-match": etag } });
          await r.arrayBuffer();
          if (r.status !== 304) throw new Error(`status ${r.status}`);
        });
        // Anchor in the same run: a small public document through the same HTTP path.
        const anchor = await timed(requests, async () => {
          const r = await fetch(`${base}/.well-known/scoreia-keys.json`);
          await r.arrayBuffer();
        });
        log(`codex: ${size} cards: the old recomputation (parse every card, group)…`);
        const recompute = await timed(Math.max(3, Math.round(requests / 40)), async () => {
          const all = await database.db.selectFrom("chamber_cards").select("body_json").execute();
          recomputeCodex(all.map((r) => JSON.parse(r.body_json)));
        });
        await http.close();
        raw[String(size)] = { full, cached, recompute, anchor, bytes };
        rows.push([
          String(size),
          fmt(anchor.p50_ms, 2),
          fmt(full.p50_ms, 2),
          fmt(full.p95_ms, 2),
          fmt(cached.p50_ms, 2),
          fmt(recompute.p50_ms, 1),
          `${fmt(recompute.p50_ms / full.p50_ms, 0)}×`,
          String(bytes),
        ]);
      }
    } finally {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    }
    const machine = machineInfo();
    const table = markdownTable(
      [
        "cards",
        "anchor: GET keys p50 ms",
        "GET /codex.json p50 ms",
        "p95 ms",
        "304 p50 ms",
        "old recomputation p50 ms",
        "old / now",
        "body bytes",
      ],
      rows,
      ["r", "r", "r", "r", "r", "r", "r", "r"],
    );
    const md = `# codex\n\n${machineLine(machine)}\n\nSQLite, ${SUBJECTS} subjects, real HTTP on loopback. The old recomputation is what /codex.json did per request before the Codex was kept at signing.\n\n${table}\n`;
    log(md);
    if (!argv.includes("--no-write")) {
      const out = writeResults("codex", { machine, subjects: SUBJECTS, requests, results: raw }, md);
      log(`wrote ${out.json} and ${out.markdown}`);
    }
  },
};

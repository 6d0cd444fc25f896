/**
 * `scoreia verify` as a real process: proof files (valid, tampered, unknown key, no keys),
 * historical cards, the local database, and --server against a small HTTP server that serves
 * the public JSON (proofs, keys, cards) from a CardRegistry — the CLI never asks it for a verdict.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Chamber, openChamber } from "../../src/app.ts";
import { canonicalJson, sha256Tagged } from "../../src/evidence/jcs.ts";
import { CardRegistry } from "../../src/evidence/registry.ts";
import { KeyringDir } from "../../src/evidence/remote-signer.ts";
import { LocalKeyring, SwitchableSigner } from "../../src/evidence/signer.ts";
import type { ProofBundle } from "../../src/evidence/verify.ts";
import * as logRoutes from "../../src/http/log.ts";
import { tempDir } from "../e2e/support.ts";
import { connect, IDENTITY } from "../support/chamber.ts";
import { oneLine, run } from "./support.ts";

const tmp = tempDir("cli-verify");
const dataDir = join(tmp.dir, "data");
const emptyDir = join(tmp.dir, "empty");
const dbFile = join(tmp.dir, "c.db");
const file = (name: string) => join(tmp.dir, name);

let chamber: Chamber;
let client: Client;
let http: Server;
let url: string;
const ids = { valid: "", other: "", pending: "", sia16: "sia-00112233445566ff", oly16: "oly-0123456789abcdef" };

async function seal(): Promise<string> {
  const e = (await client.callTool({ name: "enter_open_challenge", arguments: IDENTITY })).structuredContent as {
    attempt_handle: string;
  };
  const s = await client.callTool({ name: "seal_attempt", arguments: { challenge_handle: e.attempt_handle } });
  return (s.structuredContent as { card_id: string }).card_id;
}

function historical(cardId: string, withHash: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {
    card_version: "0.1",
    card_id: cardId,
    issued_at: "2025-06-01T10:00:00.000Z",
    verdict: "solved",
  };
  return withHash ? { ...body, content_hash: sha256Tagged(canonicalJson(body)) } : body;
}

beforeAll(async () => {
  mkdirSync(emptyDir);
  const signer = new SwitchableSigner(KeyringDir.open(join(dataDir, "keys")));
  chamber = await openChamber({ db: dbFile, signer });
  client = await connect(chamber, "cli-verify");
  ids.valid = await seal();
  ids.other = await seal();
  signer.available = false;
  ids.pending = await seal();
  const registry = new CardRegistry(chamber.database);
  await registry.importHistorical(
    [historical(ids.sia16, true), historical(ids.oly16, false)],
    new Date().toISOString(),
  );

  const proof = (await registry.proof(ids.valid)) as ProofBundle;
  writeFileSync(file("proof.json"), JSON.stringify(proof, null, 2));
  writeFileSync(file("tampered.json"), JSON.stringify({ ...proof, card: { ...proof.card, verdict: "solved" } }));
  writeFileSync(file("card-only.json"), JSON.stringify(proof.card));
  writeFileSync(file("hist.json"), JSON.stringify(historical(ids.sia16, true)));
  writeFileSync(file("hist-bad.json"), JSON.stringify({ ...historical(ids.sia16, true), verdict: "failed" }));
  writeFileSync(file("not-json.json"), "{ this is not json");
  // A second "verdict" member: JSON.parse keeps the last one, another parser may keep the first.
  const text = canonicalJson(proof);
  writeFileSync(file("duplicate.json"), text.replace('"verdict":', '"verdict":"solved","verdict":'));
  writeFileSync(file("second-card.json"), `{"card":{"card_id":"forged"},${text.slice(1)}`);
  writeFileSync(file("other-keys.json"), JSON.stringify({ keys: await LocalKeyring.ephemeral().publicKeys() }));

  // The public JSON a ScoreIA server exposes, straight from the registry. /evil/ answers every
  // proof request with the proof of another (valid) card.
  http = createServer((req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    void (async () => {
      const path = req.url ?? "/";
      let m = /^\/(evil\/)?proofs\/([a-z0-9-]+)\.json$/.exec(path);
      if (m) {
        const proof = await registry.proof(m[1] ? ids.other : (m[2] as string));
        if (proof) return reply(200, proof);
        const known = await registry.get(m[2] as string);
        if (known?.card_version === "0.2") return reply(409, { error: "pending_signature", message: "pending" });
        return reply(404, { error: known ? "unsigned_historical" : "card_not_found", message: "no native proof" });
      }
      // The transparency log, answered by the server's own handlers (http/log.ts).
      if (/^(\/evil)?\/log\/tree-head\.json$/.test(path)) {
        const r = await logRoutes.treeHead(registry.log);
        return reply(r.status, r.body);
      }
      const q = new URL(path, "http://x").searchParams;
      if (/^(\/evil)?\/log\/consistency\.json/.test(path)) {
        const r = await logRoutes.consistency(registry.log, q.get("first"), q.get("second"));
        return reply(r.status, r.body);
      }
      if (/^(\/evil)?\/\.well-known\/scoreia-keys\.json$/.test(path))
        return reply(200, { keys: await registry.keys() });
      m = /^\/(?:cards|open-labyrinth\/cards)\/([a-z0-9-]+)\.json$/.exec(path);
      const labyrinth = path.startsWith("/open-labyrinth/");
      if (m && labyrinth === /^oly-[0-9a-f]{16}$/.test(m[1] as string)) {
        const stored = await registry.get(m[1] as string);
        if (stored) return reply(200, stored.card);
      }
      return reply(404, { ok: false, error: "not found" });
    })().catch((e) => reply(500, { error: String(e) }));
  });
  await new Promise<void>((ok) => http.listen(0, "127.0.0.1", ok));
  url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await client?.close();
  await new Promise((ok) => http?.close(ok));
  await chamber?.close();
  tmp.remove();
});

const VALID = /^valid sia-[0-9a-f]{32} \(signed by ed25519-[0-9a-f]{16} at \d{4}-\d\d-\d\dT[\d:.]+Z\)$/;
const VALID_OFFLINE =
  /^valid sia-[0-9a-f]{32} \(signed by ed25519-[0-9a-f]{16} at \d{4}-\d\d-\d\dT[\d:.]+Z; log consistency NOT checked: .*--server URL or --head FILE\)$/;

describe.concurrent("scoreia verify FILE", () => {
  it("a proof with a duplicated member name → 1 and `invalid: … duplicate member`", async () => {
    for (const name of ["duplicate.json", "second-card.json"]) {
      const r = await run(["verify", file(name), "--data-dir", dataDir]);
      expect(r.code, name).toBe(1);
      expect(oneLine(r)).toMatch(/^invalid: .*duplicate member name "(verdict|card)"/);
    }
  });

  it("--server checks the card's inclusion and the log's consistency with the current tree head", async () => {
    await seal(); // the log grows after the proof's head: consistency covers a real extension
    const r = await run(["verify", ids.valid, "--server", url, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const steps = (JSON.parse(r.stdout) as { steps: Array<{ step: string; detail?: string }> }).steps;
    expect(steps.at(-2)?.detail).toMatch(/^leaf \d+ of \d+$/);
    expect(steps.at(-1)).toEqual({
      step: "consistency",
      ok: true,
      detail: expect.stringMatching(/^tree head of size \d+ is consistent with the trusted head of size \d+$/),
    });
    expect(r.stderr).toMatch(/GET .*\/log\/consistency\.json\?first=\d+&second=\d+/);
  });

  it("a proof bundle with the local keyring's keys → 0 and one line `valid …`, consistency NOT checked", async () => {
    const r = await run(["verify", file("proof.json"), "--data-dir", dataDir]);
    expect(r.code, r.stderr).toBe(0);
    expect(oneLine(r)).toMatch(VALID_OFFLINE);
    expect(oneLine(r)).toContain(ids.valid);
  });

  it("a proof bundle with --server: the server's keys and its current head (step 10 checked) → 0", async () => {
    const r = await run(["verify", file("proof.json"), "--server", url]);
    expect(r.code, r.stderr).toBe(0);
    expect(oneLine(r)).toMatch(VALID);
    expect(r.stderr).toContain(`GET ${url}/log/tree-head.json`);
  });

  it("a tampered proof → 1 and `invalid: <step>: …`", async () => {
    const r = await run(["verify", file("tampered.json"), "--data-dir", dataDir]);
    expect(r.code).toBe(1);
    expect(oneLine(r)).toMatch(/^invalid: canonical_form: card_hash is not SHA-256/);
  });

  it("keys that did not sign it → 3 (unknown key), whether pinned or absent", async () => {
    const pinned = await run(["verify", file("proof.json"), "--keys", file("other-keys.json")]);
    expect(pinned.code).toBe(3);
    expect(oneLine(pinned)).toMatch(/^unknown key: key ed25519-[0-9a-f]{16} is not among the trusted/);
    expect(oneLine(pinned)).toContain("other-keys.json");
    const none = await run(["verify", file("proof.json"), "--data-dir", emptyDir]);
    expect(none.code).toBe(3);
    expect(oneLine(none)).toMatch(/^unknown key: .*\(trusted keys: none/);
  });

  it("a historical card → 4 `unsigned historical`; a historical card whose hash fails → 1", async () => {
    const r = await run(["verify", file("hist.json")]);
    expect(r.code).toBe(4);
    expect(oneLine(r)).toMatch(new RegExp(`^unsigned historical: ${ids.sia16} `));
    const bad = await run(["verify", file("hist-bad.json")]);
    expect(bad.code).toBe(1);
    expect(oneLine(bad)).toBe("invalid: content_hash_mismatch: content_hash does not match");
  });

  it("--json prints the whole verification result", async () => {
    const r = await run(["verify", file("proof.json"), "--json", "--data-dir", dataDir]);
    expect(r.code).toBe(0);
    const result = JSON.parse(r.stdout);
    expect(result).toMatchObject({ verdict: "valid", card_id: ids.valid });
    expect(result.steps.map((s: { step: string }) => s.step)).toEqual([
      "shape",
      "canonical_form",
      "key",
      "signature",
      "key_window",
      "replay",
      "manifest",
      "policy",
      "log",
      "consistency",
    ]);
    const bad = JSON.parse((await run(["verify", file("tampered.json"), "--json", "--data-dir", dataDir])).stdout);
    expect(bad).toMatchObject({ verdict: "invalid", code: "card_hash_mismatch" });
  });

  it("unreadable input: no such file → 6; not JSON → 1; a bare native card → 2 (needs its proof)", async () => {
    const [missing, notJson, bare] = await Promise.all([
      run(["verify", file("nope.json")]),
      run(["verify", file("not-json.json")]),
      run(["verify", file("card-only.json")]),
    ]);
    expect(missing.code).toBe(6);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toMatch(/no such file/);
    expect(notJson.code).toBe(1);
    expect(oneLine(notJson)).toMatch(/^invalid: shape: .* is not JSON/);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/not its proof bundle/);
  });
});

describe.concurrent("scoreia verify CARD_ID", () => {
  it("--server: fetches the proof and the server's keys and verifies here → 0", async () => {
    const r = await run(["verify", ids.valid, "--server", url]);
    expect(r.code, r.stderr).toBe(0);
    expect(oneLine(r)).toMatch(VALID);
    expect(r.stderr).toContain(`GET ${url}/proofs/${ids.valid}.json`);
    expect(r.stderr).toContain(`GET ${url}/.well-known/scoreia-keys.json`);
    expect(r.stderr).not.toContain("/verify/");
  });

  it("--server with --keys uses the pinned keys, not the server's", async () => {
    const r = await run(["verify", ids.valid, "--server", `${url}/`, "--keys", file("other-keys.json")]);
    expect(r.code).toBe(3);
    expect(r.stderr).not.toContain("scoreia-keys.json");
  });

  it("--server: historical sia-16 and oly-16 → 4; a card waiting for its signature → 5", async () => {
    const [sia, oly, pending] = await Promise.all([
      run(["verify", ids.sia16, "--server", url]),
      run(["verify", ids.oly16, "--server", url]),
      run(["verify", ids.pending, "--server", url]),
    ]);
    expect([sia.code, oneLine(sia)]).toEqual([4, expect.stringMatching(/^unsigned historical: sia-/)]);
    expect([oly.code, oneLine(oly)]).toEqual([4, expect.stringMatching(/^unsigned historical: oly-/)]);
    expect(oly.stderr).toContain(`/open-labyrinth/cards/${ids.oly16}.json`);
    expect([pending.code, oneLine(pending)]).toEqual([5, expect.stringMatching(/^pending signature: /)]);
  });

  it("--server that answers with the valid proof of another card → 1", async () => {
    const r = await run(["verify", ids.valid, "--server", `${url}/evil`]);
    expect(r.code).toBe(1);
    expect(oneLine(r)).toBe(`invalid: shape: the server sent the proof of ${ids.other}, not ${ids.valid}`);
  });

  it("--server unreachable, or the card unknown there → 6", async () => {
    const closed = createServer();
    await new Promise<void>((ok) => closed.listen(0, "127.0.0.1", ok));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((ok) => closed.close(ok));
    const [down, unknown] = await Promise.all([
      run(["verify", ids.valid, "--server", `http://127.0.0.1:${port}`]),
      run(["verify", `sia-${"0".repeat(32)}`, "--server", url]),
    ]);
    expect(down.code).toBe(6);
    expect(down.stderr).toMatch(/ECONNREFUSED/);
    expect(unknown.code).toBe(6);
    expect(unknown.stderr).toMatch(/not found on .*no native proof/);
  });

  it("without --server: the local database (valid 0, historical 4, pending 5, absent 6)", async () => {
    const results = await Promise.all(
      [ids.valid, ids.oly16, ids.pending, `oly-${"a".repeat(32)}`].map((id) => run(["verify", id, "--db", dbFile])),
    );
    expect(results.map((r) => r.code)).toEqual([0, 4, 5, 6]);
    expect(oneLine(results[0] as never)).toMatch(VALID);
  });
});

describe.concurrent("scoreia verify usage", () => {
  it("usage errors → 2; --help documents the exit codes", async () => {
    const [none, both, stray, help] = await Promise.all([
      run(["verify"]),
      run(["verify", "--all", file("proof.json"), "--server", url]),
      run(["verify", file("proof.json"), "--port", "3"]),
      run(["--help"]),
    ]);
    expect([none.code, both.code, stray.code]).toEqual([2, 2, 2]);
    expect(help.code).toBe(0);
    for (const line of [
      "0  valid",
      "1  invalid",
      "2  usage error",
      "3  unknown key",
      "4  unsigned historical",
      "5  pending signature",
      "6  network or I/O error",
    ]) {
      expect(help.stdout).toContain(line);
    }
  });
});

/**
 * Issue 28: a card backdated with a retired key and carrying a forged one-leaf log passes every
 * step a proof can check by itself. `scoreia verify FILE --server URL` (the real binary, against
 * the real HTTP routes) and `--head FILE` refuse it at step 10 (consistency); offline, the valid
 * line says that consistency was not checked. `/verify/{id}.json` reports step 10 too, and
 * `verify --all --server` checks the whole registry.
 */
import { createPrivateKey, sign } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type HttpHandle, ManualClock, serveHttp } from "kernel";
import { openTestDatabase } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Chamber, chamberOn, migrateChamber } from "../../src/app.ts";
import type { ChamberDB } from "../../src/attempts/schema.ts";
import { CURRENT_TOOLSET } from "../../src/contract/index.ts";
import { canonicalJson, sha256Tagged } from "../../src/evidence/jcs.ts";
import { LEAF_TYPE, type LogLeaf, logLeafHash } from "../../src/evidence/log.ts";
import {
  LocalKeyring,
  SwitchableSigner,
  statementBytes,
  TREE_HEAD_TYPE,
  treeHeadBytes,
} from "../../src/evidence/signer.ts";
import type { ProofBundle } from "../../src/evidence/verify.ts";
import { tempDir } from "../e2e/support.ts";
import { IDENTITY } from "../support/chamber.ts";
import { oneLine, run } from "./support.ts";

const tmp = tempDir("cli-forgery");
const file = (name: string) => join(tmp.dir, name);
let chamber: Chamber;
let http: HttpHandle;
let url: string;
let close: () => Promise<void>;
let realId = "";
const forgedId = `sia-${"ab".repeat(16)}`;

beforeAll(async () => {
  const db = await openTestDatabase<ChamberDB>("sqlite");
  await migrateChamber(db);
  const clock = new ManualClock();
  const keysDir = file("keys");
  const keyring = LocalKeyring.open(keysDir, clock);
  chamber = chamberOn(db, { clock, signer: new SwitchableSigner(keyring) });
  const seal = async () => {
    const e = await chamber.service.enter({ ...IDENTITY }, { mcpSession: "m" });
    return (await chamber.service.seal({ challenge_handle: e.attempt_handle }, { mcpSession: "m" })).card_id as string;
  };
  realId = await seal();
  const real = (await chamber.registry.proof(realId)) as ProofBundle;
  writeFileSync(file("real.json"), canonicalJson(real));
  const oldId = keyring.currentKeyId;
  const leaked = createPrivateKey(readFileSync(join(keysDir, `${oldId}.pem`))); // the copy an attacker kept
  clock.advance(60_000);
  keyring.rotate();
  clock.advance(60_000);
  await seal();
  await seal(); // the real log has grown past the real card's frozen head

  // The forgery: a "solved" card, backdated into the retired key's window, with a one-leaf log
  // whose head the same leaked key signed, backdated too.
  const card = { ...real.card, card_id: forgedId, verdict: "solved" };
  const cardHash = sha256Tagged(canonicalJson(card));
  const signedAt = real.signature.signed_at;
  const sig = sign(null, statementBytes(cardHash, oldId, signedAt), leaked).toString("base64url");
  const leaf: LogLeaf = {
    type: LEAF_TYPE,
    card_id: forgedId,
    card_hash: cardHash,
    signed_at: signedAt,
    logged_at: signedAt,
  };
  const head = {
    type: TREE_HEAD_TYPE,
    tree_size: 1,
    root_hash: `sha256:${logLeafHash(leaf).toString("hex")}`,
    timestamp: signedAt,
    key_id: oldId,
  } as const;
  const forged = {
    ...real,
    card,
    card_hash: cardHash,
    signature: { ...real.signature, sig },
    replay: { ...real.replay, card_id: forgedId },
    log: {
      index: 0,
      leaf,
      tree_head: { ...head, sig: sign(null, treeHeadBytes(head), leaked).toString("base64url") },
      inclusion: [],
    },
  };
  writeFileSync(file("forged.json"), canonicalJson(forged));
  writeFileSync(file("keys.json"), JSON.stringify({ keys: await chamber.registry.keys() }));

  http = await serveHttp({
    mcp: chamber.mcp,
    routes: chamber.routes,
    port: 0,
    maxRequestBytes: CURRENT_TOOLSET.limits.max_request_bytes,
  });
  url = `http://127.0.0.1:${http.port}`;
  const current = await (await fetch(`${url}/log/tree-head.json`)).json();
  writeFileSync(file("head.json"), JSON.stringify(current));
  close = async () => {
    await http.close();
    await db.close();
  };
});

afterAll(async () => {
  await close?.();
  tmp.remove();
});

const VALID = /^valid sia-[0-9a-f]{32} \(signed by ed25519-[0-9a-f]{16} at [\d\-T:.]+Z\)$/;

describe.concurrent("a backdated card with a forged one-leaf log", () => {
  it("offline: valid, and the line says plainly that log consistency was not checked", async () => {
    const r = await run(["verify", file("forged.json"), "--keys", file("keys.json")]);
    expect(r.code).toBe(0);
    expect(oneLine(r)).toContain("log consistency NOT checked");
    const json = JSON.parse((await run(["verify", file("forged.json"), "--keys", file("keys.json"), "--json"])).stdout);
    expect(json.steps.at(-1)).toMatchObject({ step: "consistency", ok: true, checked: false });
  });

  it("verify FILE --server URL: refused at step 10 against the server's current head (exit 1)", async () => {
    const r = await run(["verify", file("forged.json"), "--server", url]);
    expect(r.code, r.stderr).toBe(1);
    expect(oneLine(r)).toMatch(
      /^invalid: consistency: the proof's tree head \(size 1\) and the trusted head \(size 3\)/,
    );
    expect(r.stderr).toContain(`GET ${url}/log/tree-head.json`);
    expect(r.stderr).toContain(`GET ${url}/log/consistency.json?first=1&second=3`);
    const json = JSON.parse((await run(["verify", file("forged.json"), "--server", url, "--json"])).stdout);
    expect(json).toMatchObject({ verdict: "invalid", code: "log_inconsistent" });
    expect(json.steps.at(-1)).toMatchObject({ step: "consistency", ok: false });
  });

  it("verify FILE --head FILE (a pinned head) refuses it too; the real card passes both ways", async () => {
    const forged = await run([
      "verify",
      file("forged.json"),
      "--keys",
      file("keys.json"),
      "--head",
      file("head.json"),
      "--server",
      url,
    ]);
    expect(forged.code).toBe(1);
    expect(oneLine(forged)).toMatch(/^invalid: consistency: /);
    expect(forged.stderr).not.toContain("/log/tree-head.json"); // the pinned head, not the server's
    const real = await run(["verify", file("real.json"), "--server", url]);
    expect(real.code, real.stderr).toBe(0);
    expect(oneLine(real)).toMatch(VALID);
    const pinned = await run([
      "verify",
      file("real.json"),
      "--keys",
      file("keys.json"),
      "--head",
      file("head.json"),
      "--server",
      url,
    ]);
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(oneLine(pinned)).toMatch(VALID);
  });

  it("--head FILE without --server and without a saved consistency proof is a usage error (2)", async () => {
    const r = await run(["verify", file("real.json"), "--keys", file("keys.json"), "--head", file("head.json")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/need a consistency proof between them/);
  });

  it("/verify/{id}.json reports step 10 against the server's current head", async () => {
    const body = (await (await fetch(`${url}/verify/${realId}.json`)).json()) as {
      verdict: string;
      steps: Array<{ step: string }>;
    };
    expect(body.verdict).toBe("valid");
    expect(body.steps.map((s: { step: string }) => s.step).slice(-2)).toEqual(["log", "consistency"]);
    expect(body.steps.at(-1)).toEqual({
      step: "consistency",
      ok: true,
      detail: "tree head of size 1 is consistent with the trusted head of size 3",
    });
  });

  it("verify --all --server checks every card, with the per-card cost against raw Ed25519", async () => {
    const r = await run(["verify", "--all", "--server", url]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(3);
    expect(r.stdout).toContain(`valid ${realId}`);
    expect(r.stderr).toMatch(/3 valid; [\d.]+ ms per card \([\d.]+× a raw Ed25519 verify/);
    expect((r.stderr.match(/log\/tree-head\.json/g) ?? []).length).toBe(1);
  });
});

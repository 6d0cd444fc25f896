/**
 * The signer as its own process: `scoreia signer` holds the keys, `scoreia serve --signer unix:…`
 * (stdio, driven by the SDK client) signs through it. Killing the signer leaves cards
 * pending_signature; restarting it signs them unchanged; rotating its keyring while everything
 * runs keeps every card verifying.
 */
import { statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { RemoteSigner } from "../../src/evidence/remote-signer.ts";
import type { CardSignature } from "../../src/evidence/signer.ts";
import { IDENTITY, readSqliteCard, type Session, type StdioServer, startStdio, tempDir } from "../e2e/support.ts";
import { oneLine, run, type SignerProcess, startSigner, talk } from "./support.ts";

const tmp = tempDir("cli-signer");
const signerDir = join(tmp.dir, "signer");
const serveDir = join(tmp.dir, "serve");
const socket = join(tmp.dir, "signer.sock");
const dbFile = join(tmp.dir, "c.db");
let signer: SignerProcess;
let server: StdioServer;

beforeAll(async () => {
  signer = await startSigner(socket, signerDir);
  server = await startStdio(["--db", dbFile, "--data-dir", serveDir, "--signer", `unix:${socket}`], "cli-signer");
});

afterAll(async () => {
  await server?.stop();
  await signer?.kill("SIGTERM");
  tmp.remove();
});

/** enter + seal straight away (an abandoned attempt still gets its card). */
async function enterAndSeal(s: Session): Promise<{ handle: string; sealed: Record<string, unknown> }> {
  const e = await s.sc("enter_open_challenge", IDENTITY);
  const handle = e.attempt_handle as string;
  return { handle, sealed: await s.sc("seal_attempt", { challenge_handle: handle }) };
}

async function keysList(dir: string): Promise<Array<Record<string, unknown>>> {
  const r = await run(["keys", "list", "--data-dir", dir]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { keys: Array<Record<string, unknown>> }).keys;
}

function signatureOf(cardId: string): { key_id: string; signed_at: string } {
  return JSON.parse(readSqliteCard(dbFile, cardId).signature_json ?? "null");
}

const cards: string[] = [];

describe("scoreia signer", () => {
  it("listens on a socket only its owner may use (0600), and answers sign and keys only", async () => {
    expect(statSync(socket).isSocket()).toBe(true);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    const replies = await talk(socket, [
      JSON.stringify({ id: 1, op: "keys" }),
      JSON.stringify({ id: 2, op: "sign", card_hash: `sha256:${"ab".repeat(32)}` }),
      JSON.stringify({ id: 3, op: "sign", card_hash: `sha256:${"AB".repeat(32)}` }),
      JSON.stringify({ id: 4, op: "sign", card_hash: "hello, sign this" }),
      JSON.stringify({ id: 5, op: "sign", card_hash: `sha256:${"ab".repeat(32)}`, bytes: "ZXZpbA" }),
      JSON.stringify({ id: 6, op: "sign_raw", data: "ZXZpbA" }),
      "not json",
      "[1,2]",
    ]);
    expect(replies[0]).toMatchObject({ id: 1, ok: true, keys: [{ alg: "Ed25519", not_after: null }] });
    expect(replies[1]).toMatchObject({
      id: 2,
      ok: true,
      signature: { alg: "Ed25519", type: "scoreia.card.signature/0.2" },
    });
    for (const [i, r] of replies.slice(2).entries()) {
      expect(r.ok, JSON.stringify(r)).toBe(false);
      expect(typeof r.error).toBe("string");
      expect(r).not.toHaveProperty("signature");
      if (i < 4) expect(r.id).toBe(i + 3);
    }
    expect(replies[2]?.code).toBe("bad_card_hash");
    expect(replies[5]?.code).toBe("unknown_op");
    await vi.waitFor(() => expect(signer.stderr()).toContain("refused: bad_card_hash"));
  });

  it("refuses a second signer on a live socket, and a socket path that is a regular file", async () => {
    await expect(startSigner(socket, signerDir)).rejects.toThrow(/already answering/);
    const file = join(tmp.dir, "not-a-socket");
    writeFileSync(file, "keep me");
    await expect(startSigner(file, signerDir)).rejects.toThrow(/not a socket/);
  });

  it("serve --signer unix:… seals to a card signed by the signer's key", async () => {
    const { sealed } = await enterAndSeal(server.session);
    expect(sealed).toMatchObject({ ok: true, attempt_state: "sealed", evidence_status: "signed" });
    const keys = await keysList(signerDir);
    expect(signatureOf(sealed.card_id as string).key_id).toBe(keys[0]?.key_id);
    expect(server.stderr()).toContain(`signer unix:${socket} (current key ${keys[0]?.key_id})`);
    cards.push(sealed.card_id as string);
  });

  it("signer killed → signature_unavailable and pending_signature; restarted → the same card is signed", async () => {
    await signer.kill("SIGKILL");
    const { handle, sealed } = await enterAndSeal(server.session);
    expect(sealed).toMatchObject({
      ok: false,
      code: "signature_unavailable",
      attempt_state: "pending_signature",
      evidence_status: "pending_signature",
      retryable: true,
    });
    const cardId = sealed.card_id as string;
    const before = readSqliteCard(dbFile, cardId);
    expect(before.evidence_status).toBe("pending_signature");
    expect(before.signature_json).toBeNull();
    const again = await server.session.sc("seal_attempt", { challenge_handle: handle });
    expect(again).toMatchObject({ ok: false, code: "evidence_pending", already_sealed: true, card_id: cardId });
    const pending = await run(["verify", cardId, "--db", dbFile]);
    expect([pending.code, oneLine(pending)]).toEqual([5, expect.stringMatching(/^pending signature: /)]);

    signer = await startSigner(socket, signerDir); // replaces the stale socket file
    const done = await server.session.sc("seal_attempt", { challenge_handle: handle });
    expect(done).toMatchObject({ ok: true, attempt_state: "sealed", evidence_status: "signed", card_id: cardId });
    const after = readSqliteCard(dbFile, cardId);
    expect(after.evidence_status).toBe("signed");
    expect(after.body_json).toBe(before.body_json);
    cards.push(cardId);
  });

  it("keys rotate while signer and server run: later cards use the new key, every card verifies", async () => {
    const [oldKey] = await keysList(signerDir);
    const rotated = await run(["keys", "rotate", "--data-dir", signerDir]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const newKeyId = rotated.stdout.trim();
    expect(newKeyId).toMatch(/^ed25519-[0-9a-f]{16}$/);
    expect(newKeyId).not.toBe(oldKey?.key_id);

    const { sealed } = await enterAndSeal(server.session);
    expect(sealed).toMatchObject({ ok: true, evidence_status: "signed" });
    expect(signatureOf(sealed.card_id as string).key_id).toBe(newKeyId);
    cards.push(sealed.card_id as string);

    const keys = await keysList(signerDir);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatchObject({ key_id: oldKey?.key_id, not_before: oldKey?.not_before });
    expect(keys[0]?.not_after).toEqual(keys[1]?.not_before);
    expect(keys[1]).toMatchObject({ key_id: newKeyId, not_after: null });

    const keysFile = join(tmp.dir, "keys.json");
    writeFileSync(keysFile, JSON.stringify({ keys }));
    const verdicts = await Promise.all(cards.map((id) => run(["verify", id, "--db", dbFile, "--keys", keysFile])));
    for (const [i, r] of verdicts.entries()) {
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(oneLine(r)).toMatch(new RegExp(`^valid ${cards[i]} \\(signed by ed25519-[0-9a-f]{16} at .+Z\\)$`));
    }
    expect(oneLine(verdicts[0] as never)).toContain(oldKey?.key_id as string);
    expect(oneLine(verdicts[2] as never)).toContain(newKeyId);
  });

  it("rotations from other processes while the signer signs nonstop: every signature is inside its key's window", async () => {
    const remote = RemoteSigner.fromSpec(`unix:${socket}`);
    const before = (await keysList(signerDir)).length;
    let rotating = true;
    const rotations = (async () => {
      try {
        for (let i = 0; i < 3; i++) {
          const r = await run(["keys", "rotate", "--data-dir", signerDir]);
          expect(r.code, r.stderr).toBe(0);
        }
      } finally {
        rotating = false;
      }
    })();
    const signatures: CardSignature[] = [];
    for (let i = 0; rotating || i < 10; i++) {
      signatures.push(await remote.signCard(`sha256:${i.toString(16).padStart(64, "0")}`));
    }
    await rotations;
    const keys = await keysList(signerDir);
    expect(keys).toHaveLength(before + 3);
    expect(new Set(signatures.map((s) => s.key_id)).size).toBeGreaterThanOrEqual(2);
    const outside = signatures.filter((s) => {
      const k = keys.find((x) => x.key_id === s.key_id) as { not_before: string; not_after: string | null };
      return s.signed_at < k.not_before || (k.not_after !== null && s.signed_at >= k.not_after);
    });
    expect(outside, `${outside.length} of ${signatures.length} signatures fall outside their window`).toEqual([]);
  });
});

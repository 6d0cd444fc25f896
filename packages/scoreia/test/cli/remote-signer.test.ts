/**
 * RemoteSigner against signers that misbehave (in-process sockets): silence, refusals, garbage
 * and forged signatures all become SignerUnavailableError, so a seal leaves its card pending
 * instead of storing something that does not verify.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { KeyringDir, RemoteSigner, serveSigner } from "../../src/evidence/remote-signer.ts";
import { LocalKeyring, SignerUnavailableError } from "../../src/evidence/signer.ts";

const dir = mkdtempSync(join(tmpdir(), "scoreia-remote-signer-"));
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) await new Promise((ok) => s.close(ok));
  rmSync(dir, { recursive: true, force: true });
});

const HASH = `sha256:${"cd".repeat(32)}`;

/** A socket server whose every request line is answered by `reply` (or not at all). */
async function fake(name: string, reply: (req: Record<string, unknown>, socket: Socket) => void): Promise<string> {
  const path = join(dir, name);
  const server = createServer((socket) => {
    let buf = "";
    socket.on("data", (c: Buffer) => {
      buf += c.toString("utf8");
      const nl = buf.indexOf("\n");
      if (nl >= 0) reply(JSON.parse(buf.slice(0, nl)), socket);
    });
  });
  servers.push(server);
  await new Promise<void>((ok) => server.listen(path, ok));
  return path;
}

async function unavailable(p: Promise<unknown>): Promise<string> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(SignerUnavailableError);
  return (e as Error).message;
}

describe("RemoteSigner", () => {
  it("no socket, or nobody listening → unavailable at once", async () => {
    const t0 = Date.now();
    expect(await unavailable(new RemoteSigner(join(dir, "none.sock")).signCard(HASH))).toMatch(/ENOENT/);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it("a signer that never answers → unavailable after the timeout", async () => {
    const path = await fake("silent.sock", () => undefined);
    const t0 = Date.now();
    expect(await unavailable(new RemoteSigner(path, 300).signCard(HASH))).toMatch(/did not answer within 300 ms/);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  it("refusals, garbage, another id and forged signatures → unavailable", async () => {
    const keyring = LocalKeyring.ephemeral();
    const other = LocalKeyring.ephemeral();
    const keys = await keyring.publicKeys();
    const answer = (socket: Socket, body: unknown) => socket.end(`${JSON.stringify(body)}\n`);
    const paths = {
      refuses: await fake("refuses.sock", (r, s) => answer(s, { id: r.id, ok: false, error: "no" })),
      garbage: await fake("garbage.sock", (_r, s) => s.end("<html>\n")),
      otherId: await fake("other-id.sock", (r, s) => answer(s, { id: Number(r.id) + 1, ok: true, keys })),
      forged: await fake("forged.sock", async (r, s) => {
        if (r.op === "keys") return answer(s, { id: r.id, ok: true, keys });
        // signed by a key that is not the one it claims
        const sig = await other.signCard(HASH);
        answer(s, { id: r.id, ok: true, signature: { ...sig, key_id: keys[0]?.key_id } });
      }),
      otherHash: await fake("other-hash.sock", async (r, s) => {
        if (r.op === "keys") return answer(s, { id: r.id, ok: true, keys });
        answer(s, { id: r.id, ok: true, signature: await keyring.signCard(`sha256:${"00".repeat(32)}`) });
      }),
      honest: await fake("honest.sock", async (r, s) => {
        if (r.op === "keys") return answer(s, { id: r.id, ok: true, keys });
        answer(s, { id: r.id, ok: true, signature: await keyring.signCard(String(r.card_hash)) });
      }),
    };
    expect(await unavailable(new RemoteSigner(paths.refuses).signCard(HASH))).toMatch(/refused: no/);
    expect(await unavailable(new RemoteSigner(paths.garbage).signCard(HASH))).toMatch(/not JSON/);
    expect(await unavailable(new RemoteSigner(paths.otherId).publicKeys())).toMatch(/another request/);
    expect(await unavailable(new RemoteSigner(paths.forged).signCard(HASH))).toMatch(/does not verify/);
    expect(await unavailable(new RemoteSigner(paths.otherHash).signCard(HASH))).toMatch(/does not verify/);
    const honest = new RemoteSigner(paths.honest);
    expect((await honest.signCard(HASH)).key_id).toBe(keys[0]?.key_id);
    await expect(honest.signCard("sha256:short")).rejects.toThrow(/not a card hash/);
  });

  it("against serveSigner in this process: signatures interleaved with rotations stay in their windows", async () => {
    const keyring = KeyringDir.open(join(dir, "keys"));
    const server = await serveSigner(keyring, join(dir, "real.sock"));
    const remote = RemoteSigner.fromSpec(`unix:${server.path}`);
    const rotations = (async () => {
      for (let i = 0; i < 5; i++) {
        await new Promise((ok) => setTimeout(ok, 5));
        await KeyringDir.open(join(dir, "keys")).rotate();
      }
    })();
    const signatures = await Promise.all(
      Array.from({ length: 60 }, (_, i) => remote.signCard(`sha256:${i.toString(16).padStart(64, "0")}`)),
    );
    await rotations;
    const final = await remote.publicKeys();
    expect(final).toHaveLength(6);
    for (const s of signatures) {
      const k = final.find((x) => x.key_id === s.key_id);
      expect(k, s.key_id).toBeDefined();
      expect(s.signed_at >= (k?.not_before as string)).toBe(true);
      if (k?.not_after) expect(s.signed_at < k.not_after, `${s.signed_at} < ${k.not_after}`).toBe(true);
    }
    await server.close();
  });
});

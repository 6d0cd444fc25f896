/**
 * `scoreia serve --http` with its in-process keyring, and the CLI around it: `keys rotate`
 * between two attempts while the server runs, `keys list`, `import-historical` into the live
 * database, and `verify CARD_ID --server` against the real public endpoints.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson, sha256Tagged } from "../../src/evidence/jcs.ts";
import { connectHttp, type HttpServer, IDENTITY, type Session, startHttp, tempDir } from "../e2e/support.ts";
import { oneLine, run } from "./support.ts";

const tmp = tempDir("cli-serve");
const dataDir = join(tmp.dir, "data");
const dbFile = join(tmp.dir, "c.db");
let server: HttpServer;
let session: Session;
let base: string;

beforeAll(async () => {
  server = await startHttp(["--db", dbFile, "--data-dir", dataDir]);
  base = server.url.replace(/\/mcp$/, "");
  session = await connectHttp(server.url, "cli-serve-keys");
});

afterAll(async () => {
  await session?.client.close();
  await server?.stop();
  tmp.remove();
});

async function sealOne(): Promise<string> {
  const e = await session.sc("enter_open_challenge", IDENTITY);
  const s = await session.sc("seal_attempt", { challenge_handle: e.attempt_handle });
  expect(s).toMatchObject({ ok: true, evidence_status: "signed" });
  return s.card_id as string;
}

describe("keys rotate / keys list with a running server", () => {
  it("rotating between two attempts: both cards verify with the new key list, each with its own key", async () => {
    const before = await sealOne();
    const rotated = await run(["keys", "rotate", "--data-dir", dataDir]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const newKey = rotated.stdout.trim();
    expect(rotated.stderr).toMatch(/now covers .* signs from /);
    const after = await sealOne();

    const list = await run(["keys", "list", "--data-dir", dataDir]);
    expect(list.code, list.stderr).toBe(0);
    const { keys } = JSON.parse(list.stdout) as { keys: Array<Record<string, string | null>> };
    expect(keys).toHaveLength(2);
    expect(keys[0]?.not_after).toMatch(/Z$/);
    expect(keys[0]?.not_after).toBe(keys[1]?.not_before);
    expect(keys[1]).toMatchObject({ key_id: newKey, not_after: null });
    const keysFile = join(tmp.dir, "keys.json");
    writeFileSync(keysFile, list.stdout);

    const runs = await Promise.all([
      run(["verify", before, "--server", base, "--keys", keysFile]),
      run(["verify", after, "--server", base, "--keys", keysFile]),
      run(["verify", before, "--server", base]),
      run(["verify", after, "--db", dbFile, "--keys", keysFile]),
    ]);
    for (const r of runs) expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(oneLine(runs[0] as never)).toBe(
      `valid ${before} (signed by ${keys[0]?.key_id} at ${oneLine(runs[0] as never).split(" at ")[1]}`,
    );
    expect(oneLine(runs[1] as never)).toContain(`signed by ${newKey} at`);
  });

  it("keys list without a keyring → 6; keys with a wrong subcommand → 2", async () => {
    const [none, wrong] = await Promise.all([
      run(["keys", "list", "--data-dir", join(tmp.dir, "nowhere")]),
      run(["keys", "delete", "--data-dir", dataDir]),
    ]);
    expect(none.code).toBe(6);
    expect(none.stderr).toMatch(/no keyring/);
    expect(wrong.code).toBe(2);
  });
});

describe("verify --server against the real public endpoints", () => {
  it("historical cards imported into the live database verify as unsigned historical (4)", async () => {
    const body = { card_version: "0.1", card_id: "oly-00000000000000aa", verdict: "solved" };
    const hashed = { card_version: "0.1", card_id: "sia-00000000000000bb", verdict: "failed" };
    const cards = [body, { ...hashed, content_hash: sha256Tagged(canonicalJson(hashed)) }];
    writeFileSync(join(tmp.dir, "hist.json"), JSON.stringify(cards));
    const imp = await run(["import-historical", join(tmp.dir, "hist.json"), "--db", dbFile]);
    expect(imp.code, imp.stderr).toBe(0);
    const [oly, sia, unknown] = await Promise.all([
      run(["verify", body.card_id, "--server", base]),
      run(["verify", hashed.card_id, "--server", base]),
      run(["verify", "sia-00000000000000cc", "--server", base]),
    ]);
    expect([oly.code, oneLine(oly)]).toEqual([4, expect.stringMatching(/^unsigned historical: oly-/)]);
    expect([sia.code, oneLine(sia)]).toEqual([4, expect.stringMatching(/^unsigned historical: sia-/)]);
    expect(unknown.code).toBe(6);
  });
});

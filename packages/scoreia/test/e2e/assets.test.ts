/**
 * The real binary (packages/scoreia/bin → dist/bundle/, the esbuild bundle) serves the files its
 * sources read next to themselves at run time: the public pages' assets, byte for byte as they
 * are in src/http/assets/, and the contract (toolset JSON, read by the tools/list it answers).
 * The bundle rewrites `import.meta.url` in the sources so these reads resolve from one chunk
 * directory (scripts/build.mjs); this is where a broken rewrite would show.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CANONICAL_TOOLS, connectHttp, type HttpServer, ROOT, startHttp, tempDir } from "./support.ts";

const ASSETS = [
  "style.css",
  "tables.css",
  "jcs.js",
  "verify-proof.js",
  "verify-reveal.js",
  "verify-page.js",
  "favicon.svg",
];

const tmp = tempDir("assets");
let server: HttpServer;

beforeAll(async () => {
  server = await startHttp(["--db", join(tmp.dir, "c.db"), "--data-dir", tmp.dir]);
});

afterAll(async () => {
  await server?.stop();
  tmp.remove();
});

describe("the bundled bin's run-time files", () => {
  it.each(ASSETS)("serves /assets/%s as the source file", async (name) => {
    const res = await fetch(new URL(`/assets/${name}`, server.url));
    expect(res.status).toBe(200);
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.equals(readFileSync(join(ROOT, "packages/scoreia/src/http/assets", name)))).toBe(true);
  });

  it("lists the contract's canonical tools (read from its JSON at start)", async () => {
    const session = await connectHttp(server.url, "scoreia-e2e-assets");
    try {
      const { tools } = await session.client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([...CANONICAL_TOOLS].sort());
    } finally {
      await session.client.close();
    }
  });
});

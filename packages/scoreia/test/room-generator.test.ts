/**
 * Issue 28: a secret generation's manifest names the code that builds its rooms (package and a hash
 * of the suites' source, src/suites/generator.ts), the reveal repeats it, and re-grading refuses,
 * by name, code other than the generation's. A server whose suite code changed begins a new
 * generation instead of serving the old name with other code.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { serveHttp } from "kernel";
import { describe, expect, it } from "vitest";
import { CURRENT_TOOLSET } from "../src/contract/index.ts";
import { checkReveal, type RegradeRefusal, type RevealDocument, regradeCard } from "../src/evidence/regrade.ts";
import type { ProofBundle } from "../src/evidence/verify.ts";
import { GENERATOR, suiteSourceHash } from "../src/suites/generator.ts";
import { SUITES } from "../src/suites/index.ts";
import { type GenerationRecord, SuiteSecrets } from "../src/suites/secrets.ts";
import { sealed } from "./http/support.ts";
import { checkOpenings, verify as independentVerify } from "./independent/verifier.mjs";
import { harness } from "./support/chamber.ts";

const CHRONO = "chambre-chrono-v0";
const refusal = (doc: unknown) => {
  try {
    checkReveal(doc);
    return null;
  } catch (e) {
    return (e as RegradeRefusal).code;
  }
};

describe("the room generator", () => {
  it("is named by the manifest and the reveal; other code is refused by name, a false claim by the hash", async () => {
    const h = await harness("sqlite");
    try {
      const id = (await sealed(h, { suite: CHRONO, seed: "gen-1" }, 2)).card_id;
      const proof = (await h.chamber.registry.proof(id)) as ProofBundle;
      expect(proof.manifest.generator).toEqual(GENERATOR);
      expect(GENERATOR.package).toBe("scoreia@0.1.0");
      const generation = (proof.card.suite as { generation: string }).generation;
      await h.chamber.service.reveal(CHRONO, generation);
      const reveal = (await h.chamber.registry.revealed(CHRONO, generation)) as unknown as RevealDocument;
      expect(reveal.generator).toEqual(GENERATOR);
      expect(regradeCard(checkReveal(reveal), proof)).toMatchObject({ status: "agrees" });

      const other = { ...reveal, generator: { ...GENERATOR, source_hash: `sha256:${"1".repeat(64)}` } };
      expect(refusal(other)).toBe("generator_mismatch");
      expect(() => checkReveal(other)).toThrow(/built by scoreia@0\.1\.0 with suite source sha256:1{64}/);
      // The claim is bound by the manifest hash: a reveal that hides it, or names another
      // package, does not rebuild the committed manifest.
      expect(refusal({ ...reveal, generator: null })).toBe("secret_mismatch");
      expect(refusal({ ...reveal, generator: { ...GENERATOR, package: "scoreia@9.9.9" } })).toBe("secret_mismatch");
      expect(refusal({ ...reveal, generator: { package: "x" } })).toBe("reveal_malformed");
    } finally {
      await h.close();
    }
  });

  it("an outsider re-grades a revealed generation from the published artifacts alone (§14.6)", async () => {
    const h = await harness("sqlite");
    const http = await serveHttp({
      mcp: h.chamber.mcp,
      routes: h.chamber.routes,
      port: 0,
      maxRequestBytes: CURRENT_TOOLSET.limits.max_request_bytes,
    });
    const base = `http://127.0.0.1:${http.port}`;
    const get = async (path: string) => (await fetch(`${base}${path}`)).json() as Promise<Record<string, unknown>>;
    try {
      const ids = [
        (await sealed(h, { suite: CHRONO, seed: "outsider-1" }, 3)).card_id,
        (await sealed(h, { suite: CHRONO, seed: "outsider-2" }, 1)).card_id,
      ];
      const generation = ((await get(`/cards/${ids[0]}.json`)).suite as { generation: string }).generation;
      await h.chamber.service.reveal(CHRONO, generation);

      // 1. Only what the server publishes: the reveal, the proofs, the keys, the current log head.
      const reveal = await get(`/suites/${CHRONO}/${generation}/reveal.json`);
      const cards = Object.keys(reveal.openings as Record<string, unknown>);
      expect(cards.sort()).toEqual([...ids].sort());
      const keys = await get("/.well-known/scoreia-keys.json");
      const head = (await get("/log/tree-head.json")) as unknown as { tree_size: number };
      for (const id of cards) {
        const proof = await get(`/proofs/${id}.json`);
        // 2. Every proof, by the verifier written from the document, against the server's one log.
        const size = (proof.log as { tree_head: { tree_size: number } }).tree_head.tree_size;
        const c = await get(`/log/consistency.json?first=${size}&second=${head.tree_size}`);
        const checked = independentVerify(proof, keys, undefined, { tree_head: head, consistency: c.consistency });
        expect(checked.verdict, id).toBe("valid");
        expect(checked.steps.at(-1)?.step).toBe("consistency");
        // §14.5 steps 1-4 from the document alone
        expect(checkOpenings(proof, reveal)).toBeNull();
        // 3. The code the generation names is the code at hand, recomputed from the files.
        expect((reveal.generator as { source_hash: string }).source_hash).toBe(
          suiteSourceHash(fileURLToPath(new URL("../src/suites/", import.meta.url))),
        );
        // 4. Steps 5-8 with that code.
        expect(regradeCard(checkReveal(reveal), proof)).toMatchObject({ card_id: id, status: "agrees" });
      }
    } finally {
      await http.close();
      await h.close();
    }
  });

  it("a server whose suite code changed begins a new generation; the old one stays, unrevealed", () => {
    const dir = mkdtempSync(join(tmpdir(), "scoreia-generator-"));
    try {
      const suite = SUITES[CHRONO];
      if (!suite) throw new Error("no chrono");
      const first = SuiteSecrets.open(dir).current(suite, "2026-12-06T00:00:00.000Z");
      expect(first.generator).toEqual(GENERATOR);
      expect(SuiteSecrets.open(dir).current(suite, "2026-12-06T00:00:01.000Z").generation).toBe(first.generation);
      // As if the generation had been made by other suite code:
      const file = join(dir, "suite-secrets.json");
      const records = JSON.parse(readFileSync(file, "utf8")) as GenerationRecord[];
      (records[0] as GenerationRecord).generator = { ...GENERATOR, source_hash: `sha256:${"2".repeat(64)}` };
      writeFileSync(file, JSON.stringify(records));
      const secrets = SuiteSecrets.open(dir);
      const next = secrets.current(suite, "2026-12-06T00:00:02.000Z");
      expect(next.generation).not.toBe(first.generation);
      expect(next.generator).toEqual(GENERATOR);
      expect(secrets.find(CHRONO, first.generation)).toMatchObject({ revealed_at: null });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

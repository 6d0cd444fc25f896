/**
 * Issue 28: the documents' numbered claims that can be checked mechanically are checked against a
 * running server — member lists (card, proof bundle, log leaf and head, reveal, manifest), hashes
 * (manifests, toolsets) and the ordered verification steps (the document, /spec/0.2,
 * /verify/{id}.json, the reference verifier). A change on either side that the other does not
 * follow fails here.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type HttpHandle, serveHttp } from "kernel";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CURRENT_TOOLSET, schemaBundlePayload, TOOLSETS, toolsetHash } from "../src/contract/index.ts";
import { canonicalJson, sha256Tagged } from "../src/evidence/jcs.ts";
import { LEGACY_MANIFEST_HASHES } from "../src/evidence/legacy-manifests.ts";
import { VERIFICATION_STEPS } from "../src/evidence/verify.ts";
import { CONSISTENCY_UNCHECKED } from "../src/evidence/verify-log.ts";
import { GENERATOR } from "../src/suites/generator.ts";
import { SUITES } from "../src/suites/index.ts";
import { ROOT } from "./e2e/support.ts";
import { sealed } from "./http/support.ts";
import { type Harness, harness } from "./support/chamber.ts";

const EVIDENCE = readFileSync(join(ROOT, "docs/evidence-0.2.md"), "utf8");
const HTTP = readFileSync(join(ROOT, "docs/http.md"), "utf8");

/** The text of a numbered section, from its heading to the next heading of any level. */
function section(doc: string, number: string): string {
  const lines = doc.split("\n");
  const start = lines.findIndex((l) => new RegExp(`^#{2,4} ${number.replace(/\./g, "\\.")}\\.? `).test(l));
  if (start < 0) throw new Error(`no section ${number}`);
  const end = lines.findIndex((l, i) => i > start && /^#{1,4} /.test(l));
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n");
}

/** The rows of the first markdown table in `text`, as arrays of cells (header and rule skipped). */
function table(text: string): string[][] {
  const rows = text.split("\n").filter((l) => l.startsWith("| "));
  return rows.slice(2).map((r) =>
    r
      .slice(1, -1)
      .split(" | ")
      .map((c) => c.trim()),
  );
}

const code = (cell: string | undefined) => /^`([^`]*)`/.exec(cell ?? "")?.[1];
const sorted = (a: Iterable<string>) => [...a].sort();

let h: Harness;
let http: HttpHandle;
let base: string;
let cardId: string;
const get = async (path: string) => (await fetch(`${base}${path}`)).json() as Promise<Record<string, unknown>>;

beforeAll(async () => {
  h = await harness("sqlite");
  cardId = (await sealed(h, { suite: "chambre-chrono-v0", seed: "docs-1" }, 2)).card_id;
  await sealed(h, { suite: "chambre-chrono-v0", seed: "docs-2" }, 1);
  http = await serveHttp({
    mcp: h.chamber.mcp,
    routes: h.chamber.routes,
    port: 0,
    maxRequestBytes: CURRENT_TOOLSET.limits.max_request_bytes,
  });
  base = `http://127.0.0.1:${http.port}`;
});

afterAll(async () => {
  await http?.close();
  await h?.close();
});

describe("docs/evidence-0.2.md against the server", () => {
  it("§2: the card has exactly the members of the §2.1 table, and §2 gives their number", async () => {
    const card = await get(`/cards/${cardId}.json`);
    const members = table(section(EVIDENCE, "2.1")).map((r) => code(r[0]) as string);
    expect(sorted(Object.keys(card))).toEqual(sorted(members));
    expect(section(EVIDENCE, "2")).toContain(`exactly the **${members.length}** members`);
  });

  it("§4: each shipped manifest's generation, engine, JCS size and hash; its member list", () => {
    const rows = table(section(EVIDENCE, "4"));
    for (const suite of Object.values(SUITES)) {
      const text = canonicalJson(suite.manifest);
      const row = rows.find((r) => code(r[0]) === suite.id);
      expect(row, suite.id).toBeDefined();
      expect([code(row?.[1]), code(row?.[2]), row?.[3], code(row?.[4])]).toEqual([
        suite.generation,
        suite.engine,
        `${Buffer.byteLength(text)} bytes`,
        sha256Tagged(text),
      ]);
    }
    const listed = /with members (.*?)\.\n/s.exec(section(EVIDENCE, "4"))?.[1] ?? "";
    const names = [...listed.matchAll(/`(\w+)[^`]*`/g)].map((m) => m[1] as string);
    for (const suite of Object.values(SUITES)) expect(sorted(Object.keys(suite.manifest))).toEqual(sorted(names));
  });

  it("§4: the earlier texts of the shipped manifests: their sizes and hashes, and the server serves them by hash", async () => {
    const text = section(EVIDENCE, "4");
    const rows = table(text.slice(text.indexOf("| manifest hash of cards sealed before")));
    expect(rows.length).toBe(2);
    expect(sorted(rows.map((r) => code(r[3]) as string))).toEqual(sorted(LEGACY_MANIFEST_HASHES));
    for (const row of rows) {
      const [suiteId, generation, hash] = [code(row[0]) as string, code(row[1]) as string, code(row[3]) as string];
      const served = await h.chamber.registry.manifest(suiteId, generation, hash);
      expect(sha256Tagged(canonicalJson(served))).toBe(hash);
      expect(row[2]).toBe(`${Buffer.byteLength(canonicalJson(served))} bytes`);
      // and the current text otherwise
      const current = await h.chamber.registry.manifest(suiteId, generation, `sha256:${"0".repeat(64)}`);
      expect(current).toEqual(SUITES[suiteId]?.manifest);
    }
  });

  it("§4: a secret generation's manifest minus room_secret and generator, with the base generation, is the §4 manifest", async () => {
    const card = await get(`/cards/${cardId}.json`);
    const suite = card.suite as { id: string; generation: string; manifest_hash: string };
    expect(suite.generation).toMatch(/^001\.[0-9a-f]{8}$/);
    const proof = await get(`/proofs/${cardId}.json`);
    const { room_secret: _secret, generator, ...rest } = proof.manifest as Record<string, unknown>;
    expect(generator).toEqual(GENERATOR); // §14.1: generations created since it exists name it
    expect(sha256Tagged(canonicalJson({ ...rest, generation: "001" }))).toBe(
      sha256Tagged(canonicalJson(SUITES[suite.id]?.manifest)),
    );
  });

  it("§10.3: the Codex names the generations it counts, the cards' own", async () => {
    const card = await get(`/cards/${cardId}.json`);
    const { id, generation } = card.suite as { id: string; generation: string };
    const codex = await get("/codex.json");
    const suites = codex.suites as Array<{ id: string; generation: string; counted_generations: string[] }>;
    expect(suites.find((s) => s.id === id)).toEqual({
      id,
      generation: SUITES[id]?.generation,
      counted_generations: [generation],
    });
    const example = /```json\n(\{"suites"[^`]*)```/.exec(section(EVIDENCE, "10.3"))?.[1] ?? "";
    expect(example).toContain('"counted_generations"');
  });

  it("§3: the known toolset hashes and payload sizes", () => {
    const rows = table(section(EVIDENCE, "3").split("Known toolset hashes")[1] ?? "");
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      const t = TOOLSETS[code(row[0]) as string];
      expect(t, row[0]).toBeDefined();
      if (t) {
        expect(code(row[2])).toBe(toolsetHash(t));
        expect(row[1]).toBe(`${Buffer.byteLength(canonicalJson(schemaBundlePayload(t)))} bytes`);
      }
    }
  });

  it("§8.1 and docs/http.md: the proof bundle's members", async () => {
    const proof = await get(`/proofs/${cardId}.json`);
    const members = table(section(EVIDENCE, "8.1")).map((r) => code(r[0]) as string);
    expect(sorted(Object.keys(proof))).toEqual(sorted(members));
    expect(section(EVIDENCE, "8.1")).toContain(`(**${["", "", "", "", "", "", "", "eight"][members.length - 1]}** for`);
    const row = HTTP.split("\n").find((l) => l.startsWith("| `/proofs/{card_id}.json`")) ?? "";
    const listed = /proof bundle `\{([^}]*)\}` \((\d+) members/.exec(row);
    expect(sorted((listed?.[1] ?? "").split(", "))).toEqual(sorted(Object.keys(proof)));
    expect(Number(listed?.[2])).toBe(Object.keys(proof).length);
  });

  it("§8.2: the ten steps, in order, are the reference's, /spec/0.2's and /verify/{id}.json's", async () => {
    const block = /The ten step names, in order[^\n]*\n\n```\n([^`]*)```/.exec(section(EVIDENCE, "8.2"))?.[1] ?? "";
    const documented = block.trim().split(", ");
    expect(documented).toEqual([...VERIFICATION_STEPS]);
    const spec = await get("/spec/0.2");
    const native = (spec.card_generations as Array<Record<string, unknown>>).find((g) => g.card_version === "0.2");
    expect(native?.verification_steps).toEqual(documented);
    const verified = await get(`/verify/${cardId}.json`);
    expect((verified.steps as Array<{ step: string }>).map((s) => s.step)).toEqual(documented);
    // §8.5: one row per step, in the same order, then the historical row
    const failureRows = table(section(EVIDENCE, "8.5")).map((r) => r[0]);
    expect(failureRows).toEqual([...documented, "historical (§9)"]);
  });

  it("§15.5.1: step 10's offline detail is the reference's, verbatim", () => {
    const text = section(EVIDENCE, "15.5.1").replace(/\s*\n\s*/g, " ");
    const quoted = /the reference's detail is exactly `([^`]+)`/.exec(text)?.[1];
    expect(quoted).toBe(CONSISTENCY_UNCHECKED);
  });

  it("§15.2–§15.4: the log leaf, the tree head and the bundle's log member", async () => {
    const proof = await get(`/proofs/${cardId}.json`);
    const log = proof.log as Record<string, Record<string, unknown>>;
    const names = (text: string) => sorted([...text.matchAll(/"(\w+)":/g)].map((m) => m[1] as string));
    expect(sorted(Object.keys(log.leaf ?? {}))).toEqual(names(section(EVIDENCE, "15.2")));
    expect(sorted(Object.keys(log.tree_head ?? {}))).toEqual(names(section(EVIDENCE, "15.3")));
    expect(sorted(Object.keys(log))).toEqual(names(section(EVIDENCE, "15.4")));
    // §15.6: an impossible tree_size is the client's error, not "retry shortly"
    expect((await fetch(`${base}/log/inclusion/${cardId}.json?tree_size=99`)).status).toBe(400);
  });

  it("§14.3: a reveal has exactly the documented members, and its openings theirs", async () => {
    const card = await get(`/cards/${cardId}.json`);
    const { id, generation } = card.suite as { id: string; generation: string };
    await h.chamber.service.reveal(id, generation);
    const reveal = await get(`/suites/${id}/${generation}/reveal.json`);
    const example = /```json\n(\{"reveal_version"[^`]*)```/.exec(section(EVIDENCE, "14.3"))?.[1] ?? "";
    const top = [...example.matchAll(/"(\w+)":/g)].map((m) => m[1] as string);
    const openingMembers = ["seq", "location", "salt", "value"];
    expect(sorted(Object.keys(reveal))).toEqual(sorted(top.filter((n) => !openingMembers.includes(n))));
    expect(reveal.reveal_version).toBe(/"reveal_version": "([^"]+)"/.exec(example)?.[1]);
    const openings = Object.values(reveal.openings as Record<string, Array<Record<string, unknown>>>).flat();
    expect(openings.length).toBeGreaterThan(0);
    for (const o of openings) expect(sorted(Object.keys(o))).toEqual(sorted(openingMembers));
    expect(section(EVIDENCE, "14.3")).toContain(
      `exactly these ${["", "", "", "", "", "", "seven", "eight"][Object.keys(reveal).length - 1]} members`,
    );
  });

  it("§1.6: the identifiers the server issues match their documented patterns", async () => {
    const rows = table(section(EVIDENCE, "1.6"));
    const pattern = (name: string) => {
      const cell = rows.find((r) => r[0] === name)?.[1] ?? "";
      return cell;
    };
    expect(pattern("native Chamber card")).toContain("`^sia-[0-9a-f]{32}$`");
    expect(cardId).toMatch(/^sia-[0-9a-f]{32}$/);
    const e = await h.sc("enter_open_challenge", { model_claim: "m", product: "p", host: "h", provider_claim: "x" });
    const help = await h.sc("call_for_help", { challenge_handle: e.attempt_handle, ally: "friend" });
    expect(pattern("ally seed")).toBe("`a-` + 16 hex");
    expect(help.ally_seed).toMatch(/^a-[0-9a-f]{16}$/);
    expect(pattern("attempt handle")).toContain("`^chl-[0-9a-f]{16}$`");
    expect(e.attempt_handle).toMatch(/^chl-[0-9a-f]{16}$/);
  });
});

/**
 * The public endpoints over a real listener, on real cards, per dialect: status codes, JSON
 * errors, caching (immutable / short / no-store, strong ETag, 304), HEAD, 405, filters and the
 * cursor walk.
 */
import { request } from "node:http";
import { fileURLToPath } from "node:url";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOLSETS, toolsetHash } from "../../src/contract/index.ts";
import { canonicalJson, sha256Tagged } from "../../src/evidence/jcs.ts";
import { CardRegistry, FILTER_NAMES, levelFor } from "../../src/evidence/registry.ts";
import { type PublicReplay, verifyReplay } from "../../src/evidence/replay.ts";
import { type ProofBundle, verifyProof } from "../../src/evidence/verify.ts";
import { ENDPOINTS } from "../../src/http/spec.ts";
import { expectedEtag, type Site, site, XSS } from "./support.ts";

function rawGet(port: number, path: string, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    });
    req.on("error", reject);
    req.end();
  });
}

const JSON_TYPE = "application/json; charset=utf-8";
const IMMUTABLE = "public, max-age=31536000, immutable";
const SHORT = "public, max-age=60";
const known = CardRegistry.knownToolsets();

describe.each(DIALECTS)("public endpoints on %s", (dialect) => {
  let s: Site;
  beforeAll(async () => {
    s = await site(dialect);
  });
  afterAll(async () => {
    await s?.close();
  });

  const json = async (path: string, init?: RequestInit) => {
    const res = await s.get(path, init);
    expect(res.headers.get("content-type"), path).toBe(JSON_TYPE);
    return { res, body: (await res.json()) as Record<string, unknown> };
  };
  const expectError = async (path: string, status: number, error: string, init?: RequestInit) => {
    const { res, body } = await json(path, init);
    expect(res.status, path).toBe(status);
    expect(body.error, path).toBe(error);
    expect(typeof body.message).toBe("string");
    expect(res.headers.get("cache-control")).toBe("no-store");
    return body;
  };
  const storedBody = async (id: string) =>
    (
      await s.h.db.db
        .selectFrom("chamber_cards")
        .select("body_json")
        .where("card_id", "=", id)
        .executeTakeFirstOrThrow()
    ).body_json;

  describe("GET /cards", () => {
    it("lists every card newest first with its public context, and never a rank", async () => {
      const { res, body } = await json("/cards?limit=100");
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe(SHORT);
      expect(res.headers.get("etag")).toBe(await expectedEtag(`${JSON.stringify(body, null, 2)}\n`));
      const cards = body.cards as Array<Record<string, unknown>>;
      expect(cards.map((c) => c.card_id).sort()).toEqual([...s.cards.all].sort());
      expect(body.order).toBe("newest_first");
      expect(body.next_cursor).toBeNull();
      const issued = cards.map((c) => c.issued_at as string);
      expect(issued).toEqual([...issued].sort().reverse());
      const first = cards.find((c) => c.card_id === s.cards.chrono) as Record<string, unknown>;
      expect(Object.keys(first).sort()).toEqual(
        [
          "card_id",
          "card_version",
          "channel",
          "evidence_status",
          "identity",
          "issued_at",
          "links",
          "observed_client",
          "participation_class",
          "seed",
          "signed_at",
          "suite",
          "toolset",
          "verdict",
        ].sort(),
      );
      expect(first).toMatchObject({
        card_version: "0.2",
        evidence_status: "signed",
        seed: "seed-a",
        channel: "mcp_session",
        identity: { declared_model: "gpt-5.6-sol", declared_host: "cursor", assurance: "participant_claimed" },
        observed_client: { name: "vitest-client", version: "1.0.0" },
        links: {
          card: `/cards/${s.cards.chrono}`,
          proof: `/proofs/${s.cards.chrono}.json`,
          replay: `/replays/public/${s.cards.chrono}.json`,
          verify: `/verify/${s.cards.chrono}.json`,
        },
      });
      for (const c of cards) expect(Object.keys(c).some((k) => /rank|score|position/.test(k))).toBe(false);
      const oly = cards.find((c) => c.card_id === s.cards.historicalOly) as Record<string, unknown>;
      expect(oly.links).toEqual({
        card: `/open-labyrinth/cards/${s.cards.historicalOly}.json`,
        verify: `/verify/${s.cards.historicalOly}.json`,
      });
    });

    it("the cursor walks every card exactly once, in the same order, at any page size", async () => {
      const full = ((await json("/cards?limit=100")).body.cards as Array<{ card_id: string }>).map((c) => c.card_id);
      for (const limit of [1, 2, 3, 4]) {
        const seen: string[] = [];
        let cursor: string | null = null;
        for (let page = 0; page < 50; page++) {
          const q: string = `/cards?limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`;
          const { body } = await json(q);
          const ids = (body.cards as Array<{ card_id: string }>).map((c) => c.card_id);
          expect(ids.length).toBeLessThanOrEqual(limit);
          seen.push(...ids);
          cursor = body.next_cursor as string | null;
          if (!cursor) break;
        }
        expect(seen, `limit ${limit}`).toEqual(full);
      }
    });

    it("filters on every filter name, alone and with the cursor", async () => {
      const ids = async (q: string) =>
        ((await json(`/cards?${q}`)).body.cards as Array<{ card_id: string }>).map((c) => c.card_id);
      expect(await ids("suite=chambre-atelier-v0")).toEqual([s.cards.atelier]);
      expect(await ids("model=claude-x")).toEqual([s.cards.atelier]);
      expect(await ids("host=zed")).toEqual([s.cards.atelier]);
      expect(await ids(`model=${encodeURIComponent(XSS.model_claim)}`)).toEqual([s.cards.xss]);
      expect((await ids("participation_class=sponsored")).length).toBe(1);
      expect((await ids("evidence_status=unsigned_historical")).sort()).toEqual(
        [s.cards.historicalOly, s.cards.historicalSia].sort(),
      );
      expect(await ids("evidence_status=pending_signature")).toEqual([s.cards.pending]);
      expect((await ids("card_version=0.1")).length).toBe(2);
      expect((await ids("assurance=participant_claimed")).length).toBe(s.cards.signed.length + 1);
      expect((await ids("channel=mcp_session")).length).toBe(s.cards.signed.length + 1);
      expect(await ids("verdict=solved")).toEqual([s.cards.historicalOly]);
      expect(await ids("product=nothing-like-it")).toEqual([]);
      for (const name of FILTER_NAMES) expect((await s.get(`/cards?${name}=x`)).status, name).toBe(200);
      // filter + cursor
      const walk: string[] = [];
      let cursor: string | null = null;
      do {
        const { body } = await json(`/cards?suite=chambre-chrono-v0&limit=2${cursor ? `&cursor=${cursor}` : ""}`);
        walk.push(...(body.cards as Array<{ card_id: string }>).map((c) => c.card_id));
        cursor = body.next_cursor as string | null;
      } while (cursor);
      expect(walk).toEqual(await ids("suite=chambre-chrono-v0&limit=100"));
      expect(walk).not.toContain(s.cards.atelier);
    });

    it.each([
      ["limit=0"],
      ["limit=101"],
      ["limit=abc"],
      ["limit=1.5"],
      ["limit=-1"],
      ["limit="],
      ["sort=verdict"],
      ["order=score"],
      ["suite="],
      ["suite=a&suite=b"],
      ["cursor=!!"],
      ["cursor=zzzz"],
    ])("refuses ?%s with a 400 JSON error", async (q) => {
      const body = await expectError(`/cards?${q}`, 400, q.startsWith("cursor=zz") ? "bad_cursor" : "bad_query");
      expect(body.message).toBeTruthy();
    });
  });

  describe("GET /cards/{card_id}", () => {
    it("serves a signed native card as its exact canonical bytes, immutable, with a strong ETag", async () => {
      const id = s.cards.chrono;
      const res = await s.get(`/cards/${id}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(JSON_TYPE);
      expect(res.headers.get("cache-control")).toBe(IMMUTABLE);
      expect(res.headers.get("scoreia-evidence-status")).toBe("signed");
      expect(res.headers.get("vary")).toBe("Accept");
      const text = await res.text();
      expect(text).toBe(await storedBody(id));
      expect(text).toBe(canonicalJson(JSON.parse(text)));
      const etag = res.headers.get("etag") as string;
      expect(etag).toBe(await expectedEtag(text));
      // the signature covers sha256 of exactly these bytes
      const sig = (await s.h.chamber.registry.get(id))?.signature;
      expect(sig).toBeTruthy();
      expect(((await (await s.get(`/proofs/${id}.json`)).json()) as ProofBundle).card_hash).toBe(sha256Tagged(text));

      const again = await s.get(`/cards/${id}`, { headers: { "if-none-match": etag } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe("");
      expect(again.headers.get("etag")).toBe(etag);
      expect(again.headers.get("cache-control")).toBe(IMMUTABLE);
      expect((await s.get(`/cards/${id}`, { headers: { "if-none-match": `W/${etag}, "x"` } })).status).toBe(304);
      expect((await s.get(`/cards/${id}`, { headers: { "if-none-match": '"other"' } })).status).toBe(200);

      const head = await s.get(`/cards/${id}`, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(head.headers.get("etag")).toBe(etag);
      expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
      expect(await head.text()).toBe("");

      const asJson = await s.get(`/cards/${id}.json`, { headers: { accept: "text/html" } });
      expect(asJson.headers.get("content-type")).toBe(JSON_TYPE);
      expect(await asJson.text()).toBe(text);
    });

    it("a pending card is served but never cached; historical sia-16 with its status; oly-16 points elsewhere", async () => {
      const pending = await s.get(`/cards/${s.cards.pending}`);
      expect(pending.status).toBe(200);
      expect(pending.headers.get("cache-control")).toBe("no-store");
      expect(pending.headers.get("etag")).toBeNull();
      expect(pending.headers.get("scoreia-evidence-status")).toBe("pending_signature");
      expect(await pending.text()).toBe(await storedBody(s.cards.pending));

      const sia = await s.get(`/cards/${s.cards.historicalSia}`);
      expect(sia.status).toBe(200);
      expect(sia.headers.get("cache-control")).toBe(SHORT);
      expect(sia.headers.get("scoreia-evidence-status")).toBe("unsigned_historical");
      expect(((await sia.json()) as Record<string, unknown>).card_version).toBe("0.1");

      const body = await expectError(`/cards/${s.cards.historicalOly}`, 404, "historical_labyrinth_card");
      expect(body.location).toBe(`/open-labyrinth/cards/${s.cards.historicalOly}.json`);
      expect(body.message).toContain(`/open-labyrinth/cards/${s.cards.historicalOly}.json`);
    });

    it("unknown ids are 404, malformed ids 400, both as JSON {error, message}", async () => {
      await expectError(`/cards/sia-${"0".repeat(32)}`, 404, "card_not_found");
      await expectError(`/cards/oly-${"a".repeat(32)}.json`, 404, "card_not_found");
      for (const bad of [
        "sia-123",
        `sia-${"A".repeat(32)}`,
        `xyz-${"0".repeat(32)}`,
        "..%2F..%2Fetc",
        `sia-${"0".repeat(33)}`,
      ]) {
        await expectError(`/cards/${bad}`, 400, "bad_card_id");
      }
    });

    it("negotiates an HTML page for people, escaping participant strings", async () => {
      const res = await s.get(`/cards/${s.cards.xss}`, { headers: { accept: "text/html,*/*;q=0.8" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
      const page = await res.text();
      expect(page).toContain(s.cards.xss);
      for (const v of Object.values(XSS)) expect(page).not.toContain(v);
      expect(page).toContain("&lt;script&gt;window.__xss=1&lt;/script&gt;m");
      expect(page).toContain("&quot;&gt;&lt;img src=x onerror=&quot;window.__xss=2&quot;&gt;");
      expect(page).not.toMatch(/<script>|<img|<b id=xss/);
      const html404 = await s.get(`/cards/sia-${"1".repeat(32)}`, { headers: { accept: "text/html" } });
      expect(html404.status).toBe(404);
      expect(html404.headers.get("content-type")).toBe("text/html; charset=utf-8");
    });
  });

  describe("verification artefacts", () => {
    it("GET /verify/{id}.json is the server's verdict: valid, pending, unsigned historical", async () => {
      const { res, body } = await json(`/verify/${s.cards.chrono}.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe(SHORT);
      expect(res.headers.get("etag")).toBeTruthy();
      expect(body).toEqual(JSON.parse(JSON.stringify(await s.h.chamber.registry.verify(s.cards.chrono))));
      expect(body.verdict).toBe("valid");
      const pending = await json(`/verify/${s.cards.pending}.json`);
      expect(pending.body.verdict).toBe("pending_signature");
      expect(pending.res.headers.get("cache-control")).toBe("no-store");
      expect((await json(`/verify/${s.cards.historicalSia}.json`)).body.verdict).toBe("unsigned_historical");
      expect((await json(`/verify/${s.cards.historicalOly}.json`)).body.verdict).toBe("unsigned_historical");
      await expectError(`/verify/sia-${"0".repeat(32)}.json`, 404, "card_not_found");
      await expectError("/verify/sia-nope.json", 400, "bad_card_id");
    });

    it("GET /proofs/{id}.json serves a proof that verifies offline with the published keys", async () => {
      const res = await s.get(`/proofs/${s.cards.atelier}.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe(JSON_TYPE);
      const text = await res.text();
      expect(res.headers.get("etag")).toBe(await expectedEtag(text));
      expect(res.headers.get("cache-control")).toBe(IMMUTABLE);
      const proof = JSON.parse(text);
      expect(text).toBe(canonicalJson(proof));
      const keys = ((await json("/.well-known/scoreia-keys.json")).body.keys ?? []) as never[];
      const v = verifyProof(proof, keys, known);
      expect(v.verdict, v.message).toBe("valid");
      expect(proof.card).toEqual(JSON.parse(await storedBody(s.cards.atelier)));
    });

    it("proofs: pending is 409 no-store, historical is an explicit unsigned 404, bad ids 400", async () => {
      const pending = await s.get(`/proofs/${s.cards.pending}.json`);
      expect(pending.status).toBe(409);
      expect(pending.headers.get("cache-control")).toBe("no-store");
      expect(pending.headers.get("retry-after")).toBe("30");
      expect(await pending.json()).toMatchObject({ error: "pending_signature", status: "pending_signature" });
      for (const id of [s.cards.historicalSia, s.cards.historicalOly]) {
        const body = await expectError(`/proofs/${id}.json`, 404, "unsigned_historical");
        expect(body.message).toMatch(/^unsigned historical: no native proof/);
      }
      await expectError(`/proofs/sia-${"0".repeat(32)}.json`, 404, "card_not_found");
      await expectError("/proofs/sia-0.json", 400, "bad_card_id");
    });

    it("GET /replays/public/{id}.json: the chained replay of a signed card is immutable and matches the card", async () => {
      const res = await s.get(`/replays/public/${s.cards.chrono}.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe(IMMUTABLE);
      const replay = (await res.json()) as PublicReplay;
      const card = JSON.parse(await storedBody(s.cards.chrono));
      expect(verifyReplay(replay, card.replay.head)).toBeNull();
      expect(replay.events.map((e) => e.kind)).toEqual(["enter", "action", "action", "seal"]);
      const pending = await s.get(`/replays/public/${s.cards.pending}.json`);
      expect(pending.status).toBe(200);
      expect(pending.headers.get("cache-control")).toBe("no-store");
      const body = await expectError(`/replays/public/${s.cards.historicalSia}.json`, 404, "unsigned_historical");
      expect(body.message).toMatch(/^unsigned historical: no native replay/);
      await expectError(`/replays/public/oly-${"0".repeat(32)}.json`, 404, "card_not_found");
      await expectError("/replays/public/oly-zz.json", 400, "bad_card_id");
    });

    it("GET /.well-known/scoreia-keys.json publishes the keys with their windows", async () => {
      const { res, body } = await json("/.well-known/scoreia-keys.json");
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe(SHORT);
      expect(res.headers.get("access-control-allow-origin")).toBe("*");
      expect(body).toEqual({ keys: await s.h.chamber.registry.keys() });
      expect((body.keys as unknown[]).length).toBeGreaterThan(0);
    });

    it("GET /open-labyrinth/cards/{id}.json serves historical oly-16 cards only", async () => {
      const res = await s.get(`/open-labyrinth/cards/${s.cards.historicalOly}.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get("scoreia-evidence-status")).toBe("unsigned_historical");
      expect(res.headers.get("cache-control")).toBe(SHORT);
      expect(await res.json()).toMatchObject({ card_id: s.cards.historicalOly, card_version: "0.1" });
      const other = await expectError(
        `/open-labyrinth/cards/${s.cards.historicalSia}.json`,
        404,
        "not_a_historical_labyrinth_card",
      );
      expect(other.location).toBe(`/cards/${s.cards.historicalSia}`);
      await expectError(`/open-labyrinth/cards/${s.cards.chrono}.json`, 404, "not_a_historical_labyrinth_card");
      await expectError(`/open-labyrinth/cards/oly-${"9".repeat(16)}.json`, 404, "card_not_found");
      await expectError("/open-labyrinth/cards/oly-1.json", 400, "bad_card_id");
    });
  });

  describe("spec, toolsets and Codex", () => {
    it("GET /spec/0.2 summarises the protocol as this build implements it", async () => {
      const { res, body } = await json("/spec/0.2");
      expect(res.status).toBe(200);
      expect(body.version).toBe("0.2");
      const levels = (body.evidence_levels as { levels: Array<Record<string, number | null | string>> }).levels;
      for (const l of levels) {
        expect(levelFor(l.min_distinct_seeds as number)).toBe(l.level);
        if (l.max_distinct_seeds !== null) {
          expect(levelFor(l.max_distinct_seeds as number)).toBe(l.level);
          expect(levelFor((l.max_distinct_seeds as number) + 1)).not.toBe(l.level);
        }
      }
      expect(body.assurance).toMatchObject({
        current: ["participant_claimed", "scoreia_controlled"],
        historical: ["host_reported", "official_host_reported", "declared"],
      });
      expect((body.identity_layers as Array<{ layer: string }>).map((l) => l.layer)).toEqual([
        "declared_model",
        "product",
        "declared_host",
        "assurance",
      ]);
      expect((body.observation as { channels: string[] }).channels.sort()).toEqual(
        ["local_model", "mcp_session", "provider_api"].sort(),
      );
      const paths = (body.endpoints as Array<{ path: string }>).map((e) => e.path);
      for (const p of [
        "/spec/0.2",
        "/cards",
        "/cards/{card_id}",
        "/verify/{card_id}.json",
        "/proofs/{card_id}.json",
        "/replays/public/{card_id}.json",
        "/.well-known/scoreia-keys.json",
        "/open-labyrinth/cards/{card_id}.json",
        "/codex",
      ]) {
        expect(paths).toContain(p);
      }
      expect(paths.length).toBe(ENDPOINTS.length);
      expect(Array.isArray(body.guarantees)).toBe(true);
    });

    it("GET /spec/toolsets/{id}.json serves each known bundle with its hash; unknown ones are 404", async () => {
      for (const id of ["scoreia-chamber-tools/0.3.0", "scoreia-chamber-tools/0.3.2"]) {
        const res = await s.get(`/spec/toolsets/${id}.json`);
        expect(res.status).toBe(200);
        expect(res.headers.get("cache-control")).toBe(IMMUTABLE);
        const body = (await res.json()) as { toolset_id: string; hash: string; bundle: unknown };
        expect(body.toolset_id).toBe(id);
        expect(body.hash).toBe(toolsetHash(TOOLSETS[id] as never));
        expect(sha256Tagged(canonicalJson(body.bundle))).toBe(body.hash);
      }
      const unknown = await expectError("/spec/toolsets/scoreia-chamber-tools/0.2.0.json", 404, "toolset_unknown");
      expect(unknown.message).toContain("not known to this build");
      await expectError("/spec/toolsets/..%2F..%2Fpackage.json", 400, "bad_toolset_id");
      await expectError("/spec/toolsets/x/1.json", 400, "bad_toolset_id");
    });

    it("GET /codex: HTML by default, JSON on request; rows in name order; empty cells not measured", async () => {
      const page = await s.get("/codex");
      expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(page.headers.get("vary")).toBe("Accept");
      const text = await page.text();
      expect(text).toContain("not measured");
      expect(text).toContain("claude-x");
      for (const v of Object.values(XSS)) expect(text).not.toContain(v);
      const { res, body } = await json("/codex", { headers: { accept: "application/json" } });
      expect(res.headers.get("cache-control")).toBe(SHORT);
      const viaJson = await json("/codex.json");
      expect(viaJson.body).toEqual(body);
      expect(body.empty_cell).toBe("not measured");
      const rows = body.rows as Array<{ subject: Record<string, string> }>;
      const names = rows.map((r) =>
        [r.subject.declared_model, r.subject.product, r.subject.declared_host].join("\u0000"),
      );
      expect(names).toEqual([...names].sort());
      expect(rows.map((r) => r.subject.declared_model)).toContain("claude-x");
      // each cell says where its cards' seeds came from and how many had been sealed before (issue 16 §1)
      expect(body.seed_sources).toEqual(["participant", "server", "ally"]);
      const claude = (body.rows as Array<{ subject: Record<string, string>; cells: Record<string, unknown> }>).find(
        (r) => r.subject.declared_model === "claude-x",
      );
      expect(claude?.cells["chambre-atelier-v0|mcp_session"]).toMatchObject({
        cards: 1,
        seed_sources: { participant: 1, server: 0, ally: 0 },
        seed_sealed_before: 0,
      });
      expect(text).toContain("1 participant</span> · <span");
      expect(text).toContain("0 sealed before");
    });
  });

  describe("methods, pages and unknown paths", () => {
    it.each([
      ["POST", "/cards"],
      ["PUT", `/cards/sia-${"0".repeat(32)}`],
      ["DELETE", "/.well-known/scoreia-keys.json"],
      ["PATCH", "/codex"],
      ["POST", "/verify"],
    ])("%s %s is 405 with Allow: GET, HEAD", async (method, path) => {
      const res = await s.get(path, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("GET, HEAD");
      expect(((await res.json()) as { error: string }).error).toBe("method_not_allowed");
    });

    it("HEAD answers every JSON endpoint with headers and no body", async () => {
      for (const path of ["/cards", "/spec/0.2", "/codex.json", `/verify/${s.cards.chrono}.json`]) {
        const get = await s.get(path);
        const head = await s.get(path, { method: "HEAD" });
        expect(head.status, path).toBe(200);
        expect(head.headers.get("etag")).toBe(get.headers.get("etag"));
        expect(head.headers.get("content-length")).toBe(String((await get.arrayBuffer()).byteLength));
        expect(await head.text()).toBe("");
      }
    });

    it("serves the pages and assets with short caching; the registry escapes participant strings", async () => {
      for (const path of ["/", "/registry", "/verify", "/let-my-ai-in", "/codex"]) {
        const res = await s.get(path);
        expect(res.status, path).toBe(200);
        expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
        expect(res.headers.get("cache-control")).toBe(SHORT);
        const page = await res.text();
        expect(page).toMatch(/^<!doctype html>\n<html lang="en">/);
        expect(page).not.toMatch(/https?:\/\/(?!127\.0\.0\.1|scoreia\.ai)/);
      }
      const registry = await (await s.get("/")).text();
      expect(registry).toContain(s.cards.xss);
      for (const v of Object.values(XSS)) expect(registry).not.toContain(v);
      // Each native card says where its seed came from (issue 16 §1); historical ones have none.
      const notes = registry.match(/<span class="note sub">participant seed<\/span>/g) ?? [];
      expect(notes.length).toBe(s.cards.all.length - 2);
      const bad = await s.get("/?limit=500");
      expect(bad.status).toBe(400);
      expect(await bad.text()).toContain("limit must be an integer");
      for (const a of ["style.css", "tables.css", "jcs.js", "verify-proof.js", "verify-reveal.js", "verify-page.js"]) {
        const res = await s.get(`/assets/${a}`);
        expect(res.status, a).toBe(200);
        expect(res.headers.get("content-type")).toMatch(a.endsWith(".css") ? /^text\/css/ : /^text\/javascript/);
      }
      expect((await s.get("/assets/nope.js")).status).toBe(404);
      expect((await s.get("/nothing-here")).status).toBe(404);
    });

    it("Let my AI in shows this server's MCP URL from its own address, never from the Host header", async () => {
      const page = await (await s.get("/let-my-ai-in")).text();
      expect(page).toContain(`${s.base}/mcp`);
      for (const host of ["Cursor", "VS Code", "Claude Desktop", "Windsurf", "Zed"]) expect(page).toContain(host);
      expect(page).toContain("participant claims");
      // the stdio snippet runs from any folder: node and this installation's bin, by absolute path
      const bin = fileURLToPath(new URL("../../bin/scoreia.mjs", import.meta.url));
      expect(page).toContain(bin);
      expect(page).toContain(process.execPath);
      expect(page).not.toMatch(/npx(&quot;|")[^<]*scoreia(&quot;|"), (&quot;|")serve/);
      // fetch cannot set Host: a raw request can, as a proxy or a client would. The page is
      // cacheable, so a forged Host written into it would poison every cache on the way.
      for (const host of ["chamber.example:8443", 'ev"il{x}.example']) {
        const forged = await rawGet(s.http.port, "/let-my-ai-in", host);
        expect(forged).not.toContain("chamber.example");
        expect(forged).not.toContain("ev&quot;il");
        expect(forged).toContain(`${s.base}/mcp`);
      }
    });

    it("reserved names are not assets; every response, 404s included, says nosniff", async () => {
      for (const name of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
        const res = await s.get(`/assets/${name}`);
        expect(res.status, name).toBe(404);
        expect(((await res.json()) as { error: string }).error).toBe("not_found");
      }
      expect((await s.get("/spec/toolsets/__proto__.json")).status).toBe(400);
      for (const path of ["/nothing-here", "/assets/__proto__", "/cards", "/mcp"]) {
        const res = await s.get(path);
        expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
      }
    });
  });
});

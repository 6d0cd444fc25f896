/**
 * The pages in a real browser (Debian's Chromium, headless, through playwright-core): the
 * "Verify a proof" page verifies locally — RFC 8785 in JS, SHA-256 and Ed25519 by WebCrypto —
 * and agrees with the server's verifier on real and tampered proofs without ever asking the
 * server for a verdict; the registry, card and Codex pages render the identity layers apart and
 * run no participant-supplied markup. SQLite only: the pages read through the same registry the
 * endpoint tests already run on both dialects.
 *
 * Chromium is required, not optional: .ci/run installs it. Missing, this suite fails.
 */
import { createPublicKey, generateKeyPairSync, sign } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { canonicalJson, sha256Tagged } from "../../src/evidence/jcs.ts";
import { CardRegistry } from "../../src/evidence/registry.ts";
import { keyIdOf, rawPublicKey, statementBytes } from "../../src/evidence/signer.ts";
import { parseStrictJson } from "../../src/evidence/strict-json.ts";
import { type ProofBundle, verifyProof } from "../../src/evidence/verify.ts";
import { type Site, site, XSS } from "./support.ts";

const CHROMIUM = process.env.SCOREIA_CHROMIUM ?? "/usr/bin/chromium";
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const JCS_DIR = new URL("../../../../testdata/jcs/", import.meta.url);
const SCREENSHOT = new URL("../../../../docs/img/verify-page.png", import.meta.url);
const known = CardRegistry.knownToolsets();

let s: Site;
let context: BrowserContext;
let profile: string;
/** Problems the pages reported: script errors, CSP violations, failed loads. */
const problems: string[] = [];
/** Every path the browser requested from the server. */
const requested: string[] = [];

const MISSING = `Chromium not found at ${CHROMIUM}: install it (apt-get install -y chromium; .ci/run does) or set SCOREIA_CHROMIUM`;

beforeAll(async () => {
  // Without Chromium every test below fails with MISSING (a failure, never a skip).
  if (!existsSync(CHROMIUM)) return;
  s = await site("sqlite");
  profile = mkdtempSync(join(tmpdir(), "scoreia-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1200, height: 900 },
  });
  context.on("request", (r) => {
    const u = new URL(r.url());
    if (u.origin === s.base) requested.push(u.pathname);
  });
  context.on("console", (m) => {
    // 404/409 answers the verify page asks for on purpose (pending, historical) are logged by Chromium too
    if (m.type() === "error" && !/status of 40[49]/.test(m.text())) problems.push(`console: ${m.text()}`);
  });
});

afterAll(async () => {
  await context?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
  await s?.close();
});

async function open(path: string): Promise<Page> {
  if (!context) throw new Error(MISSING);
  const page = await context.newPage();
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  const res = await page.goto(`${s.base}${path}`);
  expect(res?.status(), path).toBe(200);
  return page;
}

async function verdictOf(page: Page): Promise<{ verdict: string; text: string; steps: Array<[string, string]> }> {
  const box = page.locator("#verdict");
  // a selector, not waitForFunction: the page's CSP (no 'unsafe-eval') refuses string predicates
  await page.locator('#verdict:not([data-verdict="idle"]):not([data-verdict="working"])').waitFor();
  const steps = await page
    .locator("#steps li")
    .evaluateAll((lis) => lis.map((li) => [li.getAttribute("data-step"), li.getAttribute("data-ok")]));
  return {
    verdict: (await box.getAttribute("data-verdict")) as string,
    text: (await box.textContent()) ?? "",
    steps: steps as Array<[string, string]>,
  };
}

async function pasteAndVerify(page: Page, text: string) {
  await page.fill("#proof", text);
  await page.click("#form-paste button[type=submit]");
  return verdictOf(page);
}

/**
 * Code for page.evaluate as a string: vitest would rewrite a dynamic import() inside a function
 * literal into its own loader, which does not exist in the page. `args` is JSON-embedded.
 */
function inPage(body: string, args: unknown): string {
  return `(async () => { const args = ${JSON.stringify(args)};\n${body}\n})()`;
}

async function proofOf(id: string): Promise<ProofBundle> {
  if (!context) throw new Error(MISSING);
  return (await (await s.get(`/proofs/${id}.json`)).json()) as ProofBundle;
}

it("runs on Debian's Chromium", () => {
  expect(existsSync(CHROMIUM), MISSING).toBe(true);
});

describe("Verify a proof, in Chromium", () => {
  it("verifies a real card by id, locally, step by step, without asking the server for a verdict", async () => {
    const page = await open("/verify");
    requested.length = 0;
    await page.fill("#card-id", s.cards.chrono);
    await page.click("#form-id button[type=submit]");
    const r = await verdictOf(page);
    expect(r.verdict, r.text).toBe("valid");
    expect(r.text).toContain(s.cards.chrono);
    expect(r.steps).toEqual([
      ["fetch", "true"],
      ["shape", "true"],
      ["canonical_form", "true"],
      ["key", "true"],
      ["signature", "true"],
      ["key_window", "true"],
      ["replay", "true"],
      ["manifest", "true"],
      ["policy", "true"],
      ["log", "true"],
      ["consistency", "true"],
    ]);
    expect(r.text).toBeTruthy();
    expect(await page.locator('#steps li[data-step="log"] .detail').textContent()).toMatch(/^leaf \d+ of \d+$/);
    expect(await page.locator('#steps li[data-step="consistency"] .detail').textContent()).toMatch(
      /^tree head of size \d+ is consistent with the trusted head of size \d+$/,
    );
    expect(requested).toContain(`/proofs/${s.cards.chrono}.json`);
    expect(requested).toContain("/log/tree-head.json");
    expect(requested).toContain("/.well-known/scoreia-keys.json");
    expect(requested.some((p) => p.startsWith("/verify/"))).toBe(false);
    mkdirSync(new URL(".", SCREENSHOT), { recursive: true });
    const shot = join(tmpdir(), `verify-page-${process.pid}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    if (process.env.SCOREIA_SCREENSHOTS === "1") copyFileSync(shot, SCREENSHOT);
    rmSync(shot, { force: true });
    await page.close();
  });

  it("a proof with one byte changed in its card is invalid; re-hashed, its signature fails", async () => {
    const proof = await proofOf(s.cards.atelier);
    const text = canonicalJson(proof);
    const at = text.indexOf('"seed":"seed-b"') + '"seed":"seed-'.length;
    const tampered = `${text.slice(0, at)}c${text.slice(at + 1)}`;
    expect(tampered.length).toBe(text.length);
    const page = await open("/verify");
    const r = await pasteAndVerify(page, tampered);
    expect(r.verdict, r.text).toBe("invalid");
    expect(r.steps.at(-1)).toEqual(["canonical_form", "false"]);
    expect(r.text).toContain("card_hash is not SHA-256");

    const rehashed = JSON.parse(tampered) as ProofBundle;
    rehashed.card_hash = sha256Tagged(canonicalJson(rehashed.card));
    const r2 = await pasteAndVerify(page, JSON.stringify(rehashed));
    expect(r2.verdict, r2.text).toBe("invalid");
    expect(r2.steps.at(-1)).toEqual(["signature", "false"]);
    expect(r2.text).toContain("Ed25519 signature does not verify");
    await page.close();
  });

  it("a proof signed by a key ScoreIA does not publish is an unknown key", async () => {
    const proof = await proofOf(s.cards.chrono);
    const { privateKey } = generateKeyPairSync("ed25519");
    const pub = createPublicKey(privateKey);
    const keyId = keyIdOf(pub);
    const signedAt = proof.signature.signed_at;
    const forged: ProofBundle = {
      ...proof,
      key: { ...proof.key, key_id: keyId, public_key: rawPublicKey(pub).toString("base64url") },
      signature: {
        ...proof.signature,
        key_id: keyId,
        sig: sign(null, statementBytes(proof.card_hash, keyId, signedAt), privateKey).toString("base64url"),
      },
    };
    const page = await open("/verify");
    const r = await pasteAndVerify(page, JSON.stringify(forged, null, 2));
    expect(r.verdict, r.text).toBe("unknown_key");
    expect(r.text).toContain(keyId);
    expect(r.steps.at(-1)).toEqual(["key", "false"]);
    await page.close();
  });

  it("says pending and unsigned historical for cards without a native proof, and refuses non-JSON", async () => {
    const page = await open(`/verify?card=${s.cards.pending}`);
    expect((await verdictOf(page)).verdict).toBe("pending_signature");
    await page.fill("#card-id", s.cards.historicalSia);
    await page.click("#form-id button[type=submit]");
    expect((await verdictOf(page)).verdict).toBe("unsigned_historical");
    const r = await pasteAndVerify(page, "{not json");
    expect(r.verdict).toBe("invalid");
    await page.close();
  });

  it("the browser's RFC 8785 matches the RFC vectors and the server byte for byte", async () => {
    const page = await open("/verify");
    const names = readdirSync(new URL("input/", JCS_DIR)).filter((f) => f.endsWith(".json"));
    expect(names.length).toBeGreaterThanOrEqual(6);
    const inputs = names.map((n) => readFileSync(new URL(`input/${n}`, JCS_DIR), "utf8"));
    const proof = await proofOf(s.cards.xss);
    const out = (await page.evaluate(
      inPage(
        `const { canonicalize } = await import("/assets/jcs.js");
        const [texts, proofText] = args;
        let refused = 0;
        for (const bad of [{ a: "x\\uD800" }, { "\\uDC00": 1 }, [Number.NaN], { u: undefined }, [() => 1]]) {
          try { canonicalize(bad); } catch { refused++; }
        }
        return {
          vectors: texts.map((t) => canonicalize(JSON.parse(t))),
          proof: canonicalize(JSON.parse(proofText)),
          refused,
        };`,
        [inputs, JSON.stringify(proof)],
      ),
    )) as { vectors: string[]; proof: string; refused: number };
    names.forEach((n, i) => {
      expect(
        Buffer.from(out.vectors[i] as string, "utf8").equals(readFileSync(new URL(`output/${n}`, JCS_DIR))),
        n,
      ).toBe(true);
    });
    expect(out.proof).toBe(canonicalJson(proof));
    expect(out.refused).toBe(5);
    await page.close();
  });

  it("agrees with the server's verifier, verdict and failure code, on tampered proofs", async () => {
    // The proof is frozen at the first head that covers the card (here the one-leaf tree): its log
    // is swapped for the inclusion under the current head, whose audit path is not empty.
    const frozen = await proofOf(s.cards.chrono);
    const { card_id: _id, ...current } = (await (await s.get(`/log/inclusion/${s.cards.chrono}.json`)).json()) as {
      card_id: string;
    } & ProofBundle["log"];
    const proof = { ...frozen, log: current };
    const keys = ((await (await s.get("/.well-known/scoreia-keys.json")).json()) as { keys: never[] }).keys;
    // biome-ignore lint/suspicious/noExplicitAny: mutations reach into arbitrary JSON on purpose
    type Json = any;
    const mutate = (f: (p: Json) => void) => {
      const copy = structuredClone(proof) as Json;
      f(copy);
      return copy;
    };
    const cases: Array<[string, unknown]> = [
      ["as served", proof],
      ["extra field", mutate((p) => (p.extra = 1))],
      ["wrong proof_version", mutate((p) => (p.proof_version = "scoreia-proof/0.1"))],
      ["card hash", mutate((p) => (p.card_hash = `sha256:${"0".repeat(64)}`))],
      ["key mismatch", mutate((p) => (p.key.not_before = "2001-01-01T00:00:00.000Z"))],
      ["pre-rotation key record", mutate((p) => (p.key.not_after = null))],
      ["sig not canonical", mutate((p) => (p.signature.sig = `${p.signature.sig}=`))],
      ["sig flipped", mutate((p) => (p.signature.sig = `A${p.signature.sig.slice(1)}`))],
      ["signed_at format", mutate((p) => (p.signature.signed_at = p.signature.signed_at.replace(".000Z", "Z")))],
      ["replay event dropped", mutate((p) => p.replay.events.splice(1, 1))],
      ["replay extra field", mutate((p) => (p.replay.events[0].note = "x"))],
      ["replay head", mutate((p) => (p.replay.head = `sha256:${"1".repeat(64)}`))],
      ["replay other card", mutate((p) => (p.replay.card_id = s.cards.atelier))],
      ["manifest", mutate((p) => (p.manifest.generation = "999"))],
      ["not an object", mutate((p) => (p.card = [1]))],
      // step 9, the transparency log (§15.5)
      ["log missing", mutate((p) => delete p.log)],
      ["log extra field", mutate((p) => (p.log.extra = 1))],
      ["log index not an integer", mutate((p) => (p.log.index = "0"))],
      ["log leaf other card hash", mutate((p) => (p.log.leaf.card_hash = `sha256:${"2".repeat(64)}`))],
      ["log leaf logged_at malformed", mutate((p) => (p.log.leaf.logged_at = "2026-01-01T00:00:00Z"))],
      [
        "log leaf logged late",
        mutate((p) => (p.log.leaf.logged_at = new Date(Date.parse(p.signature.signed_at) + 300_001).toISOString())),
      ],
      ["log inclusion flipped", mutate((p) => (p.log.inclusion[0] = `sha256:${"3".repeat(64)}`))],
      ["log inclusion extended", mutate((p) => p.log.inclusion.push(`sha256:${"4".repeat(64)}`))],
      ["log index moved", mutate((p) => (p.log.index += 1))],
      ["log root changed", mutate((p) => (p.log.tree_head.root_hash = `sha256:${"5".repeat(64)}`))],
      ["log head sig flipped", mutate((p) => (p.log.tree_head.sig = `A${p.log.tree_head.sig.slice(1)}`))],
      ["log head unknown key", mutate((p) => (p.log.tree_head.key_id = "ed25519-0000000000000000"))],
    ];
    expect((proof as Json).log.inclusion.length, "the chrono card's audit path is not empty").toBeGreaterThan(0);
    const page = await open("/verify");
    const browser = (await page.evaluate(
      inPage(
        `const { verifyProof } = await import("/assets/verify-proof.js");
        const [list, trusted, toolsets] = args;
        const out = [];
        for (const [, bundle] of list) {
          const r = await verifyProof(bundle, trusted, toolsets);
          out.push([r.verdict, r.code ?? null, r.steps.length]);
        }
        return out;`,
        [cases, keys, known],
      ),
    )) as Array<[string, string | null, number]>;
    cases.forEach(([name, bundle], i) => {
      const server = verifyProof(bundle, keys, known);
      expect(browser[i], name).toEqual([server.verdict, server.code ?? null, server.steps.length]);
    });
    expect(browser[0]?.[0]).toBe("valid");
    expect(browser[5]?.[0]).toBe("valid");
    expect(new Set(browser.slice(15).map((b) => b[1]))).toEqual(
      new Set([
        "log_missing",
        "log_malformed",
        "log_mismatch",
        "log_time_mismatch",
        "log_inclusion_invalid",
        "tree_head_invalid",
      ]),
    );
    await page.close();
  });

  it("checks the consistency proof to the log's current head, as the server's verifier does", async () => {
    // biome-ignore lint/suspicious/noExplicitAny: mutations reach into arbitrary JSON on purpose
    type Json = any;
    const proof = (await proofOf(s.cards.chrono)) as Json;
    const keys = ((await (await s.get("/.well-known/scoreia-keys.json")).json()) as { keys: never[] }).keys;
    const head = (await (await s.get("/log/tree-head.json")).json()) as Json;
    // the inclusion under the smallest tree that holds the card: older than the current head
    const index = proof.log.index as number;
    const res = await s.get(`/log/inclusion/${s.cards.chrono}.json?tree_size=${index + 1}`);
    expect(res.status).toBe(200);
    const first = (await res.json()) as Json;
    expect(first.tree_head.tree_size).toBe(index + 1);
    expect(head.tree_size).toBeGreaterThan(index + 1);
    const bundle = {
      ...proof,
      log: { index: first.index, leaf: first.leaf, tree_head: first.tree_head, inclusion: first.inclusion },
    };
    const m = bundle.log.tree_head.tree_size;
    const c = (await (await s.get(`/log/consistency.json?first=${m}&second=${head.tree_size}`)).json()) as Json;
    const cases: Array<[string, unknown, unknown]> = [
      ["consistent", bundle, { tree_head: head, consistency: c.consistency }],
      [
        "proof dropped",
        bundle,
        { tree_head: head, consistency: head.tree_size > m ? [] : [`sha256:${"6".repeat(64)}`] },
      ],
      [
        "proof altered",
        bundle,
        { tree_head: head, consistency: [`sha256:${"7".repeat(64)}`, ...c.consistency.slice(1)] },
      ],
      [
        "newer head forged",
        bundle,
        { tree_head: { ...head, root_hash: `sha256:${"8".repeat(64)}` }, consistency: c.consistency },
      ],
    ];
    const page = await open("/verify");
    const browser = (await page.evaluate(
      inPage(
        `const { verifyProof } = await import("/assets/verify-proof.js");
        const [list, trusted, toolsets] = args;
        const out = [];
        for (const [, bundle, latestHead] of list) {
          const r = await verifyProof(bundle, trusted, toolsets, { latestHead });
          out.push([r.verdict, r.code ?? null, r.steps.at(-1).detail]);
        }
        return out;`,
        [cases, keys, known],
      ),
    )) as Array<[string, string | null, string]>;
    cases.forEach(([name, b, latestHead], i) => {
      const server = verifyProof(b, keys, known, { latestHead: latestHead as never });
      expect(browser[i], name).toEqual([server.verdict, server.code ?? null, server.steps.at(-1)?.detail]);
    });
    expect(browser.map((b) => b[1])).toEqual([null, "log_inconsistent", "log_inconsistent", "log_inconsistent"]);
    await page.close();
  });

  it("refuses a proof with a duplicated member name, pasted or fetched (§1.1)", async () => {
    const text = JSON.stringify(await proofOf(s.cards.chrono));
    const page = await open("/verify");
    const ok = await pasteAndVerify(page, text);
    expect(ok.verdict, ok.text).toBe("valid");
    for (const dup of [
      text.replace('"verdict":"', '"verdict":"solved","verdict":"'),
      text.replace('"verdict":"', '"\\u0076erdict":"solved","verdict":"'),
    ]) {
      expect(dup).not.toBe(text);
      const r = await pasteAndVerify(page, dup);
      expect(r.verdict).toBe("invalid");
      expect(r.text).toContain("duplicate member name");
      expect(() => parseStrictJson(dup)).toThrow(/duplicate member name/);
    }
    await page.close();
  });

  it("opens a revealed generation's commitments in the browser, and says so before the reveal (§14.5)", async () => {
    const id = s.cards.atelier;
    const factsOf = async (page: Page) => {
      const r = await verdictOf(page);
      expect(r.verdict, r.text).toBe("valid");
      await page.locator("#facts dt", { hasText: "Reveal" }).waitFor();
      return (await page.locator("#facts").textContent()) ?? "";
    };
    const before = await open(`/verify?card=${id}`);
    expect(await factsOf(before)).toContain("not revealed yet: submitted values and observations stay committed");
    await before.close();

    const stored = await s.h.chamber.registry.get(id);
    const suite = stored?.card.suite as { id: string; generation: string };
    await s.h.chamber.service.reveal(suite.id, suite.generation);
    const path = `/suites/${suite.id}/${suite.generation}/reveal.json`;
    const reveal = (await (await s.get(path)).json()) as { openings: Record<string, Array<{ value: unknown }>> };
    const n = reveal.openings[id]?.length ?? 0;
    expect(n).toBeGreaterThan(0);
    const after = await open(`/verify?card=${id}`);
    const text = await factsOf(after);
    expect(text).toContain(`the secret is the committed one and all ${n} commitments of this replay open`);
    expect(text).toContain(`npx scoreia regrade ${s.base}${path}`);
    await after.close();

    // A reveal whose opening is not the committed value is called out (the card stays valid:
    // the reveal is a separate document).
    const tampered = structuredClone(reveal);
    (tampered.openings[id] as Array<{ value: unknown }>)[0] = { ...tampered.openings[id]?.[0], value: "forged" };
    const page = await open("/verify");
    await page.route(`${s.base}${path}`, (route) =>
      route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify(tampered) }),
    );
    await page.fill("#card-id", id);
    await page.click("#form-id button[type=submit]");
    expect(await factsOf(page)).toContain("the published reveal does not open this card (opening_mismatch)");
    await page.close();
  });
});

describe("pages for people, in Chromium", () => {
  it("the registry lists the cards with links, and no participant markup runs", async () => {
    const page = await open("/");
    await expect.poll(() => page.locator(`a[href="/cards/${s.cards.xss}"]`).count()).toBe(1);
    const text = await page.locator("main").textContent();
    expect(await page.locator(`a[href="/cards/${s.cards.chrono}"]`).getAttribute("title")).toBe(s.cards.chrono);
    expect(text).toContain(XSS.model_claim);
    expect(await page.evaluate("typeof window.__xss")).toBe("undefined");
    expect(await page.locator("#xss").count()).toBe(0);
    // the filters are folded away until opened (or until one is set)
    expect(await page.locator("#f-suite").isVisible()).toBe(false);
    await page.click("details.filters > summary");
    await page.selectOption("#f-suite", "chambre-atelier-v0");
    await page.click("form.filters button[type=submit]");
    await page.waitForURL(/suite=chambre-atelier-v0/);
    const rows = await page.locator("tbody tr").count();
    expect(rows).toBe(1);
    expect(await page.locator(`tbody a[href="/cards/${s.cards.atelier}"]`).count()).toBe(1);
    await page.close();
  });

  it("a card page shows the four identity layers separately and the observed client apart", async () => {
    const page = await open(`/cards/${s.cards.xss}`);
    expect(await page.locator("h1").textContent()).toContain(s.cards.xss);
    const layers = page.locator("ol.layers > li.layer");
    expect(await layers.count()).toBe(4);
    expect(await layers.evaluateAll((ls) => ls.map((l) => l.getAttribute("data-layer")))).toEqual([
      "Declared model",
      "Product",
      "Declared host",
      "Assurance",
    ]);
    expect(await layers.nth(0).locator(".value").textContent()).toBe(XSS.model_claim);
    expect(await layers.nth(1).locator(".value").textContent()).toBe("gpt-5.6-sol");
    expect(await layers.nth(2).locator(".value").textContent()).toBe(XSS.host);
    expect(await layers.nth(3).locator(".value").textContent()).toBe("participant_claimed");
    const observed = page.locator("[data-observed-client]");
    expect(await observed.textContent()).toContain("vitest-client");
    expect(await layers.allInnerTexts()).not.toContainEqual(expect.stringContaining("vitest-client"));
    const main = await page.locator("main").textContent();
    expect(main).toContain(XSS.seed);
    expect(await page.evaluate("typeof window.__xss")).toBe("undefined");
    for (const href of [
      `/proofs/${s.cards.xss}.json`,
      `/replays/public/${s.cards.xss}.json`,
      `/verify/${s.cards.xss}.json`,
    ]) {
      expect(await page.locator(`a[href="${href}"]`).count(), href).toBe(1);
    }
    await page.click(`a[href="/verify?card=${s.cards.xss}"]`);
    expect((await verdictOf(page)).verdict).toBe("valid");
    await page.close();
  });

  it("the Codex renders subjects × suites × channels with not measured cells", async () => {
    const page = await open("/codex");
    const table = page.locator("main table");
    expect(await table.locator("thead").textContent()).toContain("chambre-atelier-v0");
    const body = await table.locator("tbody").textContent();
    expect(body).toContain("claude-x");
    expect(body).toContain(XSS.model_claim);
    expect(body).toContain("not measured");
    expect(await page.locator("td.empty").count()).toBeGreaterThan(0);
    // beside its outcomes, a cell says where its seeds came from and how many had been sealed before
    const claude = table.locator("tbody tr", { hasText: "claude-x" });
    expect(await claude.locator(".seeds").textContent()).toBe(
      "seeds: 1 participant · 0 server · 0 ally · 0 sealed before",
    );
    await page.close();
  });

  it("every page reads at 1280 px and at 375 px: nothing cut off, nothing scrolls sideways (screenshots in docs/img)", async () => {
    if (!context) throw new Error(MISSING);
    const missing: string[] = [];
    const onResponse = (r: { status(): number; url(): string }) => {
      const path = new URL(r.url()).pathname;
      // a page's own resources (stylesheet, scripts, icon); the verify page's 404/409 answers are on purpose
      if (r.status() === 404 && (path.startsWith("/assets/") || path.startsWith("/favicon"))) missing.push(path);
    };
    context.on("response", onResponse);
    const pages: Array<[string, string]> = [
      ["registry", "/"],
      ["card", `/cards/${s.cards.chrono}`],
      ["codex", "/codex"],
      ["verify", `/verify?card=${s.cards.chrono}`],
      ["let-my-ai-in", "/let-my-ai-in"],
    ];
    for (const width of [1280, 375]) {
      for (const [name, path] of pages) {
        const page = await open(path);
        await page.setViewportSize({ width, height: 900 });
        if (name === "verify") expect((await verdictOf(page)).verdict).toBe("valid");
        const overflow = (await page.evaluate(
          "document.documentElement.scrollWidth - document.documentElement.clientWidth",
        )) as number;
        expect(overflow, `${name} at ${width} px scrolls sideways`).toBeLessThanOrEqual(0);
        // tables fit their box at 1280 px (the Codex's right-hand columns once were cut off)
        if (width === 1280 || name === "registry") {
          const cut = (await page
            .locator(".table-wrap")
            .evaluateAll((ws) => ws.map((w) => w.scrollWidth - w.clientWidth))) as number[];
          expect(Math.max(0, ...cut), `${name} table at ${width} px`).toBeLessThanOrEqual(0);
        }
        const shot = join(tmpdir(), `${name}-${width}-${process.pid}.png`);
        await page.screenshot({ path: shot, fullPage: true });
        if (process.env.SCOREIA_SCREENSHOTS === "1") {
          copyFileSync(shot, new URL(`../../../../docs/img/${name}-${width}.png`, import.meta.url));
        }
        rmSync(shot, { force: true });
        if (name === "codex" && width === 375) {
          // on a phone every measured column is a labelled block: nothing scrolls sideways inside
          // the box, the caption is whole, and no word is broken mid-word (participant_claim|ed)
          const inner = (await page
            .locator(".table-wrap")
            .evaluateAll((ws) => ws.map((w) => w.scrollWidth - w.clientWidth))) as number[];
          expect(Math.max(0, ...inner), "codex box at 375 px scrolls sideways").toBeLessThanOrEqual(0);
          const caption = await page.locator("table.codex caption").evaluate((c) => c.scrollWidth - c.clientWidth);
          expect(caption, "codex caption cut at 375 px").toBeLessThanOrEqual(0);
          const split = (await page
            .locator("table.codex .note.sub")
            .evaluateAll((els) =>
              els.filter((e) => e.getClientRects().length > 1).map((e) => e.textContent),
            )) as string[];
          expect(split, "words broken across lines").toEqual([]);
          const labels = await page.locator("table.codex td[data-label]").count();
          expect(labels).toBeGreaterThan(0);
        }
        if (name === "card" && width === 375) {
          // what happened comes first on a phone: the Outcome is on the first screen, above the identity layers
          const outcome = (await page.locator("#outcome").boundingBox())?.y ?? Number.POSITIVE_INFINITY;
          const identity = (await page.locator("#identity").boundingBox())?.y ?? 0;
          expect(outcome).toBeLessThan(identity);
          expect(outcome).toBeLessThan(900);
        }
        if (name === "registry" && width === 375) {
          // on a phone the list comes first: the filters are folded, the first card is on screen
          expect(await page.locator("#f-model").isVisible()).toBe(false);
          const top = (await page.locator("tbody tr").first().boundingBox())?.y ?? Number.POSITIVE_INFINITY;
          expect(top).toBeLessThan(900);
        }
        await page.close();
      }
    }
    context.off("response", onResponse);
    // the favicon is served: no page asked for anything that is not there
    expect(missing).toEqual([]);
    expect((await s.get("/assets/favicon.svg")).headers.get("content-type")).toBe("image/svg+xml");
  });

  it("the registry shows verdict, actions, hints and wrong submissions with readable dates", async () => {
    const page = await open("/");
    const head = await page.locator("table.cards thead").textContent();
    for (const col of ["Verdict", "Actions", "Hints", "Wrong", "Stages"]) expect(head).toContain(col);
    const row = page.locator("tbody tr").first();
    expect(await row.locator("time").first().textContent()).toMatch(/^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC$/);
    expect(await row.locator("time").first().getAttribute("datetime")).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(await row.locator(".badge").first().textContent()).toMatch(
      /^(solved|failed|exhausted|abandoned|expired|quarantined)$/,
    );
    await page.close();
  });

  it("a card page shows wrong submissions, duration, stages cleared and a timeline from the public replay", async () => {
    const page = await open(`/cards/${s.cards.chrono}`);
    const outcome = await page.locator("dl.outcome").textContent();
    for (const k of ["Verdict", "Actions used", "Hints used", "Wrong submissions", "Stages cleared", "Duration"]) {
      expect(outcome).toContain(k);
    }
    const replay = (await (await s.get(`/replays/public/${s.cards.chrono}.json`)).json()) as {
      events: Array<{ kind: string }>;
    };
    const kinds = await page
      .locator("ol.timeline > li")
      .evaluateAll((ls) => ls.map((l) => l.getAttribute("data-kind")));
    expect(kinds).toEqual(replay.events.map((e) => e.kind));
    expect(await page.locator("ol.timeline").textContent()).toContain("look");
    await page.close();
  });

  it("the verify page's Valid says what the card records, so a valid failure card does not read as a pass", async () => {
    const page = await open(`/verify?card=${s.cards.chrono}`);
    const r = await verdictOf(page);
    const card = (await (await s.get(`/cards/${s.cards.chrono}.json`)).json()) as Record<string, never>;
    expect(r.verdict).toBe("valid");
    expect(r.text).toContain(`records verdict ${card.verdict} on chambre-chrono-v0`);
    expect(r.text).toContain("not that the attempt passed");
    expect(await page.locator("#facts").textContent()).toContain("Declared identity");
    await page.close();
  });

  it("Let my AI in shows this server's MCP URL; no page raised an error or a CSP violation", async () => {
    const page = await open("/let-my-ai-in");
    expect(await page.locator("[data-mcp-url]").textContent()).toBe(`${s.base}/mcp`);
    await page.close();
    expect(problems).toEqual([]);
  });
});

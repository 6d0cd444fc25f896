/**
 * "Verify a proof": wires the page to ./verify-proof.js. Fetches only public inputs from this
 * same origin (the proof by card id, the keys, toolset bundles) and never a server verdict.
 * All output goes through textContent: proofs are untrusted input.
 */
import { parseStrictJson } from "./jcs.js";
import { toolsetBundleHash, verifyProof } from "./verify-proof.js";
import { checkOpenings } from "./verify-reveal.js";

const NATIVE_ID = /^(sia|oly)-[0-9a-f]{32}$/;
const HISTORICAL_ID = /^(sia|oly)-[0-9a-f]{16}$/;
const TOOLSET_ID = /^[a-z0-9][a-z0-9-]{0,62}\/\d{1,3}\.\d{1,3}\.\d{1,3}$/;

const LABELS = {
  fetch: "Public inputs fetched from this origin",
  shape: "Shape of the proof bundle",
  canonical_form: "RFC 8785 canonical form and card hash (SHA-256)",
  key: "Signing key is a trusted ScoreIA key",
  signature: "Ed25519 signature over the card statement",
  key_window: "Signed inside the key's validity window",
  replay: "Public replay hash chain ends at the card's replay head",
  manifest: "Suite manifest hashes to the card's manifest_hash",
  policy: "Policy: version, id, channel, assurance, toolset hash",
  log: "In a transparency log: inclusion under a tree head signed by a trusted key",
  consistency: "That log is this server's: consistent with its current tree head",
};

const HEADLINES = {
  valid: "Valid",
  invalid: "Invalid",
  unknown_key: "Unknown key",
  pending_signature: "Pending signature",
  unsigned_historical: "Unsigned historical card",
  error: "Could not verify",
  working: "Verifying…",
};

const $ = (id) => document.getElementById(id);

function show(verdict, message, steps = [], facts = []) {
  const box = $("verdict");
  box.dataset.verdict = verdict;
  box.replaceChildren();
  const strong = document.createElement("strong");
  strong.textContent = HEADLINES[verdict] ?? verdict;
  const text = document.createElement("span");
  text.textContent = message ? ` — ${message}` : "";
  box.append(strong, text);

  const list = $("steps");
  list.replaceChildren();
  for (const s of steps) {
    const li = document.createElement("li");
    li.dataset.step = s.step;
    li.dataset.ok = String(s.ok);
    li.className = s.ok ? "step ok" : "step fail";
    const mark = document.createElement("span");
    mark.className = "mark";
    mark.textContent = s.checked === false ? "not checked" : s.ok ? "passed" : "failed";
    const label = document.createElement("span");
    label.className = "label";
    label.textContent = LABELS[s.step] ?? s.step;
    li.append(mark, label);
    if (s.detail) {
      const d = document.createElement("code");
      d.className = "detail";
      d.textContent = s.detail;
      li.append(d);
    }
    list.append(li);
  }

  const dl = $("facts");
  dl.replaceChildren();
  for (const [k, v] of facts) {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    dd.textContent = v;
    dl.append(dt, dd);
  }
}

async function getJson(path) {
  const res = await fetch(path, { headers: { accept: "application/json" }, cache: "no-cache" });
  let body = null;
  try {
    body = await res.json();
  } catch {
    body = null;
  }
  return { status: res.status, body };
}

/** Like getJson, but refuses a body with a duplicated member name (docs/evidence-0.2.md §1.1). */
async function getStrictJson(path) {
  const res = await fetch(path, { headers: { accept: "application/json" }, cache: "no-cache" });
  const text = await res.text();
  try {
    return { status: res.status, body: parseStrictJson(text) };
  } catch (e) {
    if (e.code === "duplicate_member") return { status: res.status, body: null, duplicate: e.message };
    return { status: res.status, body: null };
  }
}

/**
 * The log's current signed head and the consistency proof from the bundle's head to it
 * (§15.5 item 8, /log/tree-head.json and /log/consistency.json), or null when the server has none.
 */
async function latestHead(bundle, fetched) {
  const size = bundle?.log?.tree_head?.tree_size;
  if (!Number.isSafeInteger(size) || size < 1) return null;
  const head = await getStrictJson("/log/tree-head.json");
  if (head.status !== 200 || !head.body) {
    fetched.push(`no current tree head (HTTP ${head.status}): consistency not checked`);
    return null;
  }
  const current = head.body.tree_size;
  let consistency = [];
  if (Number.isSafeInteger(current) && current !== size) {
    const [first, second] = current > size ? [size, current] : [current, size];
    const c = await getStrictJson(`/log/consistency.json?first=${first}&second=${second}`);
    consistency = c.status === 200 && c.body ? c.body.consistency : null;
  }
  fetched.push(`current tree head (size ${String(current)}) and consistency proof from /log/`);
  return { tree_head: head.body, consistency };
}

async function run(bundle) {
  if (!globalThis.crypto?.subtle) {
    show("error", "WebCrypto is unavailable here: open this page over https or on localhost");
    return;
  }
  show("working", "");
  const fetched = [];
  const keys = await getJson("/.well-known/scoreia-keys.json");
  if (keys.status !== 200 || !Array.isArray(keys.body?.keys)) {
    show("error", `could not load /.well-known/scoreia-keys.json (HTTP ${keys.status})`);
    return;
  }
  fetched.push(`${keys.body.keys.length} key(s) from /.well-known/scoreia-keys.json`);
  const known = {};
  const toolsetId = bundle?.card?.toolset?.id;
  if (typeof toolsetId === "string" && TOOLSET_ID.test(toolsetId)) {
    const t = await getJson(`/spec/toolsets/${toolsetId}.json`);
    if (t.status === 200 && t.body?.toolset_id === toolsetId) {
      known[toolsetId] = await toolsetBundleHash(t.body.bundle);
      fetched.push(`toolset ${toolsetId} (hash recomputed here)`);
    } else {
      fetched.push(`toolset ${toolsetId} is not known to this server: its hash is not checked`);
    }
  }
  let result;
  try {
    const latest = await latestHead(bundle, fetched);
    result = await verifyProof(bundle, keys.body.keys, known, latest ? { latestHead: latest } : {});
  } catch (e) {
    show("error", e.message);
    return;
  }
  const steps = [{ step: "fetch", ok: true, detail: fetched.join("; ") }, ...result.steps];
  const facts = [];
  if (result.card_id) facts.push(["Card", result.card_id]);
  if (bundle?.signature?.key_id) facts.push(["Key id", String(bundle.signature.key_id)]);
  if (bundle?.signature?.signed_at) facts.push(["Signed at", String(bundle.signature.signed_at)]);
  facts.push(["Verified by", "this browser (RFC 8785 in JS, SHA-256 and Ed25519 by WebCrypto)"]);
  // "Valid" means issued and unaltered, not passed: say what the card records (issue 16 §5).
  const card = bundle?.card ?? {};
  const id = card.identity ?? {};
  const records =
    result.verdict === "valid"
      ? `${result.card_id}: the card records verdict ${card.verdict} on ${card.suite?.id}, for declared model ${id.declared_model} ` +
        `(product ${id.product}, declared host ${id.declared_host}, ${id.assurance}). Valid means ScoreIA issued it unaltered, not that the attempt passed.`
      : null;
  if (records) {
    facts.unshift(
      ["Card verdict", String(card.verdict)],
      ["Suite", `${card.suite?.id} (generation ${card.suite?.generation})`],
      ["Declared identity", `${id.declared_model} · ${id.product} · ${id.declared_host} · ${id.assurance}`],
    );
  }
  if (result.verdict === "valid") {
    const reveal = await revealFact(bundle);
    if (reveal) facts.push(["Reveal", reveal]);
  }
  show(result.verdict, records ?? result.message.replace(/^(valid|invalid|unknown key): /, ""), steps, facts);
}

/**
 * Commit-reveal (docs/evidence-0.2.md §14.5): once the card's generation is revealed, its
 * commitments open here; the re-grade itself needs the suite's code (`scoreia regrade`).
 * Null for generations without a room secret.
 */
async function revealFact(bundle) {
  const suite = bundle?.card?.suite ?? {};
  if (!bundle?.manifest?.room_secret || typeof suite.id !== "string" || typeof suite.generation !== "string") {
    return null;
  }
  const path = `/suites/${encodeURIComponent(suite.id)}/${encodeURIComponent(suite.generation)}/reveal.json`;
  const got = await getStrictJson(path);
  if (got.status === 404) return "not revealed yet: submitted values and observations stay committed";
  if (got.duplicate) return `the published reveal is refused: ${got.duplicate}`;
  if (got.status !== 200 || !got.body) return `the reveal could not be read (HTTP ${got.status})`;
  const problem = await checkOpenings(bundle, got.body);
  if (problem) return `the published reveal does not open this card (${problem.code}): ${problem.message}`;
  const n = got.body.openings[bundle.card.card_id].length;
  return `revealed ${got.body.revealed_at}: the secret is the committed one and all ${n} commitments of this replay open; re-grade offline with npx scoreia regrade ${location.origin}${path}`;
}

async function byId(id) {
  if (HISTORICAL_ID.test(id)) {
    show("unsigned_historical", `${id} is a historical 0.1 card: it was never signed and never will be`);
    return;
  }
  if (!NATIVE_ID.test(id)) {
    show("error", "a card id is sia- or oly- followed by 32 hexadecimal digits");
    return;
  }
  show("working", "");
  const proof = await getStrictJson(`/proofs/${id}.json`);
  if (proof.duplicate) {
    show("invalid", proof.duplicate);
    return;
  }
  if (proof.status === 200) {
    await run(proof.body);
    return;
  }
  if (proof.status === 409) {
    show("pending_signature", proof.body?.message ?? `${id} waits for its signature`);
    return;
  }
  if (proof.body?.error === "unsigned_historical") {
    show("unsigned_historical", proof.body.message);
    return;
  }
  show("error", proof.body?.message ?? `no proof for ${id} (HTTP ${proof.status})`);
}

$("form-id").addEventListener("submit", (ev) => {
  ev.preventDefault();
  byId($("card-id").value.trim()).catch((e) => show("error", e.message));
});

$("form-paste").addEventListener("submit", (ev) => {
  ev.preventDefault();
  let bundle;
  try {
    bundle = parseStrictJson($("proof").value);
  } catch (e) {
    show("invalid", e.code === "duplicate_member" ? e.message : `the pasted text is not JSON (${e.message})`);
    return;
  }
  run(bundle).catch((e) => show("error", e.message));
});

const preset = new URLSearchParams(location.search).get("card");
if (preset) {
  $("card-id").value = preset;
  byId(preset.trim()).catch((e) => show("error", e.message));
}

import { fileURLToPath } from "node:url";
import { CURRENT_TOOLSET } from "../contract/index.ts";
import { type CodexCell, OUTCOMES, SEED_SOURCES } from "../evidence/codex.ts";
import type { CardFilters, Codex, StoredCard } from "../evidence/registry.ts";
import { CHANNELS, FILTER_NAMES } from "../evidence/registry.ts";
import type { PublicReplay } from "../evidence/replay.ts";
import { SUITES } from "../suites/index.ts";
import { VERDICTS } from "../suites/verdicts.ts";
import { cardLinks, isNative } from "./cards.ts";
import { duration, when } from "./format.ts";
import { Html, html, query, show } from "./html.ts";
import { timeline } from "./timeline.ts";

/**
 * Pages for people: small, server-rendered, no framework, one local stylesheet, scripts only on
 * the verify page. Every participant-supplied string goes through `html` (escaped).
 */

type Section = "registry" | "codex" | "verify" | "let-my-ai-in" | "card" | "error";

const NAV: Array<[Exclude<Section, "card" | "error">, string, string]> = [
  ["registry", "/", "Registry"],
  ["codex", "/codex", "Codex"],
  ["verify", "/verify", "Verify a proof"],
  ["let-my-ai-in", "/let-my-ai-in", "Let my AI in"],
];

export function layout(opts: { title: string; section: Section; body: Html; scripts?: string[] }): string {
  const nav = NAV.map(
    ([key, href, label]) =>
      html`<li><a href="${href}"${key === opts.section ? new Html(' aria-current="page"') : ""}>${label}</a></li>`,
  );
  const scripts = (opts.scripts ?? []).map((s) => html`<script type="module" src="${s}"></script>`);
  return `<!doctype html>\n${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title} · ScoreIA Open Chamber</title>
<link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/style.css">
<link rel="stylesheet" href="/assets/tables.css">
${scripts}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="site"><div class="inner">
<a class="brand" href="/">ScoreIA Open Chamber</a>
<nav aria-label="Main"><ul>${nav}<li><a href="/spec/0.2">Protocol 0.2 (JSON)</a></li></ul></nav>
</div></header>
<main id="main">
${opts.body}
</main>
<footer class="site"><div class="inner">
<p>Contextualised observations, not a universal score: no rank, and an empty cell means not measured.
An Ed25519 signature proves ScoreIA issuance and the integrity of the public artefacts; it is not a provider identity.</p>
<p class="cta"><a href="/let-my-ai-in">Let my AI in →</a></p>
</div></footer>
</body>
</html>`}\n`;
}

const VERDICT_NAMES: string[] = VERDICTS.map((v) => v.verdict);
const VERDICT_MEANING: Record<string, string> = Object.fromEntries(VERDICTS.map((v) => [v.verdict, v.when]));
const ASSURANCE_VALUES = [
  "participant_claimed",
  "scoreia_controlled",
  "host_reported",
  "official_host_reported",
  "declared",
];
const EVIDENCE_STATUSES = ["signed", "pending_signature", "unsigned_historical"];

const ASSURANCE_NOTES: Record<string, string> = {
  participant_claimed: "Community: the participant declared these fields.",
  scoreia_controlled: "The run was launched by ScoreIA.",
  host_reported: "Historical value, still shown as recorded.",
  official_host_reported: "Historical value, still shown as recorded.",
  declared: "Historical synonym of participant_claimed.",
};

function field(card: Record<string, unknown>, path: string): unknown {
  let v: unknown = card;
  for (const k of path.split(".")) v = v && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

function verdictBadge(v: unknown): Html {
  const name = typeof v === "string" ? v : "—";
  return html`<span class="badge verdict-${name.replace(/[^a-z]/g, "")}" title="${VERDICT_MEANING[name] ?? ""}">${name}</span>`;
}

function badge(status: string): Html {
  return html`<span class="badge ${status.replace(/[^a-z_]/g, "")}">${status.replace(/_/g, " ")}</span>`;
}

// ------------------------------------------------------------------ registry

const FILTER_LABELS: Record<keyof CardFilters, string> = {
  suite: "Suite",
  verdict: "Verdict",
  model: "Declared model",
  product: "Product",
  host: "Declared host",
  assurance: "Assurance",
  channel: "Channel",
  participation_class: "Participation",
  evidence_status: "Evidence status",
  card_version: "Card version",
};

const FILTER_CHOICES: Partial<Record<keyof CardFilters, string[]>> = {
  suite: Object.keys(SUITES),
  verdict: VERDICT_NAMES,
  assurance: ASSURANCE_VALUES,
  channel: [...CHANNELS],
  participation_class: ["external", "sponsored"],
  evidence_status: EVIDENCE_STATUSES,
  card_version: ["0.2", "0.1"],
};

function filterControl(name: keyof CardFilters, value: string | undefined): Html {
  const id = `f-${name}`;
  const choices = FILTER_CHOICES[name];
  const control = choices
    ? html`<select id="${id}" name="${name}"><option value="">any</option>${[
        ...choices,
        ...(value && !choices.includes(value) ? [value] : []),
      ].map((c) => html`<option value="${c}"${c === value ? new Html(" selected") : ""}>${c}</option>`)}</select>`
    : html`<input id="${id}" name="${name}" value="${value ?? ""}" autocomplete="off" spellcheck="false">`;
  return html`<div><label for="${id}">${FILTER_LABELS[name]}</label>${control}</div>`;
}

export function registryPage(opts: {
  cards: StoredCard[];
  nextCursor: string | null;
  filters: CardFilters;
  limit: number;
  error?: string;
}): string {
  const rows = opts.cards.map((c) => {
    const b = c.card;
    const links = cardLinks(c);
    const n = (path: string) => {
      const v = field(b, path);
      return typeof v === "number" ? String(v) : "—";
    };
    const stages = field(b, "attempt.stages_total");
    // Where the seed came from and whether it had been sealed before (issue 16 §1).
    const seedNote = (card: Record<string, unknown>) =>
      typeof card.seed_source === "string"
        ? html`<span class="note sub">${card.seed_source} seed${card.seed_sealed_before === true ? ", sealed before" : ""}</span>`
        : "";
    return html`<tr>
<th scope="row" data-label="Card"><a class="mono" href="${links.page ?? links.card}" title="${c.card_id}">${c.card_id.slice(0, 12)}…</a></th>
<td data-label="Issued">${when(b.issued_at ?? c.created_at)}</td>
<td data-label="Verdict">${verdictBadge(b.verdict)}</td>
<td data-label="Suite">${show(field(b, "suite.id"))}${seedNote(b)}</td>
<td data-label="Actions" class="num">${n("attempt.actions_used")}</td>
<td data-label="Hints" class="num">${n("attempt.hints_used")}</td>
<td data-label="Wrong" class="num">${n("attempt.wrong_submissions")}</td>
<td data-label="Stages" class="num">${typeof stages === "number" ? `${n("attempt.stages_cleared")}/${stages}` : "—"}</td>
<td data-label="Declared model">${show(field(b, "identity.declared_model"))}<span class="note sub">${show(field(b, "identity.product"))}</span></td>
<td data-label="Declared host">${show(field(b, "identity.declared_host"))}<span class="note sub">${show(field(b, "identity.assurance"))}</span></td>
<td data-label="Evidence">${badge(c.evidence_status)}</td>
</tr>`;
  });
  const filterQuery = Object.fromEntries(FILTER_NAMES.map((n) => [n, opts.filters[n]]));
  const active = FILTER_NAMES.filter((n) => opts.filters[n] !== undefined).length;
  const next = opts.nextCursor
    ? html`<a href="/${query({ ...filterQuery, limit: String(opts.limit), cursor: opts.nextCursor })}" rel="next">Older cards →</a>`
    : html`<span class="note">No older cards.</span>`;
  const body = html`<h1>Registry of public cards</h1>
<p class="lede">Every sealed attempt, failures included, is a dated public card. Cards are listed newest first;
there is no rank and no ordering by verdict. The identity columns are what participants declared, the observed
client is what the MCP connection said: separate layers, never merged. JSON: <a href="/cards${query({ ...filterQuery, limit: String(opts.limit) })}">/cards</a>.</p>
<details class="filters"${active > 0 ? new Html(" open") : ""}>
<summary>Filters${active > 0 ? ` (${active} set)` : ""}</summary>
<form class="filters" method="get" action="/" aria-label="Filter cards">
${FILTER_NAMES.map((n) => filterControl(n, opts.filters[n]))}
<div><label for="f-limit">Per page</label><input id="f-limit" name="limit" inputmode="numeric" value="${String(opts.limit)}"></div>
<div class="row"><button type="submit">Filter</button> <a href="/">Reset</a></div>
</form>
</details>
${opts.error ? html`<p class="verdict" data-verdict="error" role="alert">${opts.error}</p>` : ""}
<div class="table-wrap"><table class="cards">
<caption>${opts.cards.length === 0 ? "No card matches." : `${opts.cards.length} card(s) on this page, newest first. Seed, channel and observed client are on each card.`}</caption>
<thead><tr><th scope="col">Card</th><th scope="col">Issued</th><th scope="col">Verdict</th><th scope="col">Suite</th>
<th scope="col" class="num">Actions</th><th scope="col" class="num">Hints</th><th scope="col" class="num">Wrong</th><th scope="col" class="num">Stages</th>
<th scope="col">Declared model <span class="note">/ product</span></th><th scope="col">Declared host <span class="note">/ assurance</span></th><th scope="col">Evidence</th></tr></thead>
<tbody>${rows}</tbody>
</table></div>
<nav class="pager" aria-label="Pages"><a href="/">Newest</a>${next}</nav>`;
  return layout({ title: "Registry", section: "registry", body });
}

// ------------------------------------------------------------------ card

function layer(n: number, title: string, value: unknown, note: string, extra?: Html | string): Html {
  return html`<li class="layer" data-layer="${title}">
<div class="n">Layer ${String(n)}</div>
<h3>${title}</h3>
<p class="value">${show(value, "not given")}</p>
${extra ?? ""}
<p class="note">${note}</p>
</li>`;
}

export function cardPage(c: StoredCard, replay: PublicReplay | null = null): string {
  const b = c.card;
  const id = (b.identity ?? {}) as Record<string, unknown>;
  const client = b.observed_client as Record<string, unknown> | null | undefined;
  const links = cardLinks(c);
  const assurance = String(id.assurance ?? "");
  const native = isNative(c);
  const secondary = (label: string, v: unknown) =>
    v === null || v === undefined || v === "" ? "" : html`<p class="note">${label}: ${show(v)}</p>`;
  const stagesTotal = field(b, "attempt.stages_total");
  const outcome: Array<[string, Html | string]> = [
    ["Verdict", html`${verdictBadge(b.verdict)} <span class="note">${VERDICT_MEANING[String(b.verdict)] ?? ""}</span>`],
    ["Actions used", `${show(field(b, "attempt.actions_used"))} of ${show(field(b, "attempt.max_actions"))}`],
    ["Hints used", show(field(b, "attempt.hints_used"))],
    ["Wrong submissions", show(field(b, "attempt.wrong_submissions"))],
    [
      "Stages cleared",
      typeof stagesTotal === "number" ? `${show(field(b, "attempt.stages_cleared"))} of ${stagesTotal}` : "—",
    ],
    ["Duration", duration(field(b, "attempt.duration_ms"))],
  ];
  const facts: Array<[string, unknown]> = [
    ["Verdict", b.verdict],
    ["Suite", field(b, "suite.id")],
    ["Suite generation", field(b, "suite.generation")],
    ["Manifest hash", field(b, "suite.manifest_hash")],
    ["Seed", b.seed],
    ["Seed source", b.seed_source],
    // Where the seed came from and whether it had been sealed before (added with issue 16 §1).
    ["Seed origin", b.seed_origin],
    ["Seed sealed before", b.seed_sealed_before],
    ["Channel", b.channel],
    ["Participation", b.participation_class],
    ["Route key (pseudonymous)", b.route_key],
    ["Toolset", field(b, "toolset.id")],
    ["Issued", b.issued_at ?? c.created_at],
    ["Entered", field(b, "attempt.entered_at")],
    ["Ended", field(b, "attempt.ended_at")],
    ["Signed", c.signature?.signed_at],
    ["Signing key", c.signature?.key_id],
    ["Card version", c.card_version],
  ];
  const DATES = new Set(["Issued", "Entered", "Ended", "Signed"]);
  const status = native
    ? c.evidence_status === "signed"
      ? "Signed by ScoreIA with Ed25519: issuance and integrity can be verified, locally, from public data."
      : "Written and waiting for its signature; its content will not change when it is signed."
    : "Historical 0.1 card: never signed, and never signed retroactively. Its identifier and content hash can be checked.";
  const body = html`<p class="note"><a href="/">← Registry</a></p>
<h1><span class="mono">${c.card_id}</span></h1>
<p>${verdictBadge(b.verdict)} ${badge(c.evidence_status)} <span class="note">${status}</span></p>

<h2 id="outcome">Outcome</h2>
<dl class="facts outcome">${outcome.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>

<h2 id="identity">Identity: four layers, never merged</h2>
<ol class="layers" aria-labelledby="identity">
${layer(1, "Declared model", id.declared_model, "The name given at entry. Not a provider attestation.", secondary("Declared provider", id.provider_claim))}
${layer(2, "Product", id.product, "The declared product or plan. A host product is never its API.", secondary("Plan", id.product_plan))}
${layer(3, "Declared host", id.declared_host, "The name given at entry. Not a protocol observation nor a provider attestation.", secondary("Host version", id.host_version))}
${layer(4, "Assurance", id.assurance, `${ASSURANCE_NOTES[assurance] ?? "How the identity was obtained."} None of the assurance levels attests provider identity.`)}
</ol>

<h2 id="observed">Observed MCP client</h2>
<div class="panel observed" data-observed-client="">
${
  client && typeof client === "object"
    ? html`<dl class="facts"><dt>Name</dt><dd>${show(client.name)}</dd><dt>Version</dt><dd>${show(client.version)}</dd>${
        client.title ? html`<dt>Title</dt><dd>${show(client.title)}</dd>` : ""
      }</dl>`
    : "observed_client" in b
      ? html`<p>No clientInfo was received.</p>`
      : html`<p>Not recorded on this card.</p>`
}
<p class="note">What the MCP connection said at initialize: a separate observation. It attests neither the application
nor the provider, and is never merged with the declared host or the assurance.</p>
</div>

<h2>Attempt</h2>
<dl class="facts">${facts
    .filter(([k, v]) => k !== "Verdict" && v !== undefined && v !== null && v !== "")
    .map(([k, v]) => html`<dt>${k}</dt><dd>${DATES.has(k) ? when(v) : show(v)}</dd>`)}</dl>

${
  native
    ? html`<h2 id="timeline">Timeline</h2>
<p class="note">From the public replay: every accepted call in order, time from entry. Values the replay keeps private are shown as their short hash.</p>
${timeline(replay)}`
    : ""
}

<h2>Verify</h2>
<ul class="links">
<li><a href="${links.card === `/cards/${c.card_id}` ? `/cards/${c.card_id}.json` : links.card}">Canonical card (JSON)</a></li>
<li><a href="${links.verify}">Server verification (JSON)</a></li>
${native ? html`<li><a href="${links.proof}">Proof bundle</a></li><li><a href="${links.replay}">Public replay</a></li><li><a href="/verify${query({ card: c.card_id })}">Verify in your browser</a></li>` : ""}
</ul>
<p class="note">A valid signature proves that ScoreIA issued this card and that it was not altered. It attests neither
the declared model, nor the product, nor the declared host, nor any general performance.</p>`;
  return layout({ title: `Card ${c.card_id}`, section: "card", body });
}

// ------------------------------------------------------------------ codex

function outcomesLine(o: Record<string, number>): Html {
  return html`<span class="outcomes">${OUTCOMES.map(
    (k, i) => html`${i > 0 ? " · " : ""}<span title="${VERDICT_MEANING[k] ?? ""}">${String(o[k] ?? 0)} ${k}</span>`,
  )}</span>`;
}

const SEED_SOURCE_MEANING: Record<string, string> = {
  participant: "seed chosen by the participant",
  server: "seed drawn by the server at entry",
  ally: "seed given to an ally by call_for_help",
};

/** Where a cell's seeds came from and how many had been sealed before (issue 16 §1); never a level. */
function seedsLine(cell: Pick<CodexCell, "seed_sources" | "seed_sealed_before">): Html {
  return html`<span class="outcomes seeds">seeds: ${SEED_SOURCES.map(
    (k, i) =>
      html`${i > 0 ? " · " : ""}<span title="${SEED_SOURCE_MEANING[k] ?? ""}">${String(cell.seed_sources[k] ?? 0)} ${k}</span>`,
  )} · <span title="cards whose seed had already been sealed (same suite, generation and seed) when the attempt entered">${String(cell.seed_sealed_before)} sealed before</span></span>`;
}

export function codexPage(codex: Codex): string {
  // Only the (suite, channel) columns that hold a card somewhere: the others are "not measured"
  // for every subject and would push the table past a laptop's width.
  const all = codex.suites.flatMap((s) => codex.channels.map((ch) => ({ suite: s, channel: ch })));
  const used = all.filter(({ suite, channel }) => codex.rows.some((r) => r.cells[`${suite.id}|${channel}`]));
  const cols = used.length > 0 ? used : all.filter((c) => c.channel === "mcp_session");
  const unused = all.filter((c) => !cols.includes(c)).map((c) => `${c.suite.id} × ${c.channel}`);
  const head = cols.map(
    (c) => html`<th scope="col">${c.suite.id} <span class="note">gen ${c.suite.generation} · ${c.channel}</span></th>`,
  );
  const rows = codex.rows.map((r) => {
    const cells = cols.map(({ suite, channel }) => {
      const cell = r.cells[`${suite.id}|${channel}`];
      const label = `${suite.id} · gen ${suite.generation} · ${channel}`;
      if (!cell) return html`<td class="empty" data-label="${label}">${codex.empty_cell}</td>`;
      return html`<td data-label="${label}"><strong>${String(cell.cards)} card${cell.cards === 1 ? "" : "s"}</strong> · ${String(cell.distinct_seeds)} distinct seed${cell.distinct_seeds === 1 ? "" : "s"}<br>${outcomesLine(cell.outcomes)}<br>${seedsLine(cell)}${cell.keys.map(
        (k) =>
          html`<br><span class="level">${k.level ?? "—"}</span> <span class="note">${String(k.distinct_seeds)} seed${k.distinct_seeds === 1 ? "" : "s"} · ${k.parameters.toolset_id}, gen ${k.suite_generation}</span>`,
      )}</td>`;
    });
    return html`<tr>
<th scope="row" data-label="Declared model / product">${r.subject.declared_model}<span class="note sub">${r.subject.product}</span></th><td data-label="Declared host / assurance">${r.subject.declared_host}<span class="note sub">${r.subject.assurance}</span></td>
${cells}
</tr>`;
  });
  const body = html`<h1>The Codex</h1>
<p class="lede">Coverage and evidence debt, not a grade. Rows are subjects as declared (four identity layers), in name
order; columns are suites × channels. A cell counts the cards that verify (signature checked) of attempts that took at
least one action, with their distinct seeds and outcomes (${VERDICT_NAMES.slice(0, 4).join(", ")}); no outcome ranks
above another. It also says where the cards' seeds came from (${SEED_SOURCES.join(", ")}) and how many had already been
sealed before the attempt entered. Evidence levels count distinct seeds per comparison key: 1–2 exploratory,
3–4 provisional, 5 or more confirmed; a repeated seed never raises a level, whatever its source. An empty cell means not measured. JSON: <a href="/codex.json">/codex.json</a>.</p>
<div class="table-wrap"><table class="codex">
<caption>${codex.rows.length === 0 ? "No subject measured yet." : `${codex.rows.length} subject(s), in name order.`}${unused.length > 0 ? ` Not measured for anyone: ${unused.join(", ")}.` : ""}</caption>
<thead>
<tr><th scope="col">Declared model <span class="note">/ product</span></th><th scope="col">Declared host <span class="note">/ assurance</span></th>${head}</tr>
</thead>
<tbody>${rows}</tbody>
</table></div>`;
  return layout({ title: "Codex", section: "codex", body });
}

// ------------------------------------------------------------------ verify

export function verifyPage(): string {
  const body = html`<h1>Verify a proof</h1>
<p class="lede">Checks a native 0.2 card entirely in this browser: RFC 8785 canonical form, SHA-256 card hash,
the Ed25519 signature (WebCrypto), the key's validity window, the public replay's hash chain and the suite manifest
hash. The server is asked only for public inputs (the proof, the keys, the toolset bundle), never for a verdict.
Historical 0.1 cards were never signed and have no native proof.</p>
<div class="columns">
<section class="panel" aria-labelledby="by-id">
<h2 id="by-id">By card id</h2>
<form id="form-id" autocomplete="off">
<label for="card-id">Card id</label>
<div class="row"><div><input id="card-id" name="card" placeholder="sia-0123…(32 hex)" spellcheck="false" aria-describedby="card-id-help"></div>
<button type="submit">Fetch and verify</button></div>
<p id="card-id-help" class="note">Fetches /proofs/{card_id}.json and /.well-known/scoreia-keys.json from this server.</p>
</form>
</section>
<section class="panel" aria-labelledby="by-paste">
<h2 id="by-paste">Paste a proof bundle</h2>
<form id="form-paste">
<label for="proof">Proof bundle (JSON)</label>
<textarea id="proof" name="proof" spellcheck="false" placeholder="{&quot;proof_version&quot;: &quot;scoreia-proof/0.2&quot;, …}"></textarea>
<div class="row"><button type="submit">Verify pasted proof</button></div>
</form>
</section>
</div>
<section aria-labelledby="result-title">
<h2 id="result-title">Result</h2>
<div id="verdict" class="verdict" data-verdict="idle" role="status" aria-live="polite">No proof verified yet.</div>
<ol id="steps" class="steps" aria-label="Verification steps"></ol>
<dl id="facts" class="facts"></dl>
</section>
<noscript><p>This page verifies in your browser and needs JavaScript. The server's own verification is at
/verify/{card_id}.json.</p></noscript>
<p class="note">A valid result proves ScoreIA issuance and the integrity of the card, replay and manifest. It is not a
provider identity.</p>`;
  return layout({ title: "Verify a proof", section: "verify", body, scripts: ["/assets/verify-page.js"] });
}

// ------------------------------------------------------------------ let my AI in

function snippet(title: string, where: string, code: string, note?: string): Html {
  return html`<section class="panel" aria-label="${title}">
<h3>${title}</h3>
<p class="note">${where}</p>
<pre><code>${code}</code></pre>
${note ? html`<p class="note">${note}</p>` : ""}
</section>`;
}

/** This installation's bin, for the stdio snippet: an absolute path that runs from any folder. */
const LOCAL_BIN = fileURLToPath(new URL("../../bin/scoreia.mjs", import.meta.url));

export function letMyAiInPage(origin: string): string {
  const mcp = `${origin}/mcp`;
  const j = (v: unknown) => JSON.stringify(v, null, 2);
  const notice = CURRENT_TOOLSET.identity.publication_notice;
  const body = html`<h1>Let my AI in</h1>
<p class="lede">The Open Chamber is an MCP server. Connect your MCP host to it, then ask your model to enter the
Open Chamber: it calls <code>enter_open_challenge</code>, plays the room through <code>observe_chamber</code> and
<code>chamber_action</code>, and ends with <code>seal_attempt</code>. No account, no API key, no invitation.</p>
<p>MCP endpoint (Streamable HTTP): <code data-mcp-url="">${mcp}</code></p>

<h2>Connect your host</h2>
<div class="snippets">
${snippet("Cursor", "~/.cursor/mcp.json, or .cursor/mcp.json in a project", j({ mcpServers: { scoreia: { url: mcp } } }))}
${snippet("VS Code (GitHub Copilot agent mode)", ".vscode/mcp.json in the workspace", j({ servers: { scoreia: { type: "http", url: mcp } } }))}
${snippet(
  "Claude Desktop",
  "claude_desktop_config.json (through the mcp-remote bridge; Settings → Connectors takes an https URL directly)",
  j({ mcpServers: { scoreia: { command: "npx", args: ["-y", "mcp-remote", mcp] } } }),
)}
${snippet("Claude Code", "a terminal", `claude mcp add --transport http scoreia ${mcp}`)}
${snippet("Windsurf", "~/.codeium/windsurf/mcp_config.json", j({ mcpServers: { scoreia: { serverUrl: mcp } } }))}
${snippet("Zed", "settings.json", j({ context_servers: { scoreia: { url: mcp } } }))}
${snippet("Codex CLI", "~/.codex/config.toml", `[mcp_servers.scoreia]\nurl = "${mcp}"`)}
${snippet("Gemini CLI", "~/.gemini/settings.json", j({ mcpServers: { scoreia: { httpUrl: mcp } } }))}
${snippet(
  "Any other MCP host",
  "Streamable HTTP at the URL above; or, on the machine that runs this server, launch it over stdio",
  j({ mcpServers: { scoreia: { command: process.execPath, args: [LOCAL_BIN, "serve"] } } }),
  "Absolute paths: it works from any folder. Never a bare `npx scoreia` outside this server's installation: npx would fetch whatever package of that name the registry holds. A local stdio server keeps its own database and signing key: its cards are not this server's cards.",
)}
</div>

<h2>Declaring identity</h2>
<p>At entry your model declares four things; they appear on the public card as separate layers and are never merged:</p>
<ol>
<li><strong>Declared model</strong> (<code>model_claim</code>, with <code>provider_claim</code>): the name given at entry, not a provider attestation.</li>
<li><strong>Product</strong> (<code>product</code>, optional <code>product_plan</code>): the model or slot under test, e.g. <code>gpt-5.6-sol</code>. A host is never a product: cursor, vscode or claude-desktop are hosts.</li>
<li><strong>Declared host</strong> (<code>host</code>, optional <code>host_version</code>): the MCP host it says it runs in.</li>
<li><strong>Assurance</strong>: set by ScoreIA, <code>participant_claimed</code> for community runs, <code>scoreia_controlled</code> only for runs ScoreIA launched.</li>
</ol>
<p><code>unknown</code> is accepted for each declared field. The MCP <code>clientInfo</code> your host sends is recorded as a
separate observation: it attests neither the application nor the provider. Optional: a pseudonymous route key
(<code>route_key</code>) groups your attempts without identifying you; <code>participation_class</code> tells sponsored
tests from outside participants and never changes the evidence.</p>

<h2>Publication notice</h2>
<div class="panel">
<p lang="en">${notice.en}</p>
<p lang="fr">${notice.fr}</p>
<p class="note"><a href="${notice.privacy}">Privacy</a> · <a href="${notice.terms}">Terms</a></p>
</div>
<p class="note">Toolset ${CURRENT_TOOLSET.toolset_id} — <a href="/spec/toolsets/${CURRENT_TOOLSET.toolset_id}.json">schema bundle and hash</a>.</p>`;
  return layout({ title: "Let my AI in", section: "let-my-ai-in", body });
}

// ------------------------------------------------------------------ errors

export function errorPage(title: string, message: string, link?: { href: string; label: string }): string {
  const body = html`<h1>${title}</h1>
<p>${message}</p>
${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : ""}
<p><a href="/">← Registry</a></p>`;
  return layout({ title, section: "error", body });
}

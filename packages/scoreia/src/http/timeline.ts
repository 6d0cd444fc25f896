/**
 * A readable timeline of an attempt from its public replay (the same redacted events a verifier
 * chains). Entries are rendered generically: whatever a request or response holds is shown by
 * shape, and a redacted value or a salted commitment (any object with a `redacted`, `commitment`
 * or `digest` member) appears as its short hash, never as anything it hides.
 */
import type { PublicReplay } from "../evidence/replay.ts";
import { offset, shortHash } from "./format.ts";
import { type Html, html } from "./html.ts";

const HIDDEN_KEYS = ["redacted", "commitment", "digest"];
const TEXT_MAX = 220;

function clip(s: string): string {
  return s.length > TEXT_MAX ? `${s.slice(0, TEXT_MAX - 1)}…` : s;
}

/** One value, by shape. */
export function brief(v: unknown): Html {
  if (v === null || v === undefined) return html`<span class="note">none</span>`;
  if (typeof v === "string") return html`${clip(v)}`;
  if (typeof v === "number" || typeof v === "boolean") return html`${String(v)}`;
  if (Array.isArray(v)) return html`${v.map((x, i) => html`${i > 0 ? ", " : ""}${brief(x)}`)}`;
  const o = v as Record<string, unknown>;
  const hidden = HIDDEN_KEYS.find((k) => typeof o[k] === "string");
  if (hidden) {
    return html`<span class="hash" title="${String(o[hidden])}">${hidden === "redacted" ? "hidden" : hidden} ${shortHash(String(o[hidden]))}</span>`;
  }
  return html`<code>${clip(JSON.stringify(o))}</code>`;
}

const SKIP_REQUEST = new Set(["challenge_handle", "expected_action_index"]);

/** What the participant sent, without the envelope's bookkeeping. */
function requestText(kind: string, req: unknown): Html {
  if (!req || typeof req !== "object" || Array.isArray(req)) return brief(req);
  const r = req as Record<string, unknown>;
  if (HIDDEN_KEYS.some((k) => typeof r[k] === "string")) return brief(r);
  if (kind === "action") {
    const parts = [html`<strong>${String(r.op ?? "?")}</strong>`];
    if (r.object !== undefined) parts.push(html` ${brief(r.object)}`);
    if (r.value !== undefined) parts.push(html` = ${brief(r.value)}`);
    return html`${parts}`;
  }
  const rest = Object.entries(r).filter(([k]) => !SKIP_REQUEST.has(k));
  return html`${rest.map(([k, x], i) => html`${i > 0 ? " · " : ""}${k}: ${brief(x)}`)}`;
}

/** What the room answered: the result, an error code, the observation's text. */
function responseText(res: unknown): Html {
  if (!res || typeof res !== "object" || Array.isArray(res)) return brief(res);
  const r = res as Record<string, unknown>;
  if (HIDDEN_KEYS.some((k) => typeof r[k] === "string")) return brief(r);
  const parts: Html[] = [];
  if (typeof r.result === "string") parts.push(html`<span class="badge ${r.result}">${r.result}</span> `);
  if (r.ok === false && typeof r.code === "string") parts.push(html`<span class="badge failed">${r.code}</span> `);
  const obs = r.observation as { text?: unknown } | undefined;
  if (obs && typeof obs === "object") parts.push(obs.text !== undefined ? brief(obs.text) : brief(obs));
  else if (typeof r.verdict === "string") parts.push(html`verdict ${r.verdict}`);
  else if (typeof r.attempt_state === "string") parts.push(html`state ${r.attempt_state}`);
  return html`${parts}`;
}

export function timeline(replay: PublicReplay | null): Html {
  if (!replay || replay.events.length === 0) {
    return html`<p class="note">No public replay for this card.</p>`;
  }
  const start = Date.parse(replay.events[0]?.at ?? "");
  const items = replay.events.map(
    (e) => html`<li class="event" data-kind="${e.kind}">
<span class="when">${offset(e.at, start)}</span>
<span class="what">${e.kind === "action" ? html`#${String(e.action_index)}` : e.kind.replace(/_/g, " ")}</span>
<div class="said"><div>${requestText(e.kind, e.request)}</div><div class="answer">${responseText(e.response)}</div></div>
</li>`,
  );
  return html`<ol class="timeline" aria-label="Attempt timeline">${items}</ol>`;
}

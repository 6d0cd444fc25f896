import { createHash } from "node:crypto";
import type { Context } from "hono";
import { etag, RETAINED_304_HEADERS } from "hono/etag";

/**
 * One way out for every public response: status, body, content type, cache policy and strong
 * ETag. Handlers build a body and pick a policy; nothing else writes headers. Conditional GET
 * (If-None-Match, 304) is Hono's etag middleware (`conditional`), over the ETags set here.
 */

/**
 * - immutable: signed artefacts whose bytes can never change (a signed card, a replay of a signed
 *   card, toolset bundles, a proof whose key window is closed).
 * - short: lists, verification results, keys, the Codex, pages, assets — they change as cards
 *   arrive or keys rotate; revalidate with the ETag.
 * - no-store: pending artefacts and errors (an id unknown now may exist in a second).
 */
export type CachePolicy = "immutable" | "short" | "no-store";

export const CACHE_CONTROL: Record<CachePolicy, string> = {
  immutable: "public, max-age=31536000, immutable",
  short: "public, max-age=60",
  "no-store": "no-store",
};

export const JSON_TYPE = "application/json; charset=utf-8";
export const HTML_TYPE = "text/html; charset=utf-8";

/** Pages: same-origin scripts, styles and fetches only; no inline code, no framing. */
export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

export interface Reply {
  status?: number;
  body: string | Buffer;
  type: string;
  cache: CachePolicy;
  /** Extra headers (lower-case names). */
  headers?: Record<string, string>;
}

/** Strong validator: SHA-256 of the exact body bytes. */
export function etagOf(body: Buffer): string {
  return `"sha256-${createHash("sha256").update(body).digest("base64url")}"`;
}

/**
 * Hono's etag middleware answers If-None-Match (RFC 9110 §13.1.2 weak comparison, `*`) with 304
 * for the tags `send` set; it computes none itself (no-store replies carry no validator), and the
 * 304 keeps the headers a client needs to reuse its copy.
 */
export const conditional = () =>
  etag({
    generateDigest: () => null as unknown as ArrayBuffer,
    retainedHeaders: [
      ...RETAINED_304_HEADERS,
      "access-control-allow-origin",
      "content-security-policy",
      "referrer-policy",
      "scoreia-evidence-status",
      "link",
    ],
  });

export function send(c: Context, r: Reply): Response {
  const body = typeof r.body === "string" ? Buffer.from(r.body, "utf8") : r.body;
  const status = r.status ?? 200;
  const headers: Record<string, string> = {
    "cache-control": CACHE_CONTROL[r.cache],
    "referrer-policy": "no-referrer",
    ...(r.type.startsWith("application/json") ? { "access-control-allow-origin": "*" } : {}),
    ...(r.type.startsWith("text/html") ? { "content-security-policy": PAGE_CSP } : {}),
    ...r.headers,
    "content-type": r.type,
    "content-length": String(body.length),
  };
  if (status === 200 && r.cache !== "no-store") headers.etag = etagOf(body);
  return new Response(c.req.method === "HEAD" ? null : new Uint8Array(body), { status, headers });
}

export function sendJson(
  c: Context,
  value: unknown,
  cache: CachePolicy,
  opts: { status?: number; headers?: Record<string, string>; text?: string } = {},
): Response {
  return send(c, {
    status: opts.status ?? 200,
    body: opts.text ?? `${JSON.stringify(value, null, 2)}\n`,
    type: JSON_TYPE,
    cache,
    ...(opts.headers ? { headers: opts.headers } : {}),
  });
}

/** The one JSON error shape: {error, message, …extra}. Never cached. */
export function sendError(
  c: Context,
  status: number,
  error: string,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Response {
  return sendJson(c, { error, message, ...extra }, "no-store", { status, headers });
}

/**
 * Content negotiation between JSON and HTML only: the q-values of text/html and application/json
 * (wildcards count for nothing, so `*∕*` falls back to the route's default).
 */
export function wantsHtml(accept: string | undefined, htmlByDefault: boolean): boolean {
  let html = 0;
  let json = 0;
  for (const part of (accept ?? "").split(",")) {
    const [type = "", ...params] = part.trim().toLowerCase().split(";");
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    if (type.trim() === "text/html" || type.trim() === "application/xhtml+xml") html = Math.max(html, q);
    if (type.trim() === "application/json") json = Math.max(json, q);
  }
  if (html === json) return htmlByDefault;
  return html > json;
}

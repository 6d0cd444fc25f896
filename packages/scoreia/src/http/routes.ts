import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { isDomainError, type RouteHandler } from "kernel";
import { schemaBundlePayload, TOOLSETS, toolsetHash } from "../contract/index.ts";
import { canonicalJson } from "../evidence/jcs.ts";
import type { CardRegistry, Codex, StoredCard } from "../evidence/registry.ts";
import {
  ANY_CARD_ID,
  cardSummary,
  isNative,
  LABYRINTH_HISTORICAL_ID,
  type ListQuery,
  parseListQuery,
} from "./cards.ts";
import { cardPage, codexPage, errorPage, letMyAiInPage, registryPage, verifyPage } from "./pages.ts";
import { type CachePolicy, HTML_TYPE, send, sendError, sendJson, wantsHtml } from "./respond.ts";
import { specSummary, TOOLSET_ID_PATTERN } from "./spec.ts";

/**
 * The public read side over HTTP (protocol 0.2 "Read and verify"): JSON endpoints for machines,
 * small pages for people, on the same listener as /mcp (kernel serveHttp `routes`). Read-only:
 * GET and HEAD; any other method on a known path is 405. Card ids are checked against their
 * pattern before any lookup. Reference: docs/http.md.
 */

export interface PublicRoutesOptions {
  /** Origin shown in "Let my AI in" snippets, e.g. https://chamber.example. Default: from the Host header. */
  publicOrigin?: string;
}

interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  registry: CardRegistry;
  opts: PublicRoutesOptions;
}

type Handler = (ctx: Ctx, m: RegExpMatchArray) => Promise<void> | void;

const ASSETS: Record<string, { type: string; body: Buffer }> = Object.fromEntries(
  (
    [
      ["style.css", "text/css; charset=utf-8"],
      ["jcs.js", "text/javascript; charset=utf-8"],
      ["verify-proof.js", "text/javascript; charset=utf-8"],
      ["verify-page.js", "text/javascript; charset=utf-8"],
      ["favicon.svg", "image/svg+xml"],
    ] as const
  ).map(([name, type]) => [name, { type, body: readFileSync(new URL(`assets/${name}`, import.meta.url)) }]),
);

const STATUS_HEADER = "scoreia-evidence-status";

function fail(
  ctx: Ctx,
  status: number,
  error: string,
  message: string,
  opts: { html?: boolean; extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
): void {
  if (opts.html) {
    const link =
      typeof opts.extra?.location === "string" ? { href: opts.extra.location, label: opts.extra.location } : undefined;
    send(ctx.req, ctx.res, {
      status,
      body: errorPage(status === 404 ? "Not found" : "Bad request", message, link),
      type: HTML_TYPE,
      cache: "no-store",
      ...(opts.headers ? { headers: opts.headers } : {}),
    });
    return;
  }
  sendError(ctx.req, ctx.res, status, error, message, opts.extra ?? {}, opts.headers ?? {});
}

function badCardId(ctx: Ctx, id: string, html = false): void {
  fail(ctx, 400, "bad_card_id", `${JSON.stringify(id.slice(0, 80))} is not a card id: sia- or oly- + 16 or 32 hex`, {
    html,
  });
}

function notFound(ctx: Ctx, id: string, html = false): void {
  fail(ctx, 404, "card_not_found", `no card ${id} on this server`, { html });
}

function unsignedHistorical(ctx: Ctx, id: string, what: "proof" | "replay"): void {
  fail(ctx, 404, "unsigned_historical", `unsigned historical: no native ${what}; ${id} is a 0.1 card, never signed`, {
    extra: { card_id: id, evidence_status: "unsigned_historical", verify: `/verify/${id}.json` },
  });
}

/** The canonical card bytes; the same string that was hashed and signed. */
function cardBytes(c: StoredCard): string {
  return canonicalJson(c.card);
}

function cardCache(c: StoredCard): CachePolicy {
  if (!isNative(c)) return "short";
  return c.evidence_status === "signed" ? "immutable" : "no-store";
}

// ------------------------------------------------------------------ handlers

async function card(ctx: Ctx, id: string, negotiate: boolean): Promise<void> {
  const html = negotiate && wantsHtml(ctx.req.headers.accept, false);
  const vary: Record<string, string> = negotiate ? { vary: "Accept" } : {};
  if (!ANY_CARD_ID.test(id)) return badCardId(ctx, id, html);
  if (LABYRINTH_HISTORICAL_ID.test(id)) {
    const location = `/open-labyrinth/cards/${id}.json`;
    return fail(ctx, 404, "historical_labyrinth_card", `historical Labyrinth oly-16 cards are served at ${location}`, {
      html,
      extra: { card_id: id, location },
      headers: { link: `<${location}>; rel="alternate"; type="application/json"`, ...vary },
    });
  }
  const stored = await ctx.registry.get(id);
  if (!stored) return notFound(ctx, id, html);
  if (html) {
    const replay = isNative(stored) ? await ctx.registry.replay(id) : null;
    send(ctx.req, ctx.res, { body: cardPage(stored, replay), type: HTML_TYPE, cache: "short", headers: vary });
    return;
  }
  sendJson(ctx.req, ctx.res, null, cardCache(stored), {
    text: cardBytes(stored),
    headers: { [STATUS_HEADER]: stored.evidence_status, ...vary },
  });
}

async function verification(ctx: Ctx, id: string): Promise<void> {
  if (!ANY_CARD_ID.test(id)) return badCardId(ctx, id);
  const result = await ctx.registry.verify(id);
  if (!result) return notFound(ctx, id);
  sendJson(ctx.req, ctx.res, result, result.verdict === "pending_signature" ? "no-store" : "short");
}

async function proof(ctx: Ctx, id: string): Promise<void> {
  if (!ANY_CARD_ID.test(id)) return badCardId(ctx, id);
  const stored = await ctx.registry.get(id);
  if (!stored) return notFound(ctx, id);
  if (!isNative(stored)) return unsignedHistorical(ctx, id, "proof");
  if (!stored.signature) {
    // 409, not 202: a client that only tests for 2xx must never mistake this body for a proof.
    return fail(ctx, 409, "pending_signature", `pending signature: ${id} is written and waits for its signature`, {
      extra: { card_id: id, status: "pending_signature", evidence_status: "pending_signature" },
      headers: { "retry-after": "30" },
    });
  }
  const bundle = await ctx.registry.proof(id);
  if (!bundle) return notFound(ctx, id);
  // Immutable even though the embedded key record gains a not_after when its key rotates: a copy
  // fetched before the rotation still verifies (verifyProof accepts not_after: null for it).
  sendJson(ctx.req, ctx.res, null, "immutable", { text: canonicalJson(bundle) });
}

async function replay(ctx: Ctx, id: string): Promise<void> {
  if (!ANY_CARD_ID.test(id)) return badCardId(ctx, id);
  const stored = await ctx.registry.get(id);
  if (!stored) return notFound(ctx, id);
  if (!isNative(stored)) return unsignedHistorical(ctx, id, "replay");
  const r = await ctx.registry.replay(id);
  if (!r) return notFound(ctx, id);
  sendJson(ctx.req, ctx.res, null, stored.evidence_status === "signed" ? "immutable" : "no-store", {
    text: canonicalJson(r),
  });
}

async function labyrinthCard(ctx: Ctx, id: string): Promise<void> {
  if (!ANY_CARD_ID.test(id)) return badCardId(ctx, id);
  if (!LABYRINTH_HISTORICAL_ID.test(id)) {
    const location = `/cards/${id}`;
    return fail(ctx, 404, "not_a_historical_labyrinth_card", `only historical oly-16 cards are here; see ${location}`, {
      extra: { card_id: id, location },
    });
  }
  const stored = await ctx.registry.get(id);
  if (!stored) return notFound(ctx, id);
  sendJson(ctx.req, ctx.res, null, "short", {
    text: cardBytes(stored),
    headers: { [STATUS_HEADER]: stored.evidence_status },
  });
}

function toolset(ctx: Ctx, id: string): void {
  if (!TOOLSET_ID_PATTERN.test(id)) {
    fail(ctx, 400, "bad_toolset_id", "a toolset id looks like scoreia-chamber-tools/0.3.2");
    return;
  }
  const t = TOOLSETS[id];
  if (!t) {
    fail(
      ctx,
      404,
      "toolset_unknown",
      `${id} is not known to this build: cards sealed under it stay bound to it, but its definition is not here`,
      { extra: { toolset_id: id, known: Object.keys(TOOLSETS) } },
    );
    return;
  }
  sendJson(ctx.req, ctx.res, null, "immutable", {
    text: canonicalJson({ toolset_id: t.toolset_id, hash: toolsetHash(t), bundle: schemaBundlePayload(t) }),
  });
}

/** Rows in name order of their four layers (declared model first), compared by code unit: no rank. */
function inNameOrder(codex: Codex): Codex {
  const key = (r: Codex["rows"][number]) => [
    r.subject.declared_model,
    r.subject.product,
    r.subject.declared_host,
    r.subject.assurance,
  ];
  const rows = [...codex.rows].sort((a, b) => {
    const [ka, kb] = [key(a), key(b)];
    for (let i = 0; i < ka.length; i++) {
      const [x, y] = [ka[i] as string, kb[i] as string];
      if (x !== y) return x < y ? -1 : 1;
    }
    return 0;
  });
  return { ...codex, rows };
}

async function codex(ctx: Ctx, forceJson: boolean): Promise<void> {
  const data = inNameOrder(await ctx.registry.codex());
  if (!forceJson && wantsHtml(ctx.req.headers.accept, true)) {
    send(ctx.req, ctx.res, { body: codexPage(data), type: HTML_TYPE, cache: "short", headers: { vary: "Accept" } });
    return;
  }
  sendJson(ctx.req, ctx.res, data, "short", forceJson ? {} : { headers: { vary: "Accept" } });
}

async function list(ctx: Ctx): Promise<void> {
  const q = parseListQuery(ctx.url.searchParams);
  if ("error" in q) return fail(ctx, 400, "bad_query", q.error);
  const page = await ctx.registry.list(q.filters, { limit: q.limit, ...(q.cursor ? { cursor: q.cursor } : {}) });
  sendJson(
    ctx.req,
    ctx.res,
    { order: "newest_first", limit: q.limit, cards: page.cards.map(cardSummary), next_cursor: page.next_cursor },
    "short",
  );
}

async function registryHtml(ctx: Ctx): Promise<void> {
  // The filter form submits every field; an empty one means "any" here (the JSON API refuses it).
  const params = new URLSearchParams([...ctx.url.searchParams].filter(([, v]) => v !== ""));
  const q = parseListQuery(params);
  const query: ListQuery = "error" in q ? { filters: {}, limit: 50 } : q;
  const page =
    "error" in q
      ? { cards: [], next_cursor: null }
      : await ctx.registry.list(query.filters, {
          limit: query.limit,
          ...(query.cursor ? { cursor: query.cursor } : {}),
        });
  send(ctx.req, ctx.res, {
    status: "error" in q ? 400 : 200,
    body: registryPage({
      cards: page.cards,
      nextCursor: page.next_cursor,
      filters: query.filters,
      limit: query.limit,
      ...("error" in q ? { error: q.error } : {}),
    }),
    type: HTML_TYPE,
    cache: "error" in q ? "no-store" : "short",
  });
}

const HOST = /^(?:[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?|\[[0-9a-f:.]{2,45}\])(?::[0-9]{1,5})?$/i;

/** The origin MCP hosts should use: configured, else this request's Host when it is a plain host[:port]. */
function originOf(ctx: Ctx): string {
  if (ctx.opts.publicOrigin) return ctx.opts.publicOrigin.replace(/\/+$/, "");
  const host = ctx.req.headers.host;
  return host && HOST.test(host) ? `http://${host.toLowerCase()}` : "http://127.0.0.1:8420";
}

function page(body: (ctx: Ctx) => string): Handler {
  return (ctx) => send(ctx.req, ctx.res, { body: body(ctx), type: HTML_TYPE, cache: "short" });
}

const ROUTES: Array<[RegExp, Handler]> = [
  [/^\/(?:registry)?$/, registryHtml],
  [/^\/cards$/, list],
  [/^\/cards\/([^/]*?)\.json$/, (ctx, m) => card(ctx, m[1] as string, false)],
  [/^\/cards\/([^/]*)$/, (ctx, m) => card(ctx, m[1] as string, true)],
  [/^\/verify$/, page(verifyPage)],
  [/^\/verify\/([^/]*)\.json$/, (ctx, m) => verification(ctx, m[1] as string)],
  [/^\/proofs\/([^/]*)\.json$/, (ctx, m) => proof(ctx, m[1] as string)],
  [/^\/replays\/public\/([^/]*)\.json$/, (ctx, m) => replay(ctx, m[1] as string)],
  [/^\/open-labyrinth\/cards\/([^/]*)\.json$/, (ctx, m) => labyrinthCard(ctx, m[1] as string)],
  [
    /^\/\.well-known\/scoreia-keys\.json$/,
    async (ctx) => sendJson(ctx.req, ctx.res, { keys: await ctx.registry.keys() }, "short"),
  ],
  [/^\/spec\/0\.2(?:\.json)?$/, (ctx) => sendJson(ctx.req, ctx.res, specSummary(), "short")],
  [/^\/spec\/toolsets\/(.+)\.json$/, (ctx, m) => toolset(ctx, m[1] as string)],
  [/^\/codex$/, (ctx) => codex(ctx, false)],
  [/^\/codex\.json$/, (ctx) => codex(ctx, true)],
  [/^\/let-my-ai-in$/, page((ctx) => letMyAiInPage(originOf(ctx)))],
  [
    /^\/assets\/([^/]+)$/,
    (ctx, m) => {
      const a = ASSETS[m[1] as string];
      if (!a) return fail(ctx, 404, "not_found", `no asset ${m[1]}`);
      send(ctx.req, ctx.res, { body: a.body, type: a.type, cache: "short" });
    },
  ],
];

/** Maps DomainErrors raised by the registry to HTTP; anything else is a 500 without details. */
function failure(ctx: Ctx, e: unknown): void {
  if (ctx.res.headersSent) {
    ctx.res.end();
    return;
  }
  if (isDomainError(e) && e.code === "bad_cursor") {
    fail(ctx, 400, "bad_cursor", e.message);
    return;
  }
  process.stderr.write(
    `public routes: ${ctx.url.pathname}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`,
  );
  const code = isDomainError(e) ? e.code : "internal_error";
  fail(ctx, 500, code, isDomainError(e) ? e.message : "internal error");
}

export function publicRoutes(registry: CardRegistry, opts: PublicRoutesOptions = {}): RouteHandler {
  return async (req, res, url) => {
    for (const [re, handler] of ROUTES) {
      const m = url.pathname.match(re);
      if (!m) continue;
      const ctx: Ctx = { req, res, url, registry, opts };
      if (req.method !== "GET" && req.method !== "HEAD") {
        fail(ctx, 405, "method_not_allowed", `${req.method} is not allowed here: the public endpoints are read-only`, {
          headers: { allow: "GET, HEAD" },
        });
        return true;
      }
      try {
        await handler(ctx, m);
      } catch (e) {
        failure(ctx, e);
      }
      return true;
    }
    return false;
  };
}

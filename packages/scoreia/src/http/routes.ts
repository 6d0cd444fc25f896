import { readFileSync } from "node:fs";
import type { Context, Hono } from "hono";
import { isDomainError, logger, type RouteHandler, STORE_FAULT_CODES, type StoreFaultCode, storeFault } from "kernel";
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
import * as logRoutes from "./log.ts";
import { cardPage, codexPage, errorPage, letMyAiInPage, registryPage, verifyPage } from "./pages.ts";
import { type CachePolicy, conditional, HTML_TYPE, send, sendError, sendJson, wantsHtml } from "./respond.ts";
import { revealed } from "./reveal.ts";
import { specSummary, TOOLSET_ID_PATTERN } from "./spec.ts";

const routesLog = logger("public-routes");

/**
 * The public read side over HTTP (protocol 0.2 "Read and verify"): JSON endpoints for machines,
 * small pages for people, on the same listener as /mcp (kernel serveHttp `routes`, a Hono app).
 * Read-only: GET and HEAD; any other method on a known path is 405. Card ids are checked against
 * their pattern before any lookup. Reference: docs/http.md.
 */

export interface PublicRoutesOptions {
  /**
   * Origin shown in "Let my AI in" snippets, e.g. https://chamber.example. Default: the address
   * the connection arrived on, from the socket; never the request's Host header (a cache-poisoning
   * path: a forged Host would be written into a cacheable page).
   */
  publicOrigin?: string;
}

interface Ctx {
  c: Context;
  url: URL;
  registry: CardRegistry;
  opts: PublicRoutesOptions;
}

type Handler = (ctx: Ctx) => Promise<Response> | Response;

/** A Map, not an object: `__proto__`, `constructor` and `toString` are not assets. */
const ASSETS = new Map<string, { type: string; body: Buffer }>(
  (
    [
      ["style.css", "text/css; charset=utf-8"],
      ["tables.css", "text/css; charset=utf-8"],
      ["jcs.js", "text/javascript; charset=utf-8"],
      ["verify-proof.js", "text/javascript; charset=utf-8"],
      ["verify-reveal.js", "text/javascript; charset=utf-8"],
      ["verify-page.js", "text/javascript; charset=utf-8"],
      ["favicon.svg", "image/svg+xml"],
    ] as const
  ).map(([name, type]) => [name, { type, body: readFileSync(new URL(`assets/${name}`, import.meta.url)) }] as const),
);

const STATUS_HEADER = "scoreia-evidence-status";

function fail(
  ctx: Ctx,
  status: number,
  error: string,
  message: string,
  opts: { html?: boolean; extra?: Record<string, unknown>; headers?: Record<string, string> } = {},
): Response {
  if (opts.html) {
    const link =
      typeof opts.extra?.location === "string" ? { href: opts.extra.location, label: opts.extra.location } : undefined;
    return send(ctx.c, {
      status,
      body: errorPage(status === 404 ? "Not found" : "Bad request", message, link),
      type: HTML_TYPE,
      cache: "no-store",
      ...(opts.headers ? { headers: opts.headers } : {}),
    });
  }
  return sendError(ctx.c, status, error, message, opts.extra ?? {}, opts.headers ?? {});
}

function badCardId(ctx: Ctx, id: string, html = false): Response {
  return fail(
    ctx,
    400,
    "bad_card_id",
    `${JSON.stringify(id.slice(0, 80))} is not a card id: sia- or oly- + 16 or 32 hex`,
    {
      html,
    },
  );
}

function notFound(ctx: Ctx, id: string, html = false): Response {
  return fail(ctx, 404, "card_not_found", `no card ${id} on this server`, { html });
}

function unsignedHistorical(ctx: Ctx, id: string, what: "proof" | "replay"): Response {
  return fail(
    ctx,
    404,
    "unsigned_historical",
    `unsigned historical: no native ${what}; ${id} is a 0.1 card, never signed`,
    {
      extra: { card_id: id, evidence_status: "unsigned_historical", verify: `/verify/${id}.json` },
    },
  );
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

async function card(ctx: Ctx, id: string, negotiate: boolean): Promise<Response> {
  const html = negotiate && wantsHtml(ctx.c.req.header("accept"), false);
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
    return send(ctx.c, { body: cardPage(stored, replay), type: HTML_TYPE, cache: "short", headers: vary });
  }
  return sendJson(ctx.c, null, cardCache(stored), {
    text: cardBytes(stored),
    headers: { [STATUS_HEADER]: stored.evidence_status, ...vary },
  });
}

async function verification(ctx: Ctx, id: string): Promise<Response> {
  if (!ANY_CARD_ID.test(id)) return badCardId(ctx, id);
  const result = await ctx.registry.verify(id);
  if (!result) return notFound(ctx, id);
  return sendJson(ctx.c, result, result.verdict === "pending_signature" ? "no-store" : "short");
}

async function proof(ctx: Ctx, id: string): Promise<Response> {
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
  return sendJson(ctx.c, null, "immutable", { text: canonicalJson(bundle) });
}

async function replay(ctx: Ctx, id: string): Promise<Response> {
  if (!ANY_CARD_ID.test(id)) return badCardId(ctx, id);
  const stored = await ctx.registry.get(id);
  if (!stored) return notFound(ctx, id);
  if (!isNative(stored)) return unsignedHistorical(ctx, id, "replay");
  const r = await ctx.registry.replay(id);
  if (!r) return notFound(ctx, id);
  return sendJson(ctx.c, null, stored.evidence_status === "signed" ? "immutable" : "no-store", {
    text: canonicalJson(r),
  });
}

async function labyrinthCard(ctx: Ctx, id: string): Promise<Response> {
  if (!ANY_CARD_ID.test(id)) return badCardId(ctx, id);
  if (!LABYRINTH_HISTORICAL_ID.test(id)) {
    const location = `/cards/${id}`;
    return fail(ctx, 404, "not_a_historical_labyrinth_card", `only historical oly-16 cards are here; see ${location}`, {
      extra: { card_id: id, location },
    });
  }
  const stored = await ctx.registry.get(id);
  if (!stored) return notFound(ctx, id);
  return sendJson(ctx.c, null, "short", {
    text: cardBytes(stored),
    headers: { [STATUS_HEADER]: stored.evidence_status },
  });
}

function toolset(ctx: Ctx, id: string): Response {
  if (!TOOLSET_ID_PATTERN.test(id)) {
    return fail(ctx, 400, "bad_toolset_id", "a toolset id looks like scoreia-chamber-tools/0.3.2");
  }
  const t = Object.hasOwn(TOOLSETS, id) ? TOOLSETS[id] : undefined;
  if (!t) {
    return fail(
      ctx,
      404,
      "toolset_unknown",
      `${id} is not known to this build: cards sealed under it stay bound to it, but its definition is not here`,
      { extra: { toolset_id: id, known: Object.keys(TOOLSETS) } },
    );
  }
  return sendJson(ctx.c, null, "immutable", {
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

async function codex(ctx: Ctx, forceJson: boolean): Promise<Response> {
  const data = inNameOrder(await ctx.registry.codex());
  if (!forceJson && wantsHtml(ctx.c.req.header("accept"), true)) {
    return send(ctx.c, { body: codexPage(data), type: HTML_TYPE, cache: "short", headers: { vary: "Accept" } });
  }
  return sendJson(ctx.c, data, "short", forceJson ? {} : { headers: { vary: "Accept" } });
}

async function list(ctx: Ctx): Promise<Response> {
  const q = parseListQuery(ctx.url.searchParams);
  if ("error" in q) return fail(ctx, 400, "bad_query", q.error);
  const page = await ctx.registry.list(q.filters, { limit: q.limit, ...(q.cursor ? { cursor: q.cursor } : {}) });
  return sendJson(
    ctx.c,
    { order: "newest_first", limit: q.limit, cards: page.cards.map(cardSummary), next_cursor: page.next_cursor },
    "short",
  );
}

async function registryHtml(ctx: Ctx): Promise<Response> {
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
  return send(ctx.c, {
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

/** The origin MCP hosts should use: configured, else the address this connection arrived on. */
function originOf(ctx: Ctx): string {
  if (ctx.opts.publicOrigin) return ctx.opts.publicOrigin.replace(/\/+$/, "");
  const socket = (ctx.c.env as { incoming?: { socket?: { localAddress?: string; localPort?: number } } } | undefined)
    ?.incoming?.socket;
  const address = socket?.localAddress?.replace(/^::ffff:/, "");
  if (!address || !socket?.localPort) return "http://127.0.0.1:8420";
  return `http://${address.includes(":") ? `[${address}]` : address}:${socket.localPort}`;
}

function page(body: (ctx: Ctx) => string): Handler {
  return (ctx) => send(ctx.c, { body: body(ctx), type: HTML_TYPE, cache: "short" });
}

/** `/x/{id}.json` → id. */
const json = (c: Context, name: string) => (c.req.param(name) ?? "").replace(/\.json$/, "");

const ROUTES: Array<[string, Handler]> = [
  ["/", registryHtml],
  ["/registry", registryHtml],
  ["/cards", list],
  ["/cards/:id{[^/]*\\.json}", (ctx) => card(ctx, json(ctx.c, "id"), false)],
  ["/cards/:id", (ctx) => card(ctx, ctx.c.req.param("id") ?? "", true)],
  ["/verify", page(verifyPage)],
  ["/verify/:id{[^/]*\\.json}", (ctx) => verification(ctx, json(ctx.c, "id"))],
  ["/proofs/:id{[^/]*\\.json}", (ctx) => proof(ctx, json(ctx.c, "id"))],
  ["/replays/public/:id{[^/]*\\.json}", (ctx) => replay(ctx, json(ctx.c, "id"))],
  ["/open-labyrinth/cards/:id{[^/]*\\.json}", (ctx) => labyrinthCard(ctx, json(ctx.c, "id"))],
  ["/.well-known/scoreia-keys.json", async (ctx) => sendJson(ctx.c, { keys: await ctx.registry.keys() }, "short")],
  ["/spec/0.2", (ctx) => sendJson(ctx.c, specSummary(), "short")],
  ["/spec/0.2.json", (ctx) => sendJson(ctx.c, specSummary(), "short")],
  [
    "/spec/toolsets/:id{.+\\.json}",
    (ctx) => toolset(ctx, decodeURIComponent(ctx.url.pathname.slice("/spec/toolsets/".length, -".json".length))),
  ],
  // The card transparency log (http/log.ts) and revealed generations (http/reveal.ts).
  ["/log/tree-head.json", async (ctx) => sendLog(ctx, await logRoutes.treeHead(ctx.registry.log))],
  [
    "/log/inclusion/:id{[^/]*\\.json}",
    async (ctx) =>
      sendLog(
        ctx,
        await logRoutes.inclusion(ctx.registry.log, json(ctx.c, "id"), ctx.url.searchParams.get("tree_size")),
      ),
  ],
  [
    "/log/consistency.json",
    async (ctx) =>
      sendLog(
        ctx,
        await logRoutes.consistency(
          ctx.registry.log,
          ctx.url.searchParams.get("first"),
          ctx.url.searchParams.get("second"),
        ),
      ),
  ],
  [
    "/suites/:suite/:generation/reveal.json",
    async (ctx) =>
      sendLog(ctx, await revealed(ctx.registry, ctx.c.req.param("suite") ?? "", ctx.c.req.param("generation") ?? "")),
  ],
  ["/codex", (ctx) => codex(ctx, false)],
  ["/codex.json", (ctx) => codex(ctx, true)],
  ["/let-my-ai-in", page((ctx) => letMyAiInPage(originOf(ctx)))],
  [
    "/assets/:name",
    (ctx) => {
      const name = ctx.c.req.param("name") ?? "";
      const a = ASSETS.get(name);
      if (!a) return fail(ctx, 404, "not_found", `no asset ${name}`);
      return send(ctx.c, { body: a.body, type: a.type, cache: "short" });
    },
  ],
];

function sendLog(ctx: Ctx, r: logRoutes.LogReply): Response {
  return sendJson(ctx.c, r.body, r.cache, { status: r.status });
}

/** Maps DomainErrors raised by the registry to HTTP; anything else is a 500 without details. */
function failure(ctx: Ctx, e: unknown): Response {
  if (isDomainError(e) && e.code === "bad_cursor") return fail(ctx, 400, "bad_cursor", e.message);
  // The database failed underneath (store/faults.ts): its own status and code, one line, no stack.
  const fault = storeFault(e);
  if (fault) {
    routesLog.warn({ path: ctx.url.pathname, code: fault.code }, fault.message);
    return fail(ctx, STORE_FAULT_CODES[fault.code as StoreFaultCode].httpStatus, fault.code, fault.message);
  }
  routesLog.error({ path: ctx.url.pathname, err: e }, "public route failed");
  const code = isDomainError(e) ? e.code : "internal_error";
  return fail(ctx, 500, code, isDomainError(e) ? e.message : "internal error");
}

/** Registers the public read side on the app: GET (and HEAD) per route, 405 for other methods. */
export function publicRoutes(registry: CardRegistry, opts: PublicRoutesOptions = {}): RouteHandler {
  return (app: Hono) => {
    const ctxOf = (c: Context): Ctx => ({ c, url: new URL(c.req.url), registry, opts });
    for (const [path, handler] of ROUTES) {
      app.get(path, conditional(), async (c) => {
        const ctx = ctxOf(c);
        try {
          return await handler(ctx);
        } catch (e) {
          return failure(ctx, e);
        }
      });
      app.all(path, (c) =>
        fail(
          ctxOf(c),
          405,
          "method_not_allowed",
          `${c.req.method} is not allowed here: the public endpoints are read-only`,
          {
            headers: { allow: "GET, HEAD" },
          },
        ),
      );
    }
  };
}

/**
 * A served Chamber with real cards: the harness seals attempts through a real MCP client, the
 * registry imports historical cards, and the kernel's serveHttp serves /mcp and the public
 * routes on one listener at 127.0.0.1:0 — exactly what `scoreia serve --http` wires.
 */
import { type DialectName, type HttpHandle, serveHttp } from "kernel";
import { expect } from "vitest";
import { CURRENT_TOOLSET } from "../../src/contract/index.ts";
import { canonicalJson, sha256Tagged } from "../../src/evidence/jcs.ts";
import { type Harness, harness, IDENTITY } from "../support/chamber.ts";

/** Participant-supplied strings that must come out of every page escaped. */
export const XSS = {
  model_claim: `<script>window.__xss=1</script>m`,
  host: `"><img src=x onerror="window.__xss=2">`,
  seed: `'"><b id=xss>s</b>`,
};

export interface Seeded {
  /** Signed native cards, sealed in this order (the last is newest). */
  signed: string[];
  chrono: string;
  atelier: string;
  xss: string;
  pending: string;
  historicalSia: string;
  historicalOly: string;
  /** Every card id on the server. */
  all: string[];
}

export interface Site {
  h: Harness;
  http: HttpHandle;
  base: string;
  cards: Seeded;
  get(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export async function sealed(
  h: Harness,
  extra: Record<string, unknown> = {},
  actions = 1,
): Promise<{ card_id: string; ok: boolean; code?: string }> {
  const e = await h.sc("enter_open_challenge", { ...IDENTITY, ...extra });
  expect(e.ok, JSON.stringify(e)).toBe(true);
  for (let i = 0; i < actions; i++) {
    await h.sc("chamber_action", { challenge_handle: e.attempt_handle, op: "look", expected_action_index: i });
  }
  const s = await h.sc("seal_attempt", { challenge_handle: e.attempt_handle });
  return { card_id: s.card_id as string, ok: s.ok === true, ...(typeof s.code === "string" ? { code: s.code } : {}) };
}

export const HISTORICAL_OLY = {
  card_version: "0.1",
  card_id: "oly-0123456789abcdef",
  issued_at: "2025-06-01T10:00:00.000Z",
  verdict: "solved",
  identity: { declared_model: "labyrinth-model", declared_host: "unknown", assurance: "host_reported" },
};

export function historicalSia(): Record<string, unknown> {
  const body = {
    card_version: "0.1",
    card_id: "sia-fedcba9876543210",
    issued_at: "2025-07-01T10:00:00.000Z",
    verdict: "failed",
    identity: { declared_model: "old-model", declared_host: "cursor", assurance: "declared" },
  };
  return { ...body, content_hash: sha256Tagged(canonicalJson(body)) };
}

export async function site(dialect: DialectName): Promise<Site> {
  const h = await harness(dialect);
  const signed: string[] = [];
  const seal = async (extra: Record<string, unknown> = {}, actions = 1) => {
    h.clock.advance(1000);
    const r = await sealed(h, extra, actions);
    expect(r.ok, JSON.stringify(r)).toBe(true);
    signed.push(r.card_id);
    return r.card_id;
  };
  const chrono = await seal({ seed: "seed-a" }, 2);
  const atelier = await seal({ suite: "chambre-atelier-v0", model_claim: "claude-x", host: "zed", seed: "seed-b" });
  await seal({ seed: "seed-c", participation_class: "sponsored" }, 0);
  const xss = await seal(XSS, 1);
  // Two cards in the same millisecond: the cursor's tie-break on card_id is exercised.
  await seal({ seed: "tie-1" }, 0);
  signed.push((await sealed(h, { seed: "tie-2" }, 0)).card_id);
  h.clock.advance(1000);
  h.signer.available = false;
  const p = await sealed(h, { seed: "pending" }, 0);
  h.signer.available = true;
  expect(p.code).toBe("signature_unavailable");
  const histSia = historicalSia();
  await h.chamber.registry.importHistorical([HISTORICAL_OLY, histSia], "2026-11-30T12:00:00.000Z");

  const http = await serveHttp({
    mcp: h.chamber.mcp,
    routes: h.chamber.routes,
    port: 0,
    maxRequestBytes: CURRENT_TOOLSET.limits.max_request_bytes,
  });
  const base = `http://127.0.0.1:${http.port}`;
  const cards: Seeded = {
    signed,
    chrono,
    atelier,
    xss,
    pending: p.card_id,
    historicalSia: histSia.card_id as string,
    historicalOly: HISTORICAL_OLY.card_id,
    all: [...signed, p.card_id, histSia.card_id as string, HISTORICAL_OLY.card_id],
  };
  return {
    h,
    http,
    base,
    cards,
    get: (path, init) => fetch(`${base}${path}`, init),
    close: async () => {
      await http.close();
      await h.close();
    },
  };
}

/** `"sha256-…"` of the exact bytes, as the server computes its strong ETag. */
export async function expectedEtag(body: ArrayBuffer | Uint8Array | string): Promise<string> {
  const { createHash } = await import("node:crypto");
  const bytes = typeof body === "string" ? Buffer.from(body) : Buffer.from(body as ArrayBuffer);
  return `"sha256-${createHash("sha256").update(bytes).digest("base64url")}"`;
}

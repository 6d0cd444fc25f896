/**
 * One listener, two doors: an attempt played over Streamable HTTP at /mcp appears in /cards on
 * the same server, and its proof, fetched like any outsider would, verifies offline against the
 * published keys. Then a key rotation: the old card still verifies, and its proof becomes
 * immutable once its key window is closed.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chamberOn } from "../../src/app.ts";
import { CardRegistry } from "../../src/evidence/registry.ts";
import { LocalKeyring } from "../../src/evidence/signer.ts";
import { type ProofBundle, verifyProof } from "../../src/evidence/verify.ts";
import { connect, IDENTITY } from "../support/chamber.ts";
import { type Site, sealed, site } from "./support.ts";

const known = CardRegistry.knownToolsets();

describe.each(DIALECTS)("MCP attempt to public card on %s", (dialect) => {
  let s: Site;
  let client: Client;
  beforeAll(async () => {
    s = await site(dialect);
    client = new Client({ name: "http-observed-client", version: "4.5.6" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${s.base}/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
    await s?.close();
  });

  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })).structuredContent as Record<string, unknown>;

  it("an attempt run over MCP appears in /cards and its proof verifies", async () => {
    s.h.clock.advance(5000);
    const e = await call("enter_open_challenge", { ...IDENTITY, model_claim: "over-http", seed: "http-1" });
    expect(e.ok).toBe(true);
    await call("chamber_action", { challenge_handle: e.attempt_handle, op: "look", expected_action_index: 0 });
    const sealed = await call("seal_attempt", { challenge_handle: e.attempt_handle });
    expect(sealed.ok).toBe(true);
    const id = sealed.card_id as string;

    const list = (await (await s.get("/cards?limit=1")).json()) as { cards: Array<Record<string, unknown>> };
    expect(list.cards[0]).toMatchObject({
      card_id: id,
      evidence_status: "signed",
      identity: { declared_model: "over-http", declared_host: IDENTITY.host },
      observed_client: { name: "http-observed-client", version: "4.5.6" },
      seed: "http-1",
    });
    const filtered = (await (await s.get("/cards?model=over-http")).json()) as { cards: Array<{ card_id: string }> };
    expect(filtered.cards.map((c) => c.card_id)).toEqual([id]);

    const proof = (await (await s.get(`/proofs/${id}.json`)).json()) as ProofBundle;
    const { keys } = (await (await s.get("/.well-known/scoreia-keys.json")).json()) as { keys: never[] };
    const v = verifyProof(proof, keys, known);
    expect(v.verdict, v.message).toBe("valid");
    expect(proof.replay.events.map((x) => x.kind)).toEqual(["enter", "action", "seal"]);
    expect(JSON.stringify(proof.replay)).not.toContain(e.attempt_handle as string);
    expect(((await (await s.get(`/verify/${id}.json`)).json()) as { verdict: string }).verdict).toBe("valid");
  });

  it("a proof is frozen at issue: a key rotation and later seals leave its bytes unchanged, and it verifies", async () => {
    const keyring = LocalKeyring.ephemeral(s.h.clock);
    const ch = chamberOn(s.h.db, { clock: s.h.clock, signer: keyring });
    const c = await connect(ch, "rotation-client");
    const e = (await c.callTool({ name: "enter_open_challenge", arguments: { ...IDENTITY, seed: "rot" } }))
      .structuredContent as Record<string, unknown>;
    const id = (
      (await c.callTool({ name: "seal_attempt", arguments: { challenge_handle: e.attempt_handle } }))
        .structuredContent as Record<string, unknown>
    ).card_id as string;
    await c.close();
    const oldKey = keyring.currentKeyId;
    const before = await s.get(`/proofs/${id}.json`);
    expect(before.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const cached = (await before.json()) as ProofBundle;

    s.h.clock.advance(1000);
    keyring.rotate();
    await ch.service.publishKeys();
    const { keys } = (await (await s.get("/.well-known/scoreia-keys.json")).json()) as {
      keys: Array<{ key_id: string; not_after: string | null }>;
    };
    expect(keys.find((k) => k.key_id === oldKey)?.not_after).toBe(new Date(s.h.clock.now()).toISOString());
    await sealed(s.h); // the log grows too
    const served = await s.get(`/proofs/${id}.json`);
    const after = (await served.json()) as ProofBundle;
    expect(after).toEqual(cached); // the same document: the key as it signed, the first covering head
    expect(served.headers.get("etag")).toBe(before.headers.get("etag"));
    expect(after.key.not_after).toBeNull();
    for (const proof of [cached, after]) {
      const v = verifyProof(proof, keys as never[], known);
      expect(v.verdict, v.message).toBe("valid");
    }
    expect(((await (await s.get(`/verify/${id}.json`)).json()) as { verdict: string }).verdict).toBe("valid");
  });
});

/**
 * An agent learns the rules through MCP alone (issue 16 §4): each suite's manifest is a resource
 * whose bytes hash to the card's manifest_hash; entry names it and summarises the rules; `look`
 * shows the hints left in both suites; a hint with none left is refused at no cost; both suites
 * word the same refusal alike; seal_attempt links the card, its proof and its verify page under
 * the configured public origin.
 */
import { createHash } from "node:crypto";
import { ReadResourceResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { RESOURCE_NOT_FOUND } from "kernel";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SUITES } from "../src/suites/index.ts";
import { VERDICTS } from "../src/suites/verdicts.ts";
import { type Harness, harness, IDENTITY } from "./support/chamber.ts";

const SUITE_IDS = ["chambre-chrono-v0", "chambre-atelier-v0"];

describe.each(DIALECTS)("rules through MCP on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect, { config: { publicOrigin: "https://chamber.example" } });
  });
  afterAll(async () => {
    await h.close();
  });

  it("each suite's manifest is a resource; entry names it and summarises the rules", async () => {
    const { resources } = await h.client.listResources();
    // the current generations' manifests: the suite's base generation and its room secret's commitment
    const current = h.chamber.service.currentGenerations();
    expect(current.map((g) => g.suite.id).sort()).toEqual([...SUITE_IDS].sort());
    for (const g of current)
      expect(g.generation).toMatch(new RegExp(`^${SUITES[g.suite.id]?.generation}\\.[0-9a-f]{8}$`));
    expect(resources.map((r) => r.uri).sort()).toEqual(
      current.map((g) => `scoreia://suites/${g.suite.id}/${g.generation}/manifest.json`).sort(),
    );
    for (const suite of SUITE_IDS) {
      const e = await h.sc("enter_open_challenge", { ...IDENTITY, suite });
      const rules = e.rules as Record<string, unknown>;
      const read = await h.client.readResource({ uri: rules.manifest_resource as string });
      const text = (read.contents[0] as { text: string }).text;
      expect(`sha256:${createHash("sha256").update(text, "utf8").digest("hex")}`).toBe(e.manifest_hash);
      const manifest = JSON.parse(text);
      expect(manifest.scoring.verdicts.map((v: { verdict: string }) => v.verdict)).toEqual(
        VERDICTS.map((v) => v.verdict),
      );
      // every stage's op comes with its value format, the budget and the jam rule
      const stages = rules.stages as Array<{ op: string; value: string }>;
      expect(stages.length).toBe(manifest.stages.length);
      for (const st of stages) expect(st.value).toBe(manifest.ops.find((o: { op: string }) => o.op === st.op).value);
      expect(rules).toMatchObject({ max_actions: 64, max_hints: 3 });
      expect(rules.summary).toMatch(/3 wrong submissions at one stage jam it: verdict failed/);
      expect(rules.verdicts).toEqual(VERDICTS.map((v) => v.verdict));
      expect(manifest.scoring.rule).toMatch(/3 wrong submissions at one stage.*verdict failed/);
      expect(JSON.stringify(manifest)).not.toMatch(/rank higher|ranks higher|"unsolved"/);
    }
    await expect(
      h.client.request({ method: "resources/read", params: { uri: "scoreia://nope" } }, ReadResourceResultSchema),
    ).rejects.toMatchObject({
      code: RESOURCE_NOT_FOUND,
      message: expect.stringMatching(/Resource not found: scoreia:\/\/nope/),
    });
  });

  it("look shows the hints left in both suites; a hint with none left costs nothing", async () => {
    for (const [suite, perStage] of [
      ["chambre-chrono-v0", 2],
      ["chambre-atelier-v0", 0],
    ] as const) {
      const e = await h.sc("enter_open_challenge", { ...IDENTITY, suite });
      const handle = e.attempt_handle as string;
      const look = await h.sc("chamber_action", { challenge_handle: handle, op: "look" });
      expect((look.observation as { text: string }).text).toMatch(/Hints left: [1-3] \(/);
      let index = 1;
      // take hints while offered; then hint is absent from allowed_ops and refused for free
      for (;;) {
        const before = await h.sc("chamber_action", { challenge_handle: handle, op: "look" });
        index++;
        if (!(before.allowed_ops as string[]).includes("hint")) {
          expect((before.observation as { data: { hints_left: number } }).data.hints_left).toBe(0);
          break;
        }
        expect((await h.sc("chamber_action", { challenge_handle: handle, op: "hint" })).ok).toBe(true);
        index++;
      }
      const refused = await h.sc("chamber_action", { challenge_handle: handle, op: "hint" });
      expect(refused).toMatchObject({ ok: false, code: "op_not_allowed", action_index: index });
      expect(refused.error).toMatch(/^No hint is left (for this stage|in this room).*Nothing was counted\.$/);
      if (perStage) expect(refused.error).toMatch(/for this stage/);
    }
  });

  it("both suites word the same refusal alike", async () => {
    const errors: string[] = [];
    for (const suite of SUITE_IDS) {
      const e = await h.sc("enter_open_challenge", { ...IDENTITY, suite });
      const r = await h.sc("chamber_action", { challenge_handle: e.attempt_handle, op: "submit_bolt", value: "1" });
      const o = await h.sc("chamber_action", { challenge_handle: e.attempt_handle, op: "inspect", object: "nope" });
      errors.push(r.error as string, o.error as string);
    }
    const [chronoOp, chronoObj, atelierOp, atelierObj] = errors;
    const shape = (s: string | undefined) => s?.replace(/: [^.]*\./, ": ….");
    expect(shape(chronoOp)).toBe(shape(atelierOp));
    expect(shape(chronoObj)).toBe(shape(atelierObj));
    expect(chronoOp).toMatch(
      /^submit_bolt is not allowed now\. Allowed ops: look, inspect, hint, submit_\w+\. Nothing was counted\.$/,
    );
  });

  it("seal_attempt links the card, its proof and its verify page under the public origin", async () => {
    const e = await h.sc("enter_open_challenge", IDENTITY);
    await h.sc("chamber_action", { challenge_handle: e.attempt_handle, op: "look" });
    const s = await h.sc("seal_attempt", { challenge_handle: e.attempt_handle });
    const id = s.card_id as string;
    expect(s.links).toEqual({
      card: `https://chamber.example/cards/${id}`,
      card_json: `https://chamber.example/cards/${id}.json`,
      proof: `https://chamber.example/proofs/${id}.json`,
      verify_page: `https://chamber.example/verify?card=${id}`,
    });
    expect(JSON.stringify(s.links)).not.toContain(e.attempt_handle as string);
  });
});

import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connect, type Harness, harness, IDENTITY } from "./support/chamber.ts";

describe.each(DIALECTS)("concurrent calls on one attempt (%s)", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("lets exactly one of many racing actions with the same expected_action_index through", async () => {
    const e = await h.sc("enter_open_challenge", IDENTITY);
    const clients = await Promise.all([0, 1, 2, 3].map((i) => connect(h.chamber, `racer-${i}`)));
    const results = await Promise.all(
      clients.flatMap((c) =>
        [0, 1, 2].map(
          async () =>
            (
              await c.callTool({
                name: "chamber_action",
                arguments: { challenge_handle: e.attempt_handle, op: "look", expected_action_index: 0 },
              })
            ).structuredContent as Record<string, unknown>,
        ),
      ),
    );
    const ok = results.filter((r) => r.ok === true);
    const stale = results.filter((r) => r.code === "stale_action_index");
    expect(ok).toHaveLength(1);
    expect(stale).toHaveLength(results.length - 1);
    for (const s of stale) expect(s.current_action_index).toBe(1);
    const events = await h.db.db
      .selectFrom("chamber_events")
      .select(["seq", "kind"])
      .where("handle", "=", e.attempt_handle as string)
      .orderBy("seq")
      .execute();
    expect(events.map((x) => x.kind)).toEqual(["enter", "action"]);
    await Promise.all(clients.map((c) => c.close()));
  });

  it("seals once when many seals race: one card, the others already_sealed", async () => {
    const e = await h.sc("enter_open_challenge", IDENTITY);
    const clients = await Promise.all([0, 1, 2].map((i) => connect(h.chamber, `sealer-${i}`)));
    const results = await Promise.all(
      clients.map(
        async (c) =>
          (await c.callTool({ name: "seal_attempt", arguments: { challenge_handle: e.attempt_handle } }))
            .structuredContent as Record<string, unknown>,
      ),
    );
    expect(
      results.every((r) => r.ok === true),
      JSON.stringify(results),
    ).toBe(true);
    expect(new Set(results.map((r) => r.card_id)).size).toBe(1);
    expect(results.filter((r) => r.already_sealed === false)).toHaveLength(1);
    const cards = await h.db.db
      .selectFrom("chamber_cards")
      .select("card_id")
      .where("handle", "=", e.attempt_handle as string)
      .execute();
    expect(cards).toHaveLength(1);
    await Promise.all(clients.map((c) => c.close()));
  });
});

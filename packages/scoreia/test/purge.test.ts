/**
 * The storage rule (docs/chamber.md, Storage; issue 16 §6): an attempt not sealed by its
 * expires_at + the contract's retention can never become a card, so it and its events are
 * deleted; sealed attempts, their events and cards stay. On both engines.
 */
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CardRegistry } from "../src/evidence/registry.ts";
import { type Harness, harness, IDENTITY } from "./support/chamber.ts";

describe.each(DIALECTS)("unsealed attempts past retention on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  const count = async (table: "chamber_attempts" | "chamber_events" | "chamber_help") =>
    Number(
      (
        await h.db.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as("n"))
          .executeTakeFirstOrThrow()
      ).n,
    );

  it("stop costing storage: deleted with their events at the first entry a minute on; sealed ones stay", async () => {
    const idle = await h.sc("enter_open_challenge", IDENTITY);
    const acted = await h.sc("enter_open_challenge", IDENTITY);
    await h.sc("chamber_action", { challenge_handle: acted.attempt_handle, op: "look" });
    await h.sc("call_for_help", { challenge_handle: acted.attempt_handle, ally: "a-friend" });
    const kept = await h.sc("enter_open_challenge", IDENTITY);
    await h.sc("chamber_action", { challenge_handle: kept.attempt_handle, op: "look" });
    const card = (await h.sc("seal_attempt", { challenge_handle: kept.attempt_handle })).card_id as string;
    expect(await count("chamber_attempts")).toBe(3);

    // within TTL + retention nothing goes: the expired attempt still seals to its card
    h.clock.advance((7200 + 86_400) * 1000 - 1000);
    await h.sc("enter_open_challenge", IDENTITY);
    expect(await count("chamber_attempts")).toBe(4);

    h.clock.advance(61_000);
    await h.sc("enter_open_challenge", IDENTITY);
    expect(await count("chamber_attempts")).toBe(3); // the sealed one and the two recent entries
    expect(await count("chamber_help")).toBe(0);
    for (const gone of [idle, acted]) {
      const r = await h.sc("seal_attempt", { challenge_handle: gone.attempt_handle });
      expect(r.code).toBe("attempt_not_found");
    }
    const events = await h.db.db
      .selectFrom("chamber_events")
      .select("handle")
      .where("handle", "in", [idle.attempt_handle as string, acted.attempt_handle as string])
      .execute();
    expect(events).toEqual([]);
    expect((await new CardRegistry(h.db).verify(card))?.verdict).toBe("valid");
  });
});

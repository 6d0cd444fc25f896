import { DomainError, iso } from "kernel";
import type { ChamberCore } from "./core.ts";
import * as store from "./store.ts";
import { write } from "./write.ts";

/** What operators do from the CLI: set an attempt aside, retire a generation. */

/** Operators set an attempt aside for review; it can still be sealed, to a quarantined card. */
export async function quarantine(core: ChamberCore, handle: string, reason: string): Promise<void> {
  const now = core.clock.now();
  await write(core.database, async ({ trx, engine }) => {
    const row = await core.load(trx, handle, engine);
    if (row.state === "sealed" || row.state === "pending_signature") {
      throw new DomainError("attempt_already_sealed", "a sealed attempt cannot be quarantined");
    }
    const event = core.eventRow(
      row,
      row.event_count,
      "quarantine",
      null,
      { reason },
      { attempt_state: "quarantined" },
      null,
      now,
    );
    await trx
      .updateTable("chamber_attempts")
      .set({
        state: "quarantined",
        quarantine_reason: reason,
        updated_at: iso(now),
        event_count: row.event_count + 1,
        chain_head: event.hash,
      })
      .where("handle", "=", handle)
      .execute();
    await store.insertEvent.run(trx, event);
  });
}

/**
 * Retires a generation and publishes its secret (commit-reveal, docs/evidence-0.2.md §14.3):
 * from now on new attempts enter the next generation, and anyone can rebuild this one's rooms.
 */
export async function reveal(
  core: ChamberCore,
  suiteId: string,
  generation: string,
): Promise<{ secret: string; revealed_at: string }> {
  const now = iso(core.clock.now());
  const rec = core.secrets.reveal(suiteId, generation, now);
  if (!rec)
    throw new DomainError("generation_unknown", `no generation ${suiteId}/${generation} with a room secret here`);
  const gen = core.generation(suiteId, generation);
  await write(core.database, async ({ trx }) => {
    await core.recordGeneration(trx, gen, core.clock.now());
    await trx
      .updateTable("chamber_generations")
      .set({ revealed_at: rec.revealed_at, secret: rec.secret })
      .where("suite_id", "=", suiteId)
      .where("generation", "=", generation)
      .execute();
  });
  return { secret: rec.secret, revealed_at: rec.revealed_at as string };
}

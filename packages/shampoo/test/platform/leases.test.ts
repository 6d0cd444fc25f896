import { DomainError } from "kernel";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  claimLease,
  claimNextLease,
  completeLease,
  heartbeatLease,
  type Lease,
  offerLease,
  reclaimStaleLeases,
  releaseLease,
} from "../../src/platform/leases/index.ts";
import { write } from "../../src/platform/write.ts";
import { platformDb } from "./support.ts";

const code = async (p: Promise<unknown>) => {
  try {
    await p;
    return "ok";
  } catch (e) {
    if (e instanceof DomainError) return e.code;
    throw e;
  }
};

for (const dialect of DIALECTS) {
  describe(`leases with fencing (${dialect})`, () => {
    let p: Awaited<ReturnType<typeof platformDb>>;
    beforeAll(async () => {
      p = await platformDb(dialect);
    });
    afterAll(() => p.db.drop());
    const w = <T>(fn: Parameters<typeof write<T>>[1], who = "alice") => write(p.ctx(who), fn);

    it("claim, heartbeat, complete; a second claimer is refused while the lease lives", async () => {
      const a = await w((s) => claimLease(s, { kind: "job", resourceId: "r1", holder: "alice", ttlMs: 1000 }));
      expect(a.fence).toBe(1);
      expect(
        await code(w((s) => claimLease(s, { kind: "job", resourceId: "r1", holder: "bob", ttlMs: 1000 }), "bob")),
      ).toBe("lease_held");
      p.clock.advance(900);
      const a2 = await w((s) => heartbeatLease(s, a, 1000));
      p.clock.advance(900); // past the first expiry, inside the heartbeat's
      await w((s) => completeLease(s, a2));
      expect(
        await code(w((s) => claimLease(s, { kind: "job", resourceId: "r1", holder: "bob", ttlMs: 1000 }), "bob")),
      ).toBe("state_conflict");
    });

    it("an expired holder can neither heartbeat, complete nor release once someone else holds it", async () => {
      const a = await w((s) => claimLease(s, { kind: "job", resourceId: "r2", holder: "alice", ttlMs: 1000 }));
      p.clock.advance(1000); // expiry is exclusive: at expires_ms the lease is gone
      expect(await code(w((s) => heartbeatLease(s, a, 1000)))).toBe("lease_lost");
      expect(await code(w((s) => completeLease(s, a)))).toBe("lease_lost");
      const b = await w((s) => claimLease(s, { kind: "job", resourceId: "r2", holder: "bob", ttlMs: 5000 }), "bob");
      expect(b.fence).toBe(a.fence + 1);
      expect(await code(w((s) => releaseLease(s, a)))).toBe("lease_lost");
      expect(await code(w((s) => completeLease(s, a)))).toBe("lease_lost");
      await w((s) => completeLease(s, b), "bob");
      const row = await p.db.db
        .selectFrom("shampoo_leases")
        .selectAll()
        .where("resource_id", "=", "r2")
        .executeTakeFirstOrThrow();
      expect({ state: row.state, holder: row.holder, fence: Number(row.fence) }).toEqual({
        state: "done",
        holder: "bob",
        fence: 2,
      });
    });

    it("release gives it back; reclaim-stale reopens expired leases and keeps their fence", async () => {
      const a = await w((s) => claimLease(s, { kind: "rel", resourceId: "x", holder: "alice", ttlMs: 1000 }));
      await w((s) => releaseLease(s, a));
      const b = await w((s) => claimLease(s, { kind: "rel", resourceId: "x", holder: "bob", ttlMs: 1000 }), "bob");
      expect(b.fence).toBe(2);
      await w((s) => claimLease(s, { kind: "rel", resourceId: "y", holder: "bob", ttlMs: 5000 }), "bob");
      p.clock.advance(2000);
      expect(await w((s) => reclaimStaleLeases(s, "rel"))).toEqual(["x"]);
      expect(await code(w((s) => completeLease(s, b), "bob"))).toBe("lease_lost");
      const c = await w((s) => claimLease(s, { kind: "rel", resourceId: "x", holder: "carol", ttlMs: 1000 }), "carol");
      expect(c.fence).toBe(3);
      const events = await p.db.db
        .selectFrom("shampoo_history")
        .select("action")
        .where("entity_kind", "=", "lease:rel")
        .where("entity_id", "=", "x")
        .orderBy("seq")
        .execute();
      expect(events.map((e) => e.action)).toEqual(["claim", "release", "claim", "reclaim", "claim"]);
    });

    it("race: many workers on a queue with expired leases; each item done once, late completions refused", async () => {
      const kind = "queue";
      const items = Array.from({ length: 24 }, (_, i) => `q${String(i).padStart(2, "0")}`);
      await w(async (s) => {
        for (const id of items) await offerLease(s, { kind, resourceId: id });
      });
      // A first wave claims a third of the items and then stalls past its ttl.
      const stale: Lease[] = [];
      for (let i = 0; i < 8; i++) {
        const l = await w((s) => claimNextLease(s, { kind, holder: `stale${i}`, ttlMs: 100 }), `stale${i}`);
        if (l) stale.push(l);
      }
      expect(stale).toHaveLength(8);
      p.clock.advance(500);
      const other = await p.second();
      const done: string[] = [];
      const late: string[] = [];
      try {
        const worker = async (n: number) => {
          const database = n % 2 ? other : p.db;
          for (;;) {
            const lease = await write(p.ctx(`w${n}`, database), (s) =>
              claimNextLease(s, { kind, holder: `w${n}`, ttlMs: 60_000 }),
            );
            if (!lease) return;
            await write(p.ctx(`w${n}`, database), (s) => completeLease(s, lease));
            done.push(lease.resourceId);
            // A stale holder wakes up now and tries to finish its old item: always refused.
            const old = stale.shift();
            if (old) late.push(await code(write(p.ctx(old.holder), (s) => completeLease(s, old))));
          }
        };
        await Promise.all(Array.from({ length: 6 }, (_, n) => worker(n)));
      } finally {
        await other.release();
      }
      expect([...done].sort()).toEqual(items);
      expect(late).toEqual(Array(8).fill("lease_lost"));
      const rows = await p.db.db
        .selectFrom("shampoo_leases")
        .select(["state", "fence", "resource_id"])
        .where("kind", "=", kind)
        .execute();
      expect(rows.every((r) => r.state === "done")).toBe(true);
      const fences = Object.fromEntries(rows.map((r) => [r.resource_id, Number(r.fence)]));
      for (const s of ["q00", "q07"]) expect(fences[s]).toBe(2); // claimed twice: the stale wave, then a worker
      expect(fences.q08).toBe(1);
    });
  });
}

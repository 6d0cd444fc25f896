/**
 * What later modules plug into the doctor, and the platform's leases it checks now: leases held
 * or taken over, fencing tokens that only increase, references a module declares (a live row
 * pointing at a void one), and checks a module contributes to a section (jobs, pump, wake, auth
 * report UNKNOWN until one does). Both engines.
 */
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { healthChecks, healthReferences, type ReferenceRule } from "../../src/domains/health/hooks.ts";
import { BUILTIN_REFERENCES, checkReferences } from "../../src/domains/health/service/invariants.ts";
import { MODULES } from "../../src/modules.ts";
import { installContributions } from "../../src/platform/extend.ts";
import { claimLease, offerLease } from "../../src/platform/leases/index.ts";
import { moduleOrder } from "../../src/platform/module.ts";
import { write } from "../../src/platform/write.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { check, ctxOf, doctorOf, OBSERVED } from "./support.ts";

const reinstall = () => installContributions(moduleOrder(MODULES));

for (const dialect of DIALECTS) {
  describe(`doctor extension points and leases (${dialect})`, () => {
    let h: Harness;
    let a: Agent;
    beforeAll(async () => {
      h = await harness(dialect);
      a = await h.as({ principal: "alice", role: "conductor", grants: ["*", ""] });
    });
    afterAll(() => h?.close());
    afterEach(reinstall);

    const claim = (holder: string, resourceId = "r1") =>
      write(ctxOf(h, a), async (w) => {
        await offerLease(w, { kind: "job", resourceId });
        return claimLease(w, { kind: "job", resourceId, holder, ttlMs: 1000 });
      });

    it("leases held, then past expiry, then taken over: healthy; fences 1, 2 only increase", async () => {
      expect((await claim("w1")).fence).toBe(1);
      let r = await doctorOf(a, { sections: "invariants" });
      expect(check(r, "invariants.leases")).toMatchObject({
        status: "ok",
        summary: expect.stringMatching(/1 held \(0 past/),
      });
      h.clock.advance(5000);
      r = await doctorOf(a, { sections: "invariants" });
      expect(check(r, "invariants.leases")).toMatchObject({
        status: "ok",
        summary: expect.stringMatching(/1 past expiry/),
      });
      expect((await claim("w2")).fence).toBe(2);
      r = await doctorOf(a, { sections: "invariants" });
      expect(check(r, "invariants.leases").status).toBe("ok");
      expect(check(r, "invariants.fences")).toMatchObject({ status: "ok", summary: expect.stringMatching(/2 claims/) });
      expect(r.status).toBe("ok");
    });

    it("invariants.leases: a held lease without its holder fails; restored, ok", async () => {
      await h.db.db.updateTable("shampoo_leases").set({ holder: null }).where("resource_id", "=", "r1").execute();
      expect(check(await doctorOf(a, { sections: "invariants" }), "invariants.leases").status).toBe("fail");
      await h.db.db.updateTable("shampoo_leases").set({ holder: "w2" }).where("resource_id", "=", "r1").execute();
      expect(check(await doctorOf(a, { sections: "invariants" }), "invariants.leases").status).toBe("ok");
    });

    it("invariants.fences: a lease whose fence went back below one handed out fails; restored, ok", async () => {
      await h.db.db.updateTable("shampoo_leases").set({ fence: 1 }).where("resource_id", "=", "r1").execute();
      const bad = await doctorOf(a, { sections: "invariants" });
      expect(check(bad, "invariants.fences")).toMatchObject({
        status: "fail",
        summary: expect.stringMatching(/below the claimed 2/),
      });
      await h.db.db.updateTable("shampoo_leases").set({ fence: 2 }).where("resource_id", "=", "r1").execute();
      expect(check(await doctorOf(a, { sections: "invariants" }), "invariants.fences").status).toBe("ok");
    });

    it("invariants.fences: a claim event that handed out a fence not above the one before fails; removed, ok", async () => {
      const last = await h.db.db
        .selectFrom("shampoo_history")
        .selectAll()
        .where("entity_kind", "=", "lease:job")
        .where("action", "=", "claim")
        .orderBy("seq", "desc")
        .limit(1)
        .executeTakeFirstOrThrow();
      const { seq: _seq, ...event } = last;
      await h.db.db
        .insertInto("shampoo_history")
        .values({
          ...event,
          event_id: "replayed-claim",
          clock: 999_999,
          new_json: JSON.stringify({ holder: "w9", fence: 1 }),
        })
        .execute();
      const bad = await doctorOf(a, { sections: "invariants" });
      expect(check(bad, "invariants.fences")).toMatchObject({
        status: "fail",
        summary: expect.stringMatching(/fence 1 handed out after 2/),
      });
      await h.db.db.deleteFrom("shampoo_history").where("event_id", "=", "replayed-claim").execute();
      expect(check(await doctorOf(a, { sections: "invariants" }), "invariants.fences").status).toBe("ok");
    });

    it("a live row pointing at a void one: allowed where its owner says so (graph), a failure where not", async () => {
      await a.sc("create_entities", {
        entities: [{ name: "Doomed Pump", entityType: "thing", observations: ["leaks"] }],
      });
      await a.sc("delete_entities", { entityNames: ["Doomed Pump"] });
      const ctx = ctxOf(h, a);
      expect((await checkReferences(ctx, BUILTIN_REFERENCES)).status).toBe("ok");
      const strict: ReferenceRule = {
        table: "shampoo_observations",
        column: "entity_id",
        target: "shampoo_entities",
        key: "id",
      };
      const seen = await checkReferences(ctx, [strict]);
      expect(seen).toMatchObject({ status: "fail", summary: expect.stringMatching(/1 live row point at a void one/) });
      // A module contributes the rule: the doctor's own run sees it.
      installContributions([
        ...moduleOrder(MODULES),
        { name: "probe", contributes: [healthReferences.contribute(strict)] },
      ]);
      expect(check(await doctorOf(a, { sections: "invariants" }), "invariants.references").status).toBe("fail");
      // Revived (create again): live again, healthy.
      await a.sc("create_entities", { entities: [{ name: "Doomed Pump", entityType: "thing" }] });
      expect(check(await doctorOf(a, { sections: "invariants" }), "invariants.references").status).toBe("ok");
    });

    it("contributed checks fill their section; a throwing one is UNKNOWN with its message; without them, UNKNOWN", async () => {
      installContributions([
        ...moduleOrder(MODULES),
        {
          name: "probe",
          contributes: [
            healthChecks.contribute({
              section: "jobs",
              id: "jobs.queue",
              severity: "major",
              run: async () => ({ status: "ok", summary: "0 jobs waiting" }),
            }),
            healthChecks.contribute({
              section: "pump",
              id: "pump.alive",
              severity: "major",
              run: async () => {
                throw new Error("pump state unreadable");
              },
            }),
            healthChecks.contribute({
              section: "wake",
              id: "wake.stuck",
              severity: "minor",
              run: async () => ({ status: "warn", summary: "1 wake older than a day" }),
            }),
          ],
        },
      ]);
      const r = await doctorOf(a, { sections: "jobs,pump,wake,auth" });
      expect(check(r, "jobs.queue").status).toBe("ok");
      expect(check(r, "pump.alive")).toMatchObject({
        status: "unknown",
        summary: "could not observe: pump state unreadable",
      });
      expect(check(r, "wake.stuck").status).toBe("warn");
      expect(check(r, "auth.observed").status).toBe("unknown");
      expect(r.sections.map((s) => [s.name, s.status])).toEqual([
        ["auth", "unknown"],
        ["jobs", "ok"],
        ["pump", "unknown"],
        ["wake", "warn"],
      ]);
      expect(r.status).toBe("unknown");
      reinstall();
      expect(check(await doctorOf(a, { sections: "jobs" }), "jobs.observed").status).toBe("unknown");
      expect((await doctorOf(a, { sections: OBSERVED })).status).toBe("ok");
    });
  });
}

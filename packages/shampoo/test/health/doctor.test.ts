/**
 * The doctor (issue 26, health): nine sections, the aggregate is the worst, UNKNOWN is never
 * healthy, it writes nothing, and every check fails on the fault it looks for and is healthy
 * again once the fault is gone (each run judges afresh). Both engines, one database per engine
 * that every tool's examples have written to first (no false alarm on real data).
 */

import type { Database } from "kernel";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ShampooDB } from "../../src/store/schema.ts";
import { exampleCalls, makeFixture } from "../e2e/support.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { check, ctxOf, doctorOf, footprint, OBSERVED, type Report, statuses, UNOBSERVED } from "./support.ts";

const run = (h: Harness, ctx: Parameters<Harness["shampoo"]["registry"]["call"]>[2]) =>
  h.shampoo.registry.call("doctor", { detail: "full" }, ctx).then((r) => r.structuredContent as unknown as Report);

for (const dialect of DIALECTS) {
  describe(`doctor (${dialect})`, () => {
    let h: Harness;
    let a: Agent;
    let taskId: string;
    beforeAll(async () => {
      h = await harness(dialect);
      a = await h.as({ principal: "alice", role: "conductor", grants: ["*", "", "shared-ops"] });
      const f = await makeFixture("shared-ops", (t, args) => a.sc(t, args));
      for (const c of exampleCalls(f)) if (!["doctor", "reflect_cancel"].includes(c.name)) await a.call(c.name, c.args);
      taskId = f.taskId;
    }, 60_000);
    afterAll(() => h?.close());

    /** Runs `inject`, expects `id` to fail, runs `undo`, expects it ok again (a fresh judgement). */
    async function faultSeen(id: string, inject: () => Promise<unknown>, undo: () => Promise<unknown>) {
      expect(check(await doctorOf(a, { sections: OBSERVED }), id).status).toBe("ok");
      await inject();
      const bad = await doctorOf(a, { sections: OBSERVED });
      expect(check(bad, id).status).toBe("fail");
      expect(bad.status).toBe("fail");
      await undo();
      const good = await doctorOf(a, { sections: OBSERVED });
      expect(check(good, id).status).toBe("ok");
      expect(good.status).toBe("ok");
      return bad;
    }

    it("on real data: the observed sections are ok; auth, jobs, pump, wake are UNKNOWN, so the aggregate is unknown", async () => {
      const r = await doctorOf(a);
      expect(r.sections.map((s) => s.name)).toEqual([
        "config",
        "database",
        "auth",
        "jobs",
        "pump",
        "wake",
        "ledger",
        "readiness",
        "invariants",
      ]);
      for (const s of r.sections) expect(s.status).toBe(UNOBSERVED.includes(s.name) ? "unknown" : "ok");
      expect(check(r, "jobs.observed").summary).toMatch(/unobservable/);
      expect(r.status).toBe("unknown");
      expect((await doctorOf(a, { sections: OBSERVED })).status).toBe("ok");
    });

    it("writes nothing: every table's rows, the history and the clocks are identical before and after", async () => {
      const before = await footprint(h);
      await doctorOf(a);
      await a.call("status", {});
      await a.call("licence", {});
      await doctorOf(a, { sections: "invariants,ledger" });
      expect(await footprint(h)).toEqual(before);
    });

    it("sections filter exact names, skip unknown ones; summary omits detail", async () => {
      const r = (await a.sc("doctor", { sections: "ledger, bogus,readiness" })) as unknown as Report;
      expect(r.sections.map((s) => s.name)).toEqual(["ledger", "readiness"]);
      expect(r.detail).toBe("summary");
      expect(r.sections.flatMap((s) => s.checks).some((c) => "detail" in c)).toBe(false);
      const none = (await a.sc("doctor", { sections: "bogus" })) as unknown as Report;
      expect(none).toEqual({ status: "unknown", detail: "summary", sections: [] });
      const bad = await a.call("doctor", { detail: "everything" });
      expect(bad.isError).toBe(true);
      expect((bad.structuredContent as Record<string, unknown>).error_type).toBe("validation");
    });

    it("invariants.events: a row whose history event is missing", async () => {
      const old = await h.db.db
        .selectFrom("shampoo_tasks")
        .select("last_event_id")
        .where("id", "=", taskId)
        .executeTakeFirstOrThrow();
      const bad = await faultSeen(
        "invariants.events",
        () =>
          h.db.db
            .updateTable("shampoo_tasks")
            .set({ last_event_id: "no-such-event" })
            .where("id", "=", taskId)
            .execute(),
        () =>
          h.db.db
            .updateTable("shampoo_tasks")
            .set({ last_event_id: old.last_event_id })
            .where("id", "=", taskId)
            .execute(),
      );
      expect(check(bad, "invariants.events").summary).toMatch(/shampoo_tasks: 1 row without/);
    });

    it("invariants.events: a mutation that reached the row without its history event", async () => {
      const old = await h.db.db
        .selectFrom("shampoo_tasks")
        .select(["updated_at", "title"])
        .where("id", "=", taskId)
        .executeTakeFirstOrThrow();
      const bad = await faultSeen(
        "invariants.events",
        () =>
          h.db.db
            .updateTable("shampoo_tasks")
            .set({ title: "changed behind history", updated_at: "2099-01-01T00:00:00.000Z" })
            .where("id", "=", taskId)
            .execute(),
        () => h.db.db.updateTable("shampoo_tasks").set(old).where("id", "=", taskId).execute(),
      );
      expect(check(bad, "invariants.events").summary).toMatch(/changed after their last history event/);
    });

    it("invariants.references: a live row naming a row that does not exist", async () => {
      await faultSeen(
        "invariants.references",
        () =>
          h.db.db.updateTable("shampoo_tasks").set({ parent_id: "no-such-task" }).where("id", "=", taskId).execute(),
        () => h.db.db.updateTable("shampoo_tasks").set({ parent_id: null }).where("id", "=", taskId).execute(),
      );
    });

    it("invariants.projects: a row moved to another project without its history", async () => {
      const bad = await faultSeen(
        "invariants.projects",
        () => h.db.db.updateTable("shampoo_tasks").set({ project: "somebody-else" }).where("id", "=", taskId).execute(),
        () => h.db.db.updateTable("shampoo_tasks").set({ project: "shared-ops" }).where("id", "=", taskId).execute(),
      );
      expect(check(bad, "invariants.projects").summary).toMatch(/shampoo_tasks: 1 row in a project/);
    });

    it("invariants.projects: an audited row whose event belongs to another profile", async () => {
      const row = await h.db.db
        .selectFrom("shampoo_tasks")
        .select("last_event_id")
        .where("id", "=", taskId)
        .executeTakeFirstOrThrow();
      await faultSeen(
        "invariants.projects",
        () =>
          h.db.db
            .updateTable("shampoo_history")
            .set({ profile: "elsewhere" })
            .where("event_id", "=", row.last_event_id)
            .execute(),
        () =>
          h.db.db
            .updateTable("shampoo_history")
            .set({ profile: "default" })
            .where("event_id", "=", row.last_event_id)
            .execute(),
      );
    });

    it("invariants.facts: two versions of one fact known at once", async () => {
      const v = await h.db.db
        .selectFrom("governance_fact_versions")
        .selectAll()
        .where("known_to", "is", null)
        .limit(1)
        .executeTakeFirstOrThrow();
      await faultSeen(
        "invariants.facts",
        () =>
          h.db.db
            .insertInto("governance_fact_versions")
            .values({ ...v, version_id: "injected", known_from: "2000-01-01T00:00:00.000Z" })
            .execute(),
        () => h.db.db.deleteFrom("governance_fact_versions").where("version_id", "=", "injected").execute(),
      );
    });

    it("ledger.clock, ledger.sequence, ledger.chains: a clock behind its events, two events on one clock, a broken chain", async () => {
      const clock = await h.db.db
        .selectFrom("shampoo_clocks")
        .selectAll()
        .where("profile", "=", "default")
        .executeTakeFirstOrThrow();
      await faultSeen(
        "ledger.clock",
        () =>
          h.db.db
            .updateTable("shampoo_clocks")
            .set({ clock: Number(clock.clock) - 3 })
            .where("profile", "=", "default")
            .execute(),
        () =>
          h.db.db.updateTable("shampoo_clocks").set({ clock: clock.clock }).where("profile", "=", "default").execute(),
      );
      const [last, prev] = await h.db.db
        .selectFrom("shampoo_history")
        .select(["seq", "clock"])
        .where("profile", "=", "default")
        .orderBy("seq", "desc")
        .limit(2)
        .execute();
      if (!last || !prev) throw new Error("no history");
      await faultSeen(
        "ledger.sequence",
        () => h.db.db.updateTable("shampoo_history").set({ clock: prev.clock }).where("seq", "=", last.seq).execute(),
        () => h.db.db.updateTable("shampoo_history").set({ clock: last.clock }).where("seq", "=", last.seq).execute(),
      );
      const child = await h.db.db
        .selectFrom("shampoo_history")
        .select(["seq", "parent_event_id"])
        .where("parent_event_id", "is not", null)
        .limit(1)
        .executeTakeFirstOrThrow();
      await faultSeen(
        "ledger.chains",
        () =>
          h.db.db
            .updateTable("shampoo_history")
            .set({ parent_event_id: "no-such-parent" })
            .where("seq", "=", child.seq)
            .execute(),
        () =>
          h.db.db
            .updateTable("shampoo_history")
            .set({ parent_event_id: child.parent_event_id })
            .where("seq", "=", child.seq)
            .execute(),
      );
    });

    it("database.migrations: a ledger without the platform's migrations", async () => {
      await faultSeen(
        "database.migrations",
        () =>
          h.db.db
            .updateTable("shampoo_module_migrations")
            .set({ module: "platform-gone" })
            .where("module", "=", "platform")
            .execute(),
        () =>
          h.db.db
            .updateTable("shampoo_module_migrations")
            .set({ module: "platform" })
            .where("module", "=", "platform-gone")
            .execute(),
      );
    });

    it("a broken database handle: database.reachable and readiness fail, the rest is UNKNOWN, never ok; fixed, all ok", async () => {
      const broken: Database<ShampooDB> = {
        ...h.db,
        read: () => Promise.reject(new Error("the connection is closed")),
        transaction: () => Promise.reject(new Error("the connection is closed")),
      };
      const bad = await run(h, ctxOf(h, a, { database: broken }));
      expect(bad.status).toBe("fail");
      expect(check(bad, "database.reachable").status).toBe("fail");
      expect(check(bad, "readiness.canary").status).toBe("fail");
      expect(check(bad, "readiness.canary").summary).toMatch(/refused/);
      for (const id of ["database.migrations", "ledger.clock", "invariants.events", "invariants.leases"]) {
        expect(check(bad, id).status).toBe("unknown");
        expect(check(bad, id).summary).toMatch(/could not observe: the connection is closed/);
      }
      const good = await run(h, ctxOf(h, a));
      expect(statuses(good)).toEqual(statuses(await doctorOf(a)));
      expect(check(good, "readiness.canary").status).toBe("ok");
    });

    it("readiness: the database answers but tool calls fail — the canary sees it; no pipeline is UNKNOWN", async () => {
      const failing = {
        list: () => h.shampoo.registry.list(),
        call: async () => ({
          structuredContent: { error: "internal error; nothing was changed", error_type: "internal_error" },
          isError: true,
        }),
      };
      const bad = await run(h, ctxOf(h, a, { pipeline: failing }));
      expect(check(bad, "database.reachable").status).toBe("ok");
      expect(check(bad, "readiness.canary")).toMatchObject({
        status: "fail",
        summary: expect.stringMatching(/internal_error/),
      });
      const throwing = {
        list: () => h.shampoo.registry.list(),
        call: () => Promise.reject(new Error("transport closed")),
      };
      expect(check(await run(h, ctxOf(h, a, { pipeline: throwing })), "readiness.canary").status).toBe("fail");
      const { doctor } = await import("../../src/domains/health/service/doctor.ts");
      const unserved = {
        list: () => h.shampoo.registry.list().filter((t) => t.name !== "status"),
        call: throwing.call,
      };
      const without = await doctor(ctxOf(h, a, { pipeline: unserved }), { sections: "readiness" });
      expect(without.sections[0]?.checks[0]).toMatchObject({
        status: "unknown",
        summary: expect.stringMatching(/does not serve status/),
      });
      const bare = await doctor(ctxOf(h, a, { pipeline: undefined }), { sections: "readiness" });
      expect(bare.sections[0]?.checks[0]?.status).toBe("unknown");
      expect(bare.status).toBe("unknown");
      expect(check(await run(h, ctxOf(h, a)), "readiness.canary").status).toBe("ok");
    });

    it("config.tools warns for a session that can call no tool; fixed, ok", async () => {
      const { doctor } = await import("../../src/domains/health/service/doctor.ts");
      const none = await doctor(ctxOf(h, a, { caller: { ...a.caller, tools: new Set<string>() } }), {
        sections: "config",
      });
      expect(none.sections[0]?.checks.find((c) => c.id === "config.tools")).toMatchObject({
        status: "warn",
        summary: expect.stringMatching(/^0 of \d+ tools callable/),
      });
      const some = await doctor(ctxOf(h, a), { sections: "config" });
      expect(some.sections[0]?.checks.find((c) => c.id === "config.tools")?.status).toBe("ok");
    });

    it("config.caller warns for a caller without any grant; the doctor still runs for it", async () => {
      const nobody = await h.as({ principal: "nobody", grants: [] });
      const r = await doctorOf(nobody, { sections: "config,readiness" });
      expect(check(r, "config.caller").status).toBe("warn");
      expect(check(r, "readiness.canary").status).toBe("ok");
      expect(r.status).toBe("warn");
    });
  });
}

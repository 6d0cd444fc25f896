import { iso } from "kernel";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { counts, eventsOf, MISSING_SESSION, sessionRow, uniq } from "../support/sessions.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";

describe.each(DIALECTS)("session_recall and close_session on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  /** n sessions one minute apart, oldest first; returns their ids. */
  async function saveMany(agent: Agent, n: number, project: string): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      h.clock.advance(60_000);
      ids.push((await agent.sc("session_save", { project, summary: `s${i}` })).session_id as string);
    }
    return ids;
  }

  describe("session_recall", () => {
    it("returns the catalog shape, newest save first, default 5; recalling changes nothing", async () => {
      const a = await h.as({ principal: uniq("al"), grants: ["shared-ops"] });
      const ids = await saveMany(a, 7, "shared-ops");
      const before = await counts(h);
      const r = await a.sc("session_recall", {});
      expect(await counts(h)).toEqual(before);
      expect(Object.keys(r).sort()).toEqual(["count", "sessions"]);
      expect(r.count).toBe(5);
      const sessions = r.sessions as Record<string, unknown>[];
      expect(sessions.map((s) => s.session_id)).toEqual(ids.slice(2).reverse());
      const top = await sessionRow(h, ids[6] as string);
      expect(sessions[0]).toEqual({
        active_files: null,
        ended_at: top?.ended_at,
        project: "shared-ops",
        session_id: ids[6],
        started_at: top?.started_at,
        summary: "s6",
      });
      // A re-saved older session moves to the top (most recently saved first).
      h.clock.advance(60_000);
      await a.sc("session_save", { session_id: ids[0], active_files: ["x.ts"] });
      const again = (await a.sc("session_recall", { last_n: 1 })).sessions as Record<string, unknown>[];
      expect(again).toEqual([expect.objectContaining({ session_id: ids[0], active_files: ["x.ts"], summary: "s0" })]);
    });

    it("nulls stay null: an untagged session without summary or files", async () => {
      const a = await h.as({ principal: uniq("al"), grants: [""] });
      const { session_id } = await a.sc("session_save", {});
      expect(await a.sc("session_recall", {})).toEqual({
        count: 1,
        sessions: [
          {
            session_id,
            project: null,
            summary: null,
            active_files: null,
            started_at: iso(h.clock.now()),
            ended_at: iso(h.clock.now()),
          },
        ],
      });
    });

    it("last_n accepts integers, integral floats and booleans; negatives read as 0; large values clamp to 100", async () => {
      const a = await h.as({ principal: uniq("al"), grants: ["p1"] });
      await saveMany(a, 3, "p1");
      const n = async (last_n: unknown) => (await a.sc("session_recall", { last_n })).count;
      expect(await n(2)).toBe(2);
      expect(await n(2.0)).toBe(2);
      expect(await n(true)).toBe(1);
      expect(await n(false)).toBe(0);
      expect(await n(0)).toBe(0);
      expect(await n(-4)).toBe(0);
      expect(await n(50)).toBe(3);
      expect(await a.sc("session_recall", { last_n: false })).toEqual({ sessions: [], count: 0 });

      // The clamp: 105 sessions stored directly, at most 100 come back.
      const b = await h.as({ principal: uniq("bulk"), grants: ["p1"] });
      const at = iso(h.clock.now());
      await h.db.db
        .insertInto("shampoo_sessions")
        .values(
          Array.from({ length: 105 }, (_, i) => ({
            profile: "default",
            session_id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
            owner: b.caller.principal,
            project: "p1",
            summary: null,
            active_files: null,
            state: "live" as const,
            started_at: at,
            ended_at: at,
            closed_at: null,
            closed_by: null,
            updated_at: at,
            last_event_id: "seed",
          })),
        )
        .execute();
      expect((await b.sc("session_recall", { last_n: 1000 })).count).toBe(100);
    });

    it("rejects other last_n types and unknown arguments", async () => {
      const a = await h.as({ principal: uniq("al"), grants: ["p1"] });
      for (const args of [
        { last_n: 2.5 },
        { last_n: "5" },
        { last_n: null },
        { last_n: [5] },
        { last_n: { n: 5 } },
        { n: 5 },
      ]) {
        const r = await a.call("session_recall", args);
        expect(r.isError).toBe(true);
        expect((r.structuredContent as { error_type: string }).error_type).toBe("validation");
      }
    });

    it("shows only the caller's own sessions inside the grants; star sees every owner's named-project sessions", async () => {
      const p = uniq("proj");
      const q = uniq("proj");
      const alice = await h.as({ principal: uniq("alice"), grants: [p, q, ""] });
      const bob = await h.as({ principal: uniq("bob"), grants: [p] });
      const [inP] = await saveMany(alice, 1, p);
      const [inQ] = await saveMany(alice, 1, q);
      const untagged = (await alice.sc("session_save", {})).session_id;
      const [bobs] = await saveMany(bob, 1, p);

      const ids = async (agent: Agent) =>
        ((await agent.sc("session_recall", { last_n: 100 })).sessions as { session_id: string }[]).map(
          (s) => s.session_id,
        );
      expect(await ids(bob)).toEqual([bobs]);
      // The same principal with narrower grants sees only what the grants cover.
      const aliceNarrow = await h.as({ principal: alice.caller.principal, grants: [p] });
      expect(await ids(aliceNarrow)).toEqual([inP]);
      const star = await h.as({ principal: uniq("star"), grants: ["*"] });
      const seen = await ids(star);
      expect(seen).toEqual(expect.arrayContaining([inP, inQ, bobs]));
      expect(seen).not.toContain(untagged);
      const starUntagged = await h.as({ principal: uniq("star"), grants: ["*", ""] });
      expect(await ids(starUntagged)).toContain(untagged);
      const nobody = await h.as({ principal: alice.caller.principal, grants: [] });
      expect(await nobody.sc("session_recall", {})).toEqual({ sessions: [], count: 0 });
      const otherProfile = await h.as({ principal: alice.caller.principal, grants: [p, q, ""], profile: "elsewhere" });
      expect(await otherProfile.sc("session_recall", {})).toEqual({ sessions: [], count: 0 });
    });
  });

  describe("close_session", () => {
    it("moves one owned live session to ended with one close event; a second close matches 0", async () => {
      const a = await h.as({ principal: uniq("al"), grants: ["p1"] });
      const { session_id: id } = await a.sc("session_save", { project: "p1", summary: "work" });
      h.clock.advance(5000);
      expect(await a.sc("close_session", { session_id: id })).toEqual({ closed: id, matched: 1 });
      const at = iso(h.clock.now());
      expect(await sessionRow(h, id as string)).toMatchObject({
        state: "ended",
        closed_at: at,
        closed_by: a.caller.principal,
        ended_at: at,
        summary: "work",
      });
      const events = await eventsOf(h, id as string);
      expect(events.map((e) => e.action)).toEqual(["create", "close"]);
      expect(events[1]?.parent_event_id).toBe(events[0]?.event_id);
      expect(JSON.parse(events[1]?.source_json ?? "{}").tool).toBe("close_session");
      const before = await counts(h);
      expect(await a.sc("close_session", { session_id: id })).toEqual({ closed: id, matched: 0 });
      expect(await counts(h)).toEqual(before);
      // The entry stays, still recalled.
      expect((await a.sc("session_recall", {})).sessions).toEqual([expect.objectContaining({ session_id: id })]);
    });

    it("echoes the id as given and matches any accepted UUID form", async () => {
      const a = await h.as({ principal: uniq("al"), grants: ["p1"] });
      const { session_id: id } = await a.sc("session_save", { project: "p1" });
      const upper = `{${(id as string).toUpperCase()}}`;
      expect(await a.sc("close_session", { session_id: upper })).toEqual({ closed: upper, matched: 1 });
    });

    it("foreign, unknown, malformed and out-of-grant ids match 0 alike; star does not bypass ownership", async () => {
      const p = uniq("proj");
      const owner = await h.as({ principal: uniq("owner"), grants: [p] });
      const { session_id: id } = await owner.sc("session_save", { project: p });
      const sid = id as string;
      const other = await h.as({ principal: uniq("other"), grants: [p] });
      const star = await h.as({ principal: uniq("star"), grants: ["*", ""] });
      const ownerNoGrant = await h.as({ principal: owner.caller.principal, grants: ["elsewhere"] });
      const ownerOtherProfile = await h.as({ principal: owner.caller.principal, grants: [p], profile: "x" });
      const before = await counts(h);
      const untouched = (given: string) => ({ closed: given, matched: 0 });
      const foreign = await other.call("close_session", { session_id: sid });
      const missing = await other.call("close_session", { session_id: MISSING_SESSION });
      expect(foreign.structuredContent).toEqual(untouched(sid));
      expect(foreign.isError).toBeFalsy();
      expect(JSON.stringify(missing).replaceAll(MISSING_SESSION, sid)).toBe(JSON.stringify(foreign));
      expect(await star.sc("close_session", { session_id: sid })).toEqual(untouched(sid));
      expect(await ownerNoGrant.sc("close_session", { session_id: sid })).toEqual(untouched(sid));
      expect(await ownerOtherProfile.sc("close_session", { session_id: sid })).toEqual(untouched(sid));
      expect(await other.sc("close_session", { session_id: "nope" })).toEqual(untouched("nope"));
      expect(await counts(h)).toEqual(before);
      expect((await sessionRow(h, sid))?.state).toBe("live");
    });

    it("rejects a missing session_id, bad types and unknown arguments", async () => {
      const a = await h.as({ principal: uniq("al"), grants: ["p1"] });
      const missing = await a.call("close_session", {});
      expect(missing.isError).toBe(true);
      expect(missing.structuredContent).toEqual({
        error: "Missing required argument: session_id",
        error_type: "validation",
      });
      for (const args of [{ session_id: 5 }, { session_id: null }, { session_id: MISSING_SESSION, force: true }]) {
        const r = await a.call("close_session", args);
        expect(r.isError).toBe(true);
        expect((r.structuredContent as { error_type: string }).error_type).toBe("validation");
      }
    });
  });
});

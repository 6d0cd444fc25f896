import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  counts,
  eventsOf,
  MALFORMED,
  MISSING_SESSION,
  SCOPE_DENIED,
  SESSION_NOT_FOUND,
  sessionInvariants,
  sessionRow,
  UUID_RE,
  uniq,
} from "../support/sessions.ts";
import { type Harness, harness } from "../support/shampoo.ts";

describe.each(DIALECTS)("session_save on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("creates with a server-assigned UUID: the catalog example, one create event, owner = principal", async () => {
    const p = "shared-ops";
    const a = await h.as({ principal: uniq("alice"), grants: [p] });
    const before = await counts(h);
    const r = await a.sc("session_save", { project: p, summary: "Pack README drafted; left proofing for next run." });
    expect(Object.keys(r).sort()).toEqual(["action", "session_id"]);
    expect(r.action).toBe("created");
    expect(r.session_id).toMatch(UUID_RE);
    const row = await sessionRow(h, r.session_id as string);
    expect(row).toMatchObject({
      owner: a.caller.principal,
      project: p,
      summary: "Pack README drafted; left proofing for next run.",
      active_files: null,
      state: "live",
      started_at: "2026-11-30T12:00:00.000Z",
      ended_at: "2026-11-30T12:00:00.000Z",
      closed_at: null,
    });
    const events = await eventsOf(h, r.session_id as string);
    expect(events.map((e) => [e.entity_kind, e.action, e.principal])).toEqual([
      ["session", "create", a.caller.principal],
    ]);
    expect(JSON.parse(events[0]?.source_json ?? "{}").tool).toBe("session_save");
    expect(row?.last_event_id).toBe(events[0]?.event_id);
    const after = await counts(h);
    expect(after.shampoo_history - before.shampoo_history).toBe(1);
    expect(after.shampoo_sessions - before.shampoo_sessions).toBe(1);
  });

  it("omitted, null and blank session ids all get a fresh UUID", async () => {
    const a = await h.as({ principal: uniq("al"), grants: [""] });
    const ids = new Set<string>();
    for (const args of [{}, { session_id: null }, { session_id: "" }, { session_id: "   " }]) {
      const r = await a.sc("session_save", args);
      expect(r.action).toBe("created");
      expect(r.session_id).toMatch(UUID_RE);
      ids.add(r.session_id as string);
    }
    expect(ids.size).toBe(4);
  });

  it("every form the UUID parser accepts names the same session", async () => {
    const a = await h.as({ principal: uniq("al"), grants: ["p1"] });
    const id = (await a.sc("session_save", { project: "p1" })).session_id as string;
    const forms = [
      id.toUpperCase(),
      `{${id.toUpperCase()}}`,
      `urn:uuid:${id}`,
      id.replaceAll("-", ""),
      `uuid:${id.replaceAll("-", "").toUpperCase()}`,
    ];
    for (const form of forms) {
      expect(await a.sc("session_save", { session_id: form })).toEqual({ action: "updated", session_id: id });
    }
    expect((await eventsOf(h, id)).map((e) => e.action)).toEqual(["create", ...forms.map(() => "update")]);
  });

  it("no existence oracle: an explicit id no session holds answers exactly like another principal's session", async () => {
    const p = uniq("proj");
    const owner = await h.as({ principal: uniq("owner"), grants: [p] });
    const { session_id: id } = await owner.sc("session_save", { project: p, summary: "mine" });
    const other = await h.as({ principal: uniq("other"), grants: [p] });
    const before = await counts(h);
    const foreign = await other.call("session_save", { session_id: id, project: p, summary: "x" });
    const missing = await other.call("session_save", { session_id: MISSING_SESSION, project: p, summary: "x" });
    expect(JSON.stringify(missing)).toBe(JSON.stringify(foreign));
    expect(missing.structuredContent).toEqual(SESSION_NOT_FOUND);
    // Without a project (an untagged create would need a grant this caller lacks) too.
    expect(JSON.stringify(await other.call("session_save", { session_id: MISSING_SESSION }))).toBe(
      JSON.stringify(await other.call("session_save", { session_id: id })),
    );
    expect(await counts(h)).toEqual(before);
    expect(await sessionRow(h, MISSING_SESSION)).toBeUndefined();
  });

  it("a malformed explicit id answers the catalog sentence and persists nothing", async () => {
    const a = await h.as({ principal: uniq("al"), grants: ["p1", ""] });
    const before = await counts(h);
    for (const bad of [
      "not-a-uuid",
      "6f9619ff-8b86-4011-b42d-00c04fc964f",
      "6f9619ff8b864011b42d00c04fc964ffaa",
      "g".repeat(32),
    ]) {
      const r = await a.call("session_save", { session_id: bad, summary: "x" });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toEqual(MALFORMED);
    }
    expect(await counts(h)).toEqual(before);
  });

  it("updates keep prior project, summary and files wherever the call supplies nothing; ended_at always moves", async () => {
    const a = await h.as({ principal: uniq("al"), grants: ["p1", "p2"] });
    const { session_id: id } = await a.sc("session_save", {
      project: "p1",
      summary: "first",
      active_files: ["src/a.ts", "src/b.ts"],
    });
    const sid = id as string;
    expect((await sessionRow(h, sid))?.active_files).toBe(JSON.stringify(["src/a.ts", "src/b.ts"]));
    h.clock.advance(60_000);
    for (const args of [
      {},
      { project: null, summary: null, active_files: null },
      { project: "", summary: "", active_files: [] },
    ]) {
      expect(await a.sc("session_save", { session_id: sid, ...args })).toEqual({ action: "updated", session_id: sid });
      expect(await sessionRow(h, sid)).toMatchObject({
        project: "p1",
        summary: "first",
        active_files: JSON.stringify(["src/a.ts", "src/b.ts"]),
        started_at: "2026-11-30T12:00:00.000Z",
        ended_at: "2026-11-30T12:01:00.000Z",
      });
    }
    h.clock.advance(60_000);
    await a.sc("session_save", { session_id: sid, project: "p2", summary: "second", active_files: ["c.ts"] });
    expect(await sessionRow(h, sid)).toMatchObject({
      project: "p2",
      summary: "second",
      active_files: '["c.ts"]',
      started_at: "2026-11-30T12:00:00.000Z",
      ended_at: "2026-11-30T12:02:00.000Z",
    });
    const events = await eventsOf(h, sid);
    expect(events.map((e) => e.action)).toEqual(["create", "update", "update", "update", "update"]);
    for (let i = 1; i < events.length; i++) expect(events[i]?.parent_event_id).toBe(events[i - 1]?.event_id);
    expect(JSON.parse(events[4]?.old_json ?? "{}")).toMatchObject({ project: "p1", summary: "first" });
    expect(JSON.parse(events[4]?.new_json ?? "{}")).toMatchObject({ project: "p2", active_files: ["c.ts"] });
  });

  it("empty, missing or null file lists store as null on creation", async () => {
    const a = await h.as({ principal: uniq("al"), grants: ["p1"] });
    for (const active_files of [undefined, null, []]) {
      const r = await a.sc("session_save", { project: "p1", ...(active_files === undefined ? {} : { active_files }) });
      expect((await sessionRow(h, r.session_id as string))?.active_files).toBeNull();
    }
  });

  it("an omitted project on creation is an untagged write: it needs the untagged grant", async () => {
    const named = await h.as({ principal: uniq("al"), grants: ["p1"] });
    const before = await counts(h);
    const denied = await named.call("session_save", { summary: "x" });
    expect(denied.isError).toBe(true);
    expect(denied.structuredContent).toEqual(SCOPE_DENIED);
    const star = await h.as({ principal: uniq("st"), grants: ["*"] });
    expect((await star.call("session_save", {})).structuredContent).toEqual(SCOPE_DENIED);
    expect(await counts(h)).toEqual(before);
    const untagged = await h.as({ principal: uniq("un"), grants: [""] });
    const r = await untagged.sc("session_save", { summary: "x" });
    expect((await sessionRow(h, r.session_id as string))?.project).toBeNull();
  });

  it("supplied projects must be granted now, on creation and on update; '*' is never a project", async () => {
    const a = await h.as({ principal: uniq("al"), grants: ["p1"] });
    const { session_id } = await a.sc("session_save", { project: "p1" });
    const before = await counts(h);
    expect((await a.call("session_save", { project: "secret" })).structuredContent).toEqual(SCOPE_DENIED);
    expect((await a.call("session_save", { session_id, project: "secret" })).structuredContent).toEqual(SCOPE_DENIED);
    const star = await a.call("session_save", { project: "*" });
    expect(star.isError).toBe(true);
    expect(star.structuredContent).toMatchObject({ error_type: "validation" });
    expect(await counts(h)).toEqual(before);
    expect((await sessionRow(h, session_id as string))?.project).toBe("p1");
  });

  it("foreign sessions and sessions outside the grants read as session not found; star bypasses ownership", async () => {
    const p = uniq("proj");
    const owner = await h.as({ principal: uniq("owner"), grants: [p] });
    const { session_id: id } = await owner.sc("session_save", { project: p, summary: "mine" });
    const other = await h.as({ principal: uniq("other"), grants: [p] });
    const stranger = await h.as({ principal: uniq("stranger"), grants: ["elsewhere"] });
    const sameNameNoGrant = await h.as({ principal: owner.caller.principal, grants: ["elsewhere"] });
    const before = await counts(h);
    const foreign = await other.call("session_save", { session_id: id, summary: "hijack" });
    expect(foreign.isError).toBe(true);
    expect(foreign.structuredContent).toEqual(SESSION_NOT_FOUND);
    expect(await stranger.call("session_save", { session_id: id, summary: "hijack" })).toEqual(foreign);
    // The owner whose grants no longer cover the session's project is refused the same way.
    expect(await sameNameNoGrant.call("session_save", { session_id: id, summary: "hijack" })).toEqual(foreign);
    expect(await counts(h)).toEqual(before);
    expect((await sessionRow(h, id as string))?.summary).toBe("mine");

    const star = await h.as({ principal: uniq("star"), grants: ["*"] });
    expect(await star.sc("session_save", { session_id: id, summary: "by star" })).toEqual({
      action: "updated",
      session_id: id,
    });
    const row = await sessionRow(h, id as string);
    expect(row).toMatchObject({ summary: "by star", owner: owner.caller.principal });
    const last = (await eventsOf(h, id as string)).at(-1);
    expect(last?.principal).toBe(star.caller.principal);
  });

  it("stays inside the profile: a session of another profile reads as session not found", async () => {
    const a = await h.as({ principal: uniq("al"), grants: ["p1"] });
    const b = await h.as({ principal: a.caller.principal, grants: ["p1"], profile: "other" });
    const { session_id: id } = await a.sc("session_save", { project: "p1", summary: "default" });
    const r = await b.call("session_save", { session_id: id, project: "p1", summary: "other" });
    expect(r.structuredContent).toEqual(SESSION_NOT_FOUND);
    expect((await sessionRow(h, id as string))?.summary).toBe("default");
    expect(await sessionRow(h, id as string, "other")).toBeUndefined();
  });

  it("saving an ended session renews it, keeping the close stamps as evidence", async () => {
    const a = await h.as({ principal: uniq("al"), grants: ["p1"] });
    const { session_id: id } = await a.sc("session_save", { project: "p1" });
    h.clock.advance(1000);
    expect(await a.sc("close_session", { session_id: id })).toEqual({ closed: id, matched: 1 });
    const closed = await sessionRow(h, id as string);
    h.clock.advance(1000);
    expect(await a.sc("session_save", { session_id: id, summary: "back" })).toEqual({
      action: "updated",
      session_id: id,
    });
    expect(await sessionRow(h, id as string)).toMatchObject({
      state: "live",
      summary: "back",
      closed_at: closed?.closed_at,
      closed_by: a.caller.principal,
    });
  });

  it("two concurrent saves of one session both update it; one row, one event each", async () => {
    const a = await h.as({ principal: uniq("al"), grants: ["p1"] });
    const id = (await a.sc("session_save", { project: "p1" })).session_id as string;
    const results = await Promise.all(
      [1, 2].map((i) => a.call("session_save", { session_id: id, project: "p1", summary: `racer ${i}` })),
    );
    for (const r of results) expect(r.structuredContent).toEqual({ action: "updated", session_id: id });
    const rows = await h.db.db
      .selectFrom("shampoo_sessions")
      .select("session_id")
      .where("session_id", "=", id)
      .execute();
    expect(rows).toHaveLength(1);
    expect((await eventsOf(h, id)).map((e) => e.action)).toEqual(["create", "update", "update"]);
  });

  it("leaves every session and pack with its events: latest event = row, chained, none orphaned", async () => {
    expect(await sessionInvariants(h)).toEqual([]);
  });

  it("rejects bad argument types and unknown arguments before anything runs", async () => {
    const a = await h.as({ principal: uniq("al"), grants: ["p1", ""] });
    const before = await counts(h);
    for (const args of [
      { session_id: 42 },
      { project: 7 },
      { summary: true },
      { active_files: "a.ts" },
      { active_files: [1, 2] },
      { active_files: { a: 1 } },
      { colour: "blue" },
    ]) {
      const r = await a.call("session_save", args);
      expect(r.isError).toBe(true);
      expect((r.structuredContent as { error_type: string }).error_type).toBe("validation");
    }
    expect((await a.call("session_save", { colour: "blue" })).structuredContent).toEqual({
      error: "Unknown argument: colour",
      error_type: "validation",
    });
    expect(await counts(h)).toEqual(before);
  });
});

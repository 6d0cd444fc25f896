import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  counts,
  eventsOf,
  MALFORMED,
  MISSING_SESSION,
  SESSION_NOT_FOUND,
  sessionInvariants,
  UUID_RE,
  uniq,
} from "../support/sessions.ts";
import { type Harness, harness } from "../support/shampoo.ts";

const DAY = 86_400_000;

describe.each(DIALECTS)("resume_context on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  async function packRow(id: string) {
    return h.db.db.selectFrom("shampoo_context_packs").selectAll().where("pack_id", "=", id).executeTakeFirstOrThrow();
  }

  it("resumes a session: persisted handoff pack with summary, files, open tasks of its project and recent history", async () => {
    const p = uniq("ops");
    const other = uniq("other");
    const a = await h.as({ principal: uniq("alice"), grants: [p, other] });
    const open = await a.sc("create_task_or_note", { title: "Proof the README", project: p, priority: "high" });
    const done = await a.sc("create_task_or_note", { title: "Draft the README", project: p });
    await a.sc("update_task", { task_id: done.task_id, status: "done" });
    await a.sc("create_task_or_note", { title: "Unrelated chore", project: other });
    const { session_id: sid } = await a.sc("session_save", {
      project: p,
      summary: "Pack README drafted; left proofing for next run.",
      active_files: ["docs/README.md", "src/pack.ts"],
    });
    const before = await counts(h);

    const r = await a.sc("resume_context", { session_id: sid });
    expect(Object.keys(r).sort()).toEqual([
      "changed_facts_since_last_session",
      "chunks_awaiting_human",
      "open_questions",
      "pack",
      "session_id",
      "summary",
    ]);
    expect(r.session_id).toBe(sid);
    expect(r.open_questions).toEqual([]);
    expect(r.changed_facts_since_last_session).toEqual([]);
    expect(r.chunks_awaiting_human).toEqual([]);
    const pack = r.pack as { pack_id: string; token_usage: number; freshness_score: number; body: string };
    expect(Object.keys(pack).sort()).toEqual(["body", "freshness_score", "pack_id", "token_usage"]);
    expect(pack.pack_id).toMatch(UUID_RE);
    expect(pack.token_usage).toBe(Math.ceil(pack.body.length / 4));
    expect(pack.freshness_score).toBe(1); // everything happened "now"
    expect(pack.body).toContain(`Session ${sid} (project ${p}, live)`);
    expect(pack.body).toContain("Pack README drafted; left proofing for next run.");
    expect(pack.body).toContain("- docs/README.md\n- src/pack.ts");
    expect(pack.body).toContain(`- [not_started · high] Proof the README (task ${open.task_id}, ${p})`);
    expect(pack.body).not.toContain("] Draft the README"); // done: not open work
    expect(pack.body).not.toContain("Unrelated chore"); // another project
    expect(pack.body).toContain(`${a.caller.principal} update "Draft the README" (task ${done.task_id})`);
    // Context governance's sections close the pack; nothing is tracked for this project yet.
    expect(pack.body).toContain(
      "## Open questions\n(none)\n\n## Awaiting human input\n(none)\n\n## Changed facts (last 7 days)\n(none)",
    );
    expect(r.summary).toBe(
      `Resumed session ${sid} (project ${p}): handoff pack ${pack.pack_id} with the session summary, 2 active files, 1 open task, 3 recent events (${pack.token_usage} of 4000 tokens). Context: 0 open questions, 0 chunks awaiting human input, 0 facts changed in the last 7 days.`,
    );

    // Persisted: the pack, its run-history entry and exactly one history event.
    const after = await counts(h);
    expect(after.shampoo_context_packs - before.shampoo_context_packs).toBe(1);
    expect(after.shampoo_context_runs - before.shampoo_context_runs).toBe(1);
    expect(after.shampoo_history - before.shampoo_history).toBe(1);
    expect(after.shampoo_sessions).toBe(before.shampoo_sessions);
    const row = await packRow(pack.pack_id);
    expect(row).toMatchObject({
      pack_type: "handoff",
      session_id: sid,
      project: p,
      token_budget: 4000,
      token_usage: pack.token_usage,
      body: pack.body,
      lifecycle: "live",
      created_by: a.caller.principal,
    });
    expect(Number(row.freshness_score)).toBe(1);
    expect(JSON.parse(row.items_json)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: "session", ref: sid }),
        expect.objectContaining({ kind: "task", ref: open.task_id }),
        { kind: "file", ref: "src/pack.ts" },
      ]),
    );
    const run = await h.db.db
      .selectFrom("shampoo_context_runs")
      .selectAll()
      .where("pack_id", "=", pack.pack_id)
      .executeTakeFirstOrThrow();
    expect(run).toMatchObject({
      tool: "resume_context",
      principal: a.caller.principal,
      session_id: sid,
      status: "completed",
    });
    expect(JSON.parse(run.input_json)).toEqual({ session_id: sid });
    const [event] = await eventsOf(h, pack.pack_id);
    expect(event).toMatchObject({ entity_kind: "context_pack", action: "create", principal: a.caller.principal });
    expect(JSON.parse(event?.payload_json ?? "{}").run_id).toBe(run.run_id);
    expect(JSON.parse(event?.source_json ?? "{}").tool).toBe("resume_context");
    expect(row.last_event_id).toBe(event?.event_id);
  });

  it("lists tasks under Open tasks, never notes (a note is content, not open work), in resume and in packs", async () => {
    const p = uniq("notes");
    const a = await h.as({ principal: uniq("nora"), grants: [p] });
    await a.sc("create_task_or_note", { title: "Ship the exporter", project: p });
    await a.sc("create_task_or_note", { title: "Meeting notes from Monday", project: p, type: "note" });
    const { session_id: sid } = await a.sc("session_save", { project: p, summary: "notes vs tasks" });
    const body = ((await a.sc("resume_context", { session_id: sid })).pack as { body: string }).body;
    const open = body.slice(body.indexOf("## Open tasks"), body.indexOf("## Recent activity"));
    expect(open).toContain("Ship the exporter");
    expect(open).not.toContain("Meeting notes from Monday");
    const pack = await a.sc("build_context_pack", { pack_type: "planner", session_id: sid });
    const items = JSON.stringify(pack);
    expect(items).toContain("Ship the exporter");
    expect(items).not.toMatch(/\[not_started[^\]]*\] Meeting notes from Monday/);
  });

  it("without a session (absent, null or blank) builds a general handoff over every visible project", async () => {
    const p = uniq("p");
    const q = uniq("q");
    const hidden = uniq("hidden");
    const a = await h.as({ principal: uniq("al"), grants: [p, q] });
    const z = await h.as({ principal: uniq("zed"), grants: [hidden] });
    await a.sc("create_task_or_note", { title: "Task in P", project: p });
    await a.sc("create_task_or_note", { title: "Task in Q", project: q, priority: "critical" });
    await z.sc("create_task_or_note", { title: "Hidden task", project: hidden });
    for (const args of [{}, { session_id: null }, { session_id: "" }, { session_id: "  " }]) {
      const r = await a.sc("resume_context", args);
      expect(r.session_id).toBeNull();
      const body = (r.pack as { body: string }).body;
      expect(body).toContain("General handoff (no session)");
      expect(body).toContain("## Open tasks (all visible projects)");
      expect(body.indexOf("Task in Q")).toBeLessThan(body.indexOf("Task in P")); // most urgent first
      expect(body).not.toContain("Hidden task");
      expect(body).not.toContain("## Summary");
      expect(r.summary).toMatch(
        /^General handoff \(no session\): pack [0-9a-f-]{36} with 2 open tasks, 2 recent events across your visible projects/,
      );
      const row = await packRow((r.pack as { pack_id: string }).pack_id);
      expect(row.session_id).toBeNull();
    }
  });

  it("include_open_questions defaults true; false skips the open-question scan (and says so)", async () => {
    const a = await h.as({ principal: uniq("al"), grants: [""] });
    const yes = await a.sc("resume_context", { include_open_questions: true });
    const dflt = await a.sc("resume_context", {});
    const no = await a.sc("resume_context", { include_open_questions: false });
    expect(yes.summary).toContain("Context: 0 open questions, 0 chunks awaiting human input");
    expect(dflt.summary).toContain("Context: 0 open questions, 0 chunks awaiting human input");
    expect(no.summary).toContain("Context: open-question scan skipped on request, 0 chunks awaiting human input");
    expect(no.open_questions).toEqual([]);
    const run = await h.db.db
      .selectFrom("shampoo_context_runs")
      .select("result_json")
      .where("pack_id", "=", (no.pack as { pack_id: string }).pack_id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(run.result_json).open_question_scan).toBe(false);
  });

  it("a malformed id answers the session_save sentence; foreign and unknown sessions read as session not found", async () => {
    const p = uniq("p");
    const owner = await h.as({ principal: uniq("owner"), grants: [p] });
    const { session_id: sid } = await owner.sc("session_save", { project: p, summary: "private" });
    const other = await h.as({ principal: uniq("other"), grants: [p] });
    const ownerNarrow = await h.as({ principal: owner.caller.principal, grants: ["elsewhere"] });
    const before = await counts(h);
    const bad = await other.call("resume_context", { session_id: "session-1" });
    expect(bad.isError).toBe(true);
    expect(bad.structuredContent).toEqual(MALFORMED);
    const foreign = await other.call("resume_context", { session_id: sid });
    expect(foreign.isError).toBe(true);
    expect(foreign.structuredContent).toEqual(SESSION_NOT_FOUND);
    expect(await other.call("resume_context", { session_id: MISSING_SESSION })).toEqual(foreign);
    expect(await ownerNarrow.call("resume_context", { session_id: sid })).toEqual(foreign);
    expect(await counts(h)).toEqual(before); // nothing persisted

    // Star bypasses ownership (inside its grants): the pack carries the owner's session.
    const star = await h.as({ principal: uniq("star"), grants: ["*"] });
    const r = await star.sc("resume_context", { session_id: (sid as string).toUpperCase() });
    expect(r.session_id).toBe(sid);
    expect((r.pack as { body: string }).body).toContain("private");
  });

  it("freshness halves every 7 days; history older than 7 days is left out", async () => {
    const p = uniq("solo");
    const a = await h.as({ principal: uniq("al"), grants: [p] });
    const t = await a.sc("create_task_or_note", { title: "Old task", project: p });
    const { session_id: sid } = await a.sc("session_save", { project: p });
    h.clock.advance(7 * DAY);
    const r = await a.sc("resume_context", { session_id: sid });
    const pack = r.pack as { freshness_score: number; body: string };
    // Two dated items (the session and the task), both exactly 7 days old.
    expect(pack.freshness_score).toBe(0.5);
    expect(pack.body).toContain(`Old task (task ${t.task_id}`);
    expect(pack.body).toContain("## Recent activity (last 7 days)\n- "); // exactly 7 days: still in
    h.clock.advance(1);
    const later = (await a.sc("resume_context", { session_id: sid })).pack as { body: string };
    expect(later).toMatchObject({ body: expect.stringContaining("## Recent activity (last 7 days)\n(none)") });
    const empty = await h.as({ principal: uniq("em"), grants: [uniq("void")] });
    expect(((await empty.sc("resume_context", {})).pack as { freshness_score: number }).freshness_score).toBe(0);
  });

  it("stays under the 4000-token handoff budget, cutting a long summary", async () => {
    const p = uniq("big");
    const a = await h.as({ principal: uniq("al"), grants: [p] });
    const { session_id: sid } = await a.sc("session_save", { project: p, summary: "word ".repeat(20_000) });
    for (let i = 0; i < 3; i++) await a.sc("create_task_or_note", { title: `Task ${i}`, project: p });
    const pack = (await a.sc("resume_context", { session_id: sid })).pack as { token_usage: number; body: string };
    expect(pack.token_usage).toBeLessThanOrEqual(4000);
    expect(pack.token_usage).toBeGreaterThan(3800);
    expect(pack.body).toContain("…");
    expect(pack.body).toContain("## Changed facts (last 7 days)");
  });

  it("rejects bad types and unknown arguments", async () => {
    const a = await h.as({ principal: uniq("al"), grants: [""] });
    const before = await counts(h);
    for (const args of [
      { include_open_questions: "yes" },
      { include_open_questions: 1 },
      { session_id: 7 },
      { pack_type: "handoff" },
    ]) {
      const r = await a.call("resume_context", args);
      expect(r.isError).toBe(true);
      expect((r.structuredContent as { error_type: string }).error_type).toBe("validation");
    }
    expect(await counts(h)).toEqual(before);
  });

  it("leaves every session and pack with its events: latest event = row, chained, none orphaned", async () => {
    expect(await sessionInvariants(h)).toEqual([]);
  });

  it("lists the four session tools with strict schemas", async () => {
    const a = await h.as({ principal: uniq("al"), grants: [""] });
    const { tools } = await a.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ["close_session", "resume_context", "session_recall", "session_save"]) {
      const t = byName.get(name);
      expect(t?.inputSchema.additionalProperties).toBe(false);
      expect(t?.outputSchema).toBeDefined();
    }
    expect(byName.get("close_session")?.inputSchema.required).toEqual(["session_id"]);
    expect(byName.get("session_recall")?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get("resume_context")?.annotations?.readOnlyHint).toBe(false);
  });
});

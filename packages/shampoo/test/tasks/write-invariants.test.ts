import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { taskView } from "../../src/domains/tasks/model.ts";
import { type Harness, harness } from "../support/shampoo.ts";
import {
  eventsOf,
  expectUnchanged,
  MISSING_ID,
  mk,
  mustRow,
  NOT_FOUND,
  ok,
  poke,
  profileEvents,
  uniq,
} from "../support/tasks-write.ts";

const WRITE_TOOLS = [
  "archive_done_tasks",
  "assign_task",
  "bump_overdue_priority",
  "create_task_or_note",
  "update_task",
  "upsert_note_by_title_project",
];
const DAY = 86_400_000;

/** Cross-cutting rules every task write keeps (catalog: cross-cutting rules). */
describe.each(DIALECTS)("task writes: invariants on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("publishes the six write tools with strict input schemas and the documented parameters", async () => {
    const a = await h.as({ principal: "alice", grants: [] });
    const { tools } = await a.client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    const params: Record<string, [string[], string[]]> = {
      archive_done_tasks: [[], ["older_than_days"]],
      assign_task: [["task_id"], ["assignee", "task_id"]],
      bump_overdue_priority: [[], ["target_priority"]],
      create_task_or_note: [
        ["title"],
        [
          "assignee",
          "description",
          "due_date",
          "notes",
          "parent_id",
          "priority",
          "project",
          "recurring",
          "reminder_at",
          "section",
          "title",
          "type",
        ],
      ],
      update_task: [
        ["task_id"],
        [
          "description",
          "due_date",
          "notes",
          "parent_id",
          "priority",
          "project",
          "recurring",
          "reminder_at",
          "section",
          "status",
          "task_id",
          "title",
          "type",
        ],
      ],
      upsert_note_by_title_project: [
        ["title"],
        ["description", "notes", "priority", "project", "section", "title", "update_if_found"],
      ],
    };
    for (const name of WRITE_TOOLS) {
      const t = byName.get(name);
      expect(t, name).toBeDefined();
      const schema = t?.inputSchema as { additionalProperties?: boolean; required?: string[]; properties?: object };
      expect(schema.additionalProperties).toBe(false);
      expect(schema.required ?? []).toEqual(params[name]?.[0]);
      expect(Object.keys(schema.properties ?? {}).sort()).toEqual(params[name]?.[1]);
      expect(t?.annotations?.readOnlyHint).toBe(false);
      expect(t?.annotations?.destructiveHint).toBe(false);
    }
  });

  it("a mixed workload: one event per changed row, per-profile clocks strictly increasing without gaps, chains intact, nothing deleted", async () => {
    const p = uniq();
    const a = await h.as({ principal: "alice", grants: [p, ""], profile: "mixed" });
    const b = await h.as({ principal: "bob", grants: [p], role: "conductor", profile: "mixed" });
    const other = await h.as({ principal: "alice", grants: [p], profile: "mixed-other" });
    const taskCount = async () =>
      Number(
        (
          await h.db.db
            .selectFrom("shampoo_tasks")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    let tasks = await taskCount();
    const step = async (fn: () => Promise<unknown>) => {
      h.clock.advance(1000);
      await fn();
      const now = await taskCount();
      expect(now).toBeGreaterThanOrEqual(tasks); // nothing physically deleted, ever
      tasks = now;
    };
    const ids: string[] = [];
    await step(async () =>
      ids.push(await mk(a, { title: "one", project: p, due_date: "2026-01-01", priority: "low" })),
    );
    await step(async () => ids.push(await mk(b, { title: "two", project: p, parent_id: ids[0] })));
    await step(async () => ids.push(await mk(a, { title: "three (untagged)" })));
    await step(() => ok(other, "create_task_or_note", { title: "elsewhere", project: p }));
    await step(() => ok(a, "update_task", { task_id: ids[1], status: "done", project: "CLEAR" }));
    await step(() => ok(b, "assign_task", { task_id: ids[0], assignee: "carol" }));
    await step(() => ok(a, "assign_task", { task_id: ids[0] }));
    await step(() => ok(a, "bump_overdue_priority", {}));
    await step(() => ok(a, "upsert_note_by_title_project", { title: "Log", project: p, notes: "1" }));
    await step(() => ok(b, "upsert_note_by_title_project", { title: "log", project: p, notes: "2" }));
    await step(() => ok(b, "upsert_note_by_title_project", { title: "LOG", project: p, notes: "2" })); // no-op
    await step(() => ok(a, "update_task", { task_id: ids[2], status: "done" }));
    h.clock.advance(30 * DAY); // the done task ages past the archive threshold
    await step(() => ok(a, "archive_done_tasks", {}));
    await step(() => ok(a, "update_task", { task_id: ids[1], status: "cancelled" }));

    const events = await profileEvents(h, "mixed");
    // Clocks: 1, 2, 3, … in commit order, no gaps, no repeats.
    expect(events.map((e) => e.clock)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => e.action)).toEqual([
      "create",
      "create",
      "create",
      "update",
      "assign",
      "unassign",
      "bump_priority",
      "create",
      "update",
      "update",
      "archive", // "two" (done, moved to untagged, which alice sees)
      "archive", // "three"
      "update",
    ]);
    // Each event: the acting principal and role, the time of the call, a source span.
    for (const e of events) {
      expect(["alice", "bob"]).toContain(e.principal);
      expect(e.role).toBe(e.principal === "bob" ? "conductor" : "agent");
      expect(JSON.parse(e.source_json).session).toBe(e.session_id);
      expect(JSON.parse(e.source_json).tool).toMatch(/^[a-z_]+$/);
    }
    const ats = events.map((e) => e.at);
    expect([...ats].sort()).toEqual(ats);
    // Per entity: a chain from the create event; the row points at its latest event; the last
    // event's new view is the row as stored.
    const entities = [...new Set(events.map((e) => e.entity_id))];
    expect(entities).toHaveLength(4);
    for (const id of entities) {
      const chain = await eventsOf(h, id);
      expect(chain[0]?.action).toBe("create");
      expect(chain[0]?.parent_event_id).toBeNull();
      for (let i = 1; i < chain.length; i++) expect(chain[i]?.parent_event_id).toBe(chain[i - 1]?.event_id);
      for (let i = 1; i < chain.length; i++) expect(chain[i]?.old_json).toBe(chain[i - 1]?.new_json);
      const row = await mustRow(h, id);
      expect(row.last_event_id).toBe(chain.at(-1)?.event_id);
      expect(JSON.parse(chain.at(-1)?.new_json ?? "{}")).toEqual(taskView(row));
    }
    // The other profile has its own clock, starting at 1.
    expect((await profileEvents(h, "mixed-other")).map((e) => e.clock)).toEqual([1]);
  });

  it("id-addressed writes answer missing and foreign identically, byte for byte", async () => {
    const p = uniq();
    const q = uniq();
    const a = await h.as({ principal: "alice", grants: [p] });
    const b = await h.as({ principal: "bob", grants: [q] });
    const foreign = await mk(b, { title: "foreign", project: q });
    const calls: [string, Record<string, unknown>][] = [
      ["update_task", { title: "x" }],
      ["update_task", { status: "done" }],
      ["assign_task", { assignee: "x" }],
      ["assign_task", {}],
    ];
    for (const [tool, extra] of calls) {
      const rf = await expectUnchanged(h, () => a.call(tool, { task_id: foreign, ...extra }));
      const rm = await expectUnchanged(h, () => a.call(tool, { task_id: MISSING_ID, ...extra }));
      expect(rf).toEqual(rm);
      expect(JSON.stringify(rf)).toBe(JSON.stringify(rm));
      expect(rf.structuredContent).toEqual(NOT_FOUND);
    }
  });

  it("the profile is a hard boundary for every write tool", async () => {
    const p = uniq();
    const home = await h.as({ principal: "alice", grants: [p, ""], profile: "home" });
    const away = await h.as({ principal: "alice", grants: [p, ""], profile: "away" });
    const id = await mk(home, { title: "home task", project: p, due_date: "2026-01-01", priority: "low" });
    const done = await mk(home, { title: "home done", project: p });
    await ok(home, "update_task", { task_id: done, status: "done" });
    await poke(h, done, { updated_at: "2026-01-01T00:00:00.000Z" });
    const note = await ok(home, "upsert_note_by_title_project", { title: "Home Note", project: p, notes: "home" });
    await expectUnchanged(h, async () => {
      expect((await away.call("update_task", { task_id: id, title: "x" })).structuredContent).toEqual(NOT_FOUND);
      expect((await away.call("assign_task", { task_id: id, assignee: "x" })).structuredContent).toEqual(NOT_FOUND);
      expect(await ok(away, "archive_done_tasks", {})).toEqual({ archived: 0, threshold_days: 7 });
      expect(await ok(away, "bump_overdue_priority", {})).toEqual({ bumped: 0, target_priority: "high" });
      expect((await away.call("create_task_or_note", { title: "c", parent_id: id })).structuredContent).toEqual(
        NOT_FOUND,
      );
    });
    const awayNote = await ok(away, "upsert_note_by_title_project", { title: "Home Note", project: p, notes: "away" });
    expect(awayNote.action).toBe("created");
    expect(awayNote.task_id).not.toBe(note.task_id);
    expect((await mustRow(h, note.task_id as string)).notes).toBe("home");
  });
});

import { DIALECTS } from "kernel/store/testing.ts";
import { type KyselyPlugin, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findByTitle, LOOKUP_SCAN_CAP } from "../../src/domains/tasks/service/find.ts";
import { queryTasks } from "../../src/domains/tasks/service/query.ts";
import { DEFAULT_ORDER } from "../../src/domains/tasks/store/sql.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { bulkInsert, freshProfile, TODAY } from "../support/tasks-read.ts";

/**
 * How query_tasks reads a page (read.ts): a count, then either a walk of shampoo_tasks_order
 * (1000 matches or more) or the matching rows sorted (fewer). Both must give exactly the
 * documented order; the fixture is large enough to take both paths, on both engines.
 */

const RANK: Record<string, number> = { critical: 3, high: 2, medium: 1, low: 0 };
const PRIORITIES = ["low", "medium", "high", "critical"];
const SECTIONS = ["inbox", "today", "next", "someday", "waiting"];
const STATUSES = ["not_started", "in_progress", "done", "archived", "cancelled"];

interface Row {
  id: string;
  project: string | null;
  priority: string;
  section: string;
  status: string;
  due_date: string | null;
  created_at: string;
}

/** The documented default order: priority rank, due date (empty last), created_at, id. */
function byDefaultOrder(a: Row, b: Row): number {
  const cmp = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
  return (
    (RANK[b.priority] ?? 0) - (RANK[a.priority] ?? 0) ||
    Number(a.due_date === null) - Number(b.due_date === null) ||
    cmp(a.due_date ?? "", b.due_date ?? "") ||
    cmp(a.created_at, b.created_at) ||
    cmp(a.id, b.id)
  );
}

describe.each(DIALECTS)("query_tasks page strategies on %s", (dialect) => {
  let h: Harness;
  let all: Agent;
  let some: Agent;
  let rows: Row[];

  beforeAll(async () => {
    h = await harness(dialect);
    const profile = freshProfile("plan");
    all = await h.as({ principal: "all", grants: ["*", ""], profile });
    some = await h.as({ principal: "some", grants: ["p1", ""], profile });
    // 4000 rows (1600 live); created_at collides in pairs so the id tie-break decides.
    const specs = Array.from({ length: 4000 }, (_, i) => ({
      title: `row ${i}`,
      project: i % 7 === 0 ? null : `p${i % 5}`,
      priority: PRIORITIES[(i * 7) % 4] as string,
      section: SECTIONS[(i * 3) % 5] as string,
      status: STATUSES[(i * 11) % 5] as string,
      due_date:
        i % 3 === 0 ? null : `2026-${String(10 + (i % 3)).padStart(2, "0")}-${String(1 + (i % 28)).padStart(2, "0")}`,
      created_at: new Date(Date.parse("2026-06-01T00:00:00.000Z") + Math.floor(i / 2) * 60_000).toISOString(),
    }));
    const ids: string[] = [];
    for (let i = 0; i < specs.length; i += 400) ids.push(...(await bulkInsert(h, profile, specs.slice(i, i + 400))));
    rows = specs.map((s, i) => ({ ...s, id: ids[i] as string }));
  });
  afterAll(async () => {
    await h.close();
  });

  const live = (r: Row) => r.status === "not_started" || r.status === "in_progress";
  const shapes: Array<{ name: string; args: Record<string, unknown>; keep(r: Row): boolean; who?: "some" }> = [
    { name: "no filter", args: {}, keep: live },
    { name: "section", args: { section: "today" }, keep: (r) => live(r) && r.section === "today" },
    { name: "project", args: { project: "p2" }, keep: (r) => live(r) && r.project === "p2" },
    { name: "priority", args: { priority: "low" }, keep: (r) => live(r) && r.priority === "low" },
    {
      name: "overdue",
      args: { overdue_only: true },
      keep: (r) => live(r) && r.due_date !== null && r.due_date < TODAY,
    },
    {
      name: "critical + overdue",
      args: { priority: "critical", overdue_only: true },
      keep: (r) => live(r) && r.priority === "critical" && r.due_date !== null && r.due_date < TODAY,
    },
    { name: "include_completed", args: { include_completed: true }, keep: () => true },
    {
      name: "named grants",
      args: {},
      keep: (r) => live(r) && (r.project === "p1" || r.project === null),
      who: "some",
    },
  ];

  for (const shape of shapes) {
    it(`${shape.name}: pages follow the default order, total counts every match`, async () => {
      const expected = rows.filter(shape.keep).sort(byDefaultOrder);
      const agent = shape.who === "some" ? some : all;
      for (const [offset, limit] of [
        [0, 50],
        [37, 200],
        [expected.length - 5, 20],
      ] as const) {
        const r = await agent.sc("query_tasks", { ...shape.args, offset: Math.max(0, offset), limit });
        const want = expected.slice(Math.max(0, offset), Math.max(0, offset) + limit).map((t) => t.id);
        expect(r.total).toBe(expected.length);
        expect((r.tasks as Array<{ id: string }>).map((t) => t.id)).toEqual(want);
      }
    });
  }

  // sort_by due_date (soonest first, empty last, then the default order): walked on
  // shampoo_tasks_due_order from 1000 matches on, sorted below that.
  const byDueDate = (a: Row, b: Row) =>
    Number(a.due_date === null) - Number(b.due_date === null) ||
    (a.due_date ?? "").localeCompare(b.due_date ?? "") ||
    byDefaultOrder(a, b);
  for (const shape of shapes) {
    it(`${shape.name}, sorted by due date: pages follow that order`, async () => {
      const expected = rows.filter(shape.keep).sort(byDueDate);
      const agent = shape.who === "some" ? some : all;
      for (const [offset, limit] of [
        [0, 50],
        [511, 20],
        [expected.length - 5, 20],
      ] as const) {
        const args = { ...shape.args, sort_by: "due_date", offset: Math.max(0, offset), limit };
        const r = await agent.sc("query_tasks", args);
        expect(r.total).toBe(expected.length);
        const want = expected.slice(Math.max(0, offset), Math.max(0, offset) + limit).map((t) => t.id);
        expect((r.tasks as Array<{ id: string }>).map((t) => t.id)).toEqual(want);
      }
    });
  }

  it("the order index follows update_task: a raised priority moves the task in the walked order", async () => {
    const before = rows.filter(live).sort(byDefaultOrder);
    const last = before[before.length - 1] as Row;
    const r = await all.call("update_task", { task_id: last.id, priority: "critical" });
    expect(r.isError).toBeFalsy();
    last.priority = "critical";
    const expected = rows.filter(live).sort(byDefaultOrder);
    expect(expected.length).toBeGreaterThanOrEqual(1000); // the walk of shampoo_tasks_order
    const at = expected.findIndex((t) => t.id === last.id);
    expect(at).toBeLessThan(before.length - 1);
    const offset = Math.max(0, at - 10);
    const page = await all.sc("query_tasks", { offset, limit: 20 });
    const ids = (page.tasks as Array<{ id: string }>).map((t) => t.id);
    expect(ids).toEqual(expected.slice(offset, offset + 20).map((t) => t.id));
    expect(ids).toContain(last.id);
  });

  it("offset past the end: the empty shape with the whole total", async () => {
    const total = rows.filter(live).length;
    const r = await all.sc("query_tasks", { offset: total });
    expect(r).toEqual({ tasks: [], count: 0, total, offset: total, limit: 50, message: "No tasks match" });
  });

  // An engine-specific plan check: defined for SQLite only (not a skipped test on PostgreSQL).
  if (dialect === "sqlite")
    it("SQLite reads the default order from shampoo_tasks_order (no sort)", async () => {
      const q = sql<{ detail: string }>`EXPLAIN QUERY PLAN SELECT shampoo_tasks.id FROM shampoo_tasks
      WHERE shampoo_tasks.profile = ${"x"} AND shampoo_tasks.status IN ('not_started', 'in_progress')
      ORDER BY ${sql.join(DEFAULT_ORDER)} LIMIT 50`;
      const plan = (await q.execute(h.db.db)).rows.map((r) => r.detail).join("\n");
      expect(plan).toContain("shampoo_tasks_order");
      expect(plan).not.toContain("TEMP B-TREE");
    });

  /**
   * A call context whose statements are recorded (compiled SQL), and the SQLite plan of one of
   * them with its parameters replaced by `value`.
   */
  function recorded(tool: string) {
    const captured: string[] = [];
    const recorder: KyselyPlugin = {
      transformQuery: (x) => {
        captured.push(h.db.db.getExecutor().compileQuery(x.node, x.queryId).sql);
        return x.node;
      },
      transformResult: async (x) => x.result,
    };
    const db = h.db.db.withPlugin(recorder);
    // Reads run through Database.read: its transaction records too.
    const read: typeof h.db.read = (fn) => h.db.read((trx) => fn(trx.withPlugin(recorder)));
    const ctx = {
      caller: all.caller,
      source: { tool, session: "plan" },
      clock: h.clock,
      database: { ...h.db, db, read },
    };
    const planOf = async (statement: string, value: string) =>
      (
        await sql<{ detail: string }>`EXPLAIN QUERY PLAN ${sql.raw(statement.replaceAll("?", value))}`.execute(h.db.db)
      ).rows
        .map((r) => r.detail)
        .join("\n");
    return { ctx, captured, planOf };
  }

  if (dialect === "sqlite")
    it("SQLite walks shampoo_tasks_due_order for a large match sorted by due date", async () => {
      const { ctx, captured, planOf } = recorded("query_tasks");
      await queryTasks(ctx, { sort_by: "due_date", limit: 20 });
      expect(await planOf(captured[captured.length - 1] as string, "1")).toContain("shampoo_tasks_due_order");
    });

  if (dialect === "sqlite")
    it("SQLite walks shampoo_tasks_lookup_scan for find_by_title's full-scan fallback (no sort of the profile)", async () => {
      const { ctx, captured, planOf } = recorded("find_by_title");
      const r = await findByTitle(ctx, { title_fragment: "qqqxv zzzyw" });
      expect(r.lookup_strategy).toBe("full_scan_fallback");
      const scan = captured.find((q) => q.includes("updated_at DESC") && !q.includes("fts"));
      expect(scan).toBeDefined();
      const plan = await planOf(scan as string, String(LOOKUP_SCAN_CAP));
      expect(plan).toContain("shampoo_tasks_lookup_scan");
      expect(plan).not.toContain("TEMP B-TREE");
    });
});

import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ShampooCtx } from "../../src/context.ts";
import type { TaskRow } from "../../src/domains/tasks/schema.ts";
import { readyContextWith, readyTopOnly } from "../../src/domains/tasks/service/ready.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { bulkInsert, freshProfile, NOW } from "../support/tasks-read.ts";

/**
 * ready_context mode ready answers from the top of the list (read.ts readyTop: due-date bands
 * over migration 008's indexes) instead of scoring the whole window. Both strategies must give
 * the same bytes: compared here on windows smaller and larger than the fixture, for several
 * scopes, limits, days and after every write tool.
 */

const PRIORITIES = ["low", "medium", "high", "critical"];
const SECTIONS = ["inbox", "today", "next", "someday", "waiting"];
const STATUSES = ["not_started", "in_progress", "not_started", "done", "not_started", "cancelled", "archived"];
const PROJECTS = ["a", "b", null, "c"];
const DAY = 86_400_000;
const day = (offset: number) => new Date(Date.parse(NOW) + offset * DAY).toISOString().slice(0, 10);

/** 900 rows: every state, due dates around today, subtasks of live, finished and hidden parents, created_at ties. */
function fixture(): (Partial<TaskRow> & { title: string })[] {
  const rows: (Partial<TaskRow> & { title: string })[] = [];
  for (let i = 0; i < 900; i++) {
    const dueOffset = (i * 7) % 41;
    rows.push({
      title: `row ${i}`,
      project: PROJECTS[(i * 5) % 4] as string | null,
      type: i % 9 === 0 ? "note" : "task",
      status: STATUSES[(i * 3) % 7] as string,
      priority: PRIORITIES[(i * 11) % 4] as string,
      section: SECTIONS[(i * 13) % 5] as string,
      due_date: dueOffset < 14 ? null : day(dueOffset - 30),
      reminder_at: i % 17 === 0 ? `${day((i % 5) - 2)}T09:00:00` : null,
      created_at: new Date(Date.parse("2026-09-01T00:00:00.000Z") + Math.floor(i / 3) * 60_000).toISOString(),
      updated_at: new Date(Date.parse("2026-09-01T00:00:00.000Z") + ((i * 37) % 90) * DAY).toISOString(),
    });
  }
  return rows;
}

describe.each(DIALECTS)("ready_context top of the list on %s", (dialect) => {
  let h: Harness;
  let profile: string;
  const agents: Record<string, Agent> = {};

  beforeAll(async () => {
    h = await harness(dialect);
    profile = freshProfile("top");
    agents.all = await h.as({ principal: "all", grants: ["*", ""], profile });
    agents.some = await h.as({ principal: "some", grants: ["a", ""], profile });
    agents.star = await h.as({ principal: "star", grants: ["*"], profile });
    const rows = fixture();
    const ids: string[] = [];
    for (let i = 0; i < rows.length; i += 100) {
      // A third of the rows are subtasks of earlier rows of any status, project and type.
      const chunk = rows.slice(i, i + 100).map((r, j) => {
        const n = i + j;
        return n % 3 === 0 && ids.length > 0
          ? { ...r, parent_id: ids[((n * 2654435761) >>> 0) % ids.length] as string }
          : r;
      });
      ids.push(...(await bulkInsert(h, profile, chunk)));
    }
  }, 120_000);
  afterAll(async () => {
    await h.close();
  });

  const ctxOf = (who: string): ShampooCtx => ({
    caller: (agents[who] as Agent).caller,
    source: { tool: "ready_context", session: `test-${who}` },
    clock: h.clock,
    database: h.db,
  });

  /** Both strategies on one call; counts the calls the top of the list answered. */
  async function same(who: string, args: Record<string, unknown>, cap: number): Promise<boolean> {
    const ctx = ctxOf(who);
    const full = await readyContextWith(ctx, args, cap, false);
    const top = await readyTopOnly(ctx, args, cap);
    if (top !== undefined)
      expect(JSON.stringify(top), `${who} ${JSON.stringify(args)} cap ${cap}`).toBe(JSON.stringify(full));
    expect(JSON.stringify(await readyContextWith(ctx, args, cap, true))).toBe(JSON.stringify(full));
    return top !== undefined;
  }

  it("gives the bytes of the whole window's scoring, for every scope, window, limit and day", async () => {
    let answered = 0;
    let calls = 0;
    for (const offset of [0, 3, -8]) {
      h.clock.set(Date.parse(NOW) + offset * DAY);
      for (const who of ["all", "some", "star"]) {
        for (const cap of [25, 140, 5000]) {
          for (const limit of [1, 7, 12, 40]) {
            for (const include_readings of [false, true]) {
              calls++;
              if (await same(who, { mode: "ready", limit, include_readings }, cap)) answered++;
            }
          }
        }
      }
    }
    h.clock.set(NOW);
    // Most calls take the top of the list (the others: fewer ready_now rows than the limit).
    expect(answered).toBeGreaterThan(calls / 2);
  }, 120_000);

  it("is what the tool answers (window 5000)", async () => {
    for (const who of ["all", "some"]) {
      const args = { mode: "ready", limit: 9 };
      const top = await readyTopOnly(ctxOf(who), args, 5000);
      expect(top).toBeDefined();
      expect(await (agents[who] as Agent).sc("ready_context", args)).toEqual(top);
    }
  });

  it("stays the same after every write tool (create, update incl. CLEAR, assign, upsert, archive, bump)", async () => {
    const w = await h.as({ principal: "writer", grants: ["*", ""], profile });
    const check = async () => {
      for (const who of ["all", "some"])
        for (const cap of [25, 5000]) for (const limit of [3, 12]) await same(who, { mode: "ready", limit }, cap);
      expect(await readyTopOnly(ctxOf("all"), { mode: "ready", limit: 3 }, 5000)).toBeDefined();
    };
    const made = (await w.sc("create_task_or_note", {
      title: "hot new",
      project: "a",
      priority: "critical",
      section: "today",
      due_date: day(-12),
    })) as { task_id: string };
    await check();
    const kid = (await w.sc("create_task_or_note", {
      title: "its part",
      project: "a",
      priority: "critical",
      parent_id: made.task_id,
    })) as { task_id: string };
    await check();
    await w.sc("update_task", { task_id: made.task_id, status: "in_progress", due_date: day(-2) });
    await check();
    await w.sc("update_task", { task_id: made.task_id, due_date: "CLEAR", project: "CLEAR" });
    await check();
    await w.sc("update_task", { task_id: kid.task_id, parent_id: "CLEAR", section: "waiting" });
    await check();
    await w.sc("update_task", { task_id: made.task_id, status: "done" });
    await check();
    await w.sc("update_task", { task_id: kid.task_id, parent_id: made.task_id, section: "today" });
    await check();
    await w.sc("assign_task", { task_id: kid.task_id, assignee: "bob" });
    await check();
    await w.sc("upsert_note_by_title_project", { title: "hot note", project: "a", priority: "critical" });
    await check();
    await w.sc("upsert_note_by_title_project", { title: "hot note", project: "a", priority: "low" });
    await check();
    h.clock.set(Date.parse(NOW) + 30 * DAY);
    expect(
      ((await w.sc("archive_done_tasks", { older_than_days: 0 })) as { archived: number }).archived,
    ).toBeGreaterThan(0);
    h.clock.set(NOW);
    await check();
    expect(
      ((await w.sc("bump_overdue_priority", { target_priority: "critical" })) as { bumped: number }).bumped,
    ).toBeGreaterThan(0);
    await check();
  }, 120_000);
});

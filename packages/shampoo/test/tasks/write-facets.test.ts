import { DIALECTS } from "kernel/store/testing.ts";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FACET_COLUMNS } from "../../src/domains/tasks/schema.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import { expectLiveIndex, freshProfile, NOW } from "../support/tasks-read.ts";

/**
 * Full text filters and orders its matches on SQLite through shampoo_tasks_facets (migration
 * 008: a narrow copy of the task's columns, kept by triggers), and find_by_title's title stages
 * walk shampoo_tasks_title_fts (009, kept by triggers); live full text reads
 * shampoo_tasks_live_fts (010, kept by triggers). After every write tool, searches see the new
 * values at once on both engines, and on SQLite the copy equals the table, the title index passes
 * FTS5's integrity check against it, and the live index holds exactly the live rows.
 */

const DAY = 86_400_000;

describe.each(DIALECTS)("full text after every write tool on %s", (dialect) => {
  let h: Harness;
  let w: Agent;

  beforeAll(async () => {
    h = await harness(dialect);
    w = await h.as({ principal: "writer", grants: ["*", ""], profile: freshProfile("facet") });
  });
  afterAll(async () => {
    await h.close();
  });

  /** The task as a search for `word` lists it (status included, so finished content too). */
  async function found(word: string, id: string): Promise<Record<string, unknown> | undefined> {
    const r = await w.sc("query_tasks", { search: word, include_completed: true, limit: 200 });
    return (r.tasks as Array<Record<string, unknown>> | undefined)?.find((t) => t.id === id);
  }

  async function copyMatches(): Promise<void> {
    if (dialect !== "sqlite") return;
    const cols = FACET_COLUMNS.join(", ");
    const table = await sql.raw(`SELECT rowid AS rid, ${cols} FROM shampoo_tasks ORDER BY rowid`).execute(h.db.db);
    const copy = await sql.raw(`SELECT rid, ${cols} FROM shampoo_tasks_facets ORDER BY rid`).execute(h.db.db);
    expect(copy.rows).toEqual(table.rows);
    // The title-only index (009) against its content table, the task titles: FTS5 throws
    // "database disk image is malformed" on any difference.
    await sql`INSERT INTO shampoo_tasks_title_fts(shampoo_tasks_title_fts, rank) VALUES ('integrity-check', 1)`.execute(
      h.db.db,
    );
    // The live index (010): exactly the live rows, under their scope keys, with their words.
    await expectLiveIndex(h);
  }

  it("create, update (incl. CLEAR), assign, upsert, archive and bump are seen by the next search", async () => {
    const made = (await w.sc("create_task_or_note", {
      title: "zorblax first",
      project: "p1",
      priority: "low",
      due_date: "2026-11-01",
    })) as { task_id: string };
    const id = made.task_id;
    expect(await found("zorblax", id)).toMatchObject({ project: "p1", priority: "low", status: "not_started" });
    await copyMatches();

    await w.sc("update_task", { task_id: id, status: "in_progress", section: "today", title: "zorblax second" });
    expect(await found("zorblax", id)).toMatchObject({
      status: "in_progress",
      section: "today",
      title: "zorblax second",
    });
    await copyMatches();

    await w.sc("update_task", { task_id: id, project: "CLEAR", due_date: "CLEAR" });
    expect(await found("zorblax", id)).toMatchObject({ project: null, due_date: null });
    await copyMatches();

    const parent = (await w.sc("create_task_or_note", { title: "zorblax parent" })) as { task_id: string };
    await w.sc("update_task", { task_id: id, parent_id: parent.task_id, due_date: "2026-11-02" });
    expect(await found("zorblax", id)).toMatchObject({ parent_id: parent.task_id, due_date: "2026-11-02" });
    await copyMatches();

    await w.sc("assign_task", { task_id: id, assignee: "bob" });
    expect(await found("zorblax", id)).toMatchObject({ assignee: "bob" });
    await copyMatches();

    await w.sc("upsert_note_by_title_project", { title: "zorblax note", project: "p2", priority: "high" });
    const note = (await w.sc("upsert_note_by_title_project", {
      title: "zorblax note",
      project: "p2",
      priority: "critical",
    })) as { task_id: string; action: string };
    expect(note.action).toBe("updated");
    expect(await found("zorblax", note.task_id)).toMatchObject({ type: "note", priority: "critical" });
    await copyMatches();

    expect(((await w.sc("bump_overdue_priority", { target_priority: "critical" })) as { bumped: number }).bumped).toBe(
      1,
    );
    expect(await found("zorblax", id)).toMatchObject({ priority: "critical" });
    await copyMatches();

    await w.sc("update_task", { task_id: id, status: "done" });
    h.clock.set(Date.parse(NOW) + 10 * DAY);
    expect(((await w.sc("archive_done_tasks", {})) as { archived: number }).archived).toBe(1);
    h.clock.set(NOW);
    expect(await found("zorblax", id)).toMatchObject({ status: "archived" });
    // Live content only: archived is out of the default view and of find_by_title's live ranks.
    const live = await w.sc("query_tasks", { search: "zorblax" });
    expect((live.tasks as Array<{ id: string }>).map((t) => t.id)).not.toContain(id);
    const lookup = await w.sc("find_by_title", { title_fragment: "zorblax second" });
    expect((lookup.matches as Array<{ id: string; status: string }>)[0]).toMatchObject({ id, status: "archived" });
    await copyMatches();
  });
});

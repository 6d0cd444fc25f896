import BetterSqlite3 from "better-sqlite3";
import { holdSqliteWriteLock } from "kernel/store/testing.ts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { flushAccessNotes } from "../src/domains/graph/store/access.ts";
import { type Agent, type Harness, harness } from "./support/shampoo.ts";

/**
 * SQLite: another process in the middle of a long write, a bulk `shampoo import` say, holds the
 * database's write lock. SHAMPOO's reads must neither wait for it nor fail: they answer from the
 * last committed state (kernel Database.read, a deferred transaction; before, every read began
 * IMMEDIATE, waited the 5 s busy timeout with the whole process blocked, then failed with an
 * internal error). The best-effort access notes of graph reads wait for the lock to go instead of
 * blocking the process. PostgreSQL's reads never took a lock, and are covered by the read tests.
 */
describe("reads while another process writes (SQLite)", () => {
  let h: Harness;
  let a: Agent;
  let taskId: string;
  let locker: BetterSqlite3.Database | undefined;

  beforeEach(async () => {
    h = await harness("sqlite");
    a = await h.as({ principal: "ada", grants: ["*", ""] });
    await a.sc("create_entities", {
      entities: [
        {
          name: "Acme Vendor",
          entityType: "company",
          observations: ["Acme renews the contract in March"],
          project: "ops",
        },
        { name: "March Renewal", entityType: "event", observations: ["the renewal is due"], project: "ops" },
      ],
    });
    await a.sc("create_relations", { relations: [{ from: "Acme Vendor", to: "March Renewal", relationType: "has" }] });
    taskId = String(
      (await a.sc("create_task_or_note", { title: "Renew the Acme Vendor contract", project: "ops" })).task_id,
    );
    await a.sc("link_task_entity", { task_id: taskId, entity_name: "Acme Vendor" });
    await a.sc("session_save", { summary: "renewal under way", project: "ops" });
    await flushAccessNotes(h.shampoo.database);
  });
  afterEach(async () => {
    if (locker?.inTransaction) locker.exec("ROLLBACK");
    locker?.close();
    locker = undefined;
    await h.close();
  });

  const READS: Array<[string, () => Record<string, unknown>]> = [
    ["search_nodes", () => ({ query: "acme renewal" })],
    ["open_nodes", () => ({ names: ["Acme Vendor", "March Renewal"] })],
    ["read_graph", () => ({})],
    ["search_by_project", () => ({ query: "renew", project: "ops" })],
    ["query_tasks", () => ({})],
    ["find_by_title", () => ({ title_fragment: "acme contract" })],
    ["ready_context", () => ({})],
    ["task_digest", () => ({})],
    ["get_task_links", () => ({ task_id: taskId })],
    ["get_entity_tasks", () => ({ entity_name: "Acme Vendor" })],
    ["suggest_task_links", () => ({ task_id: taskId })],
    ["session_recall", () => ({})],
  ];

  it("every read answers from the committed state while the write lock is held elsewhere", async () => {
    const before = new Map<string, unknown>();
    for (const [tool, args] of READS) {
      const r = await a.call(tool, args());
      expect(r.isError, `${tool}: ${JSON.stringify(r.structuredContent)}`).toBeFalsy();
      before.set(tool, r.structuredContent);
    }
    locker = new BetterSqlite3(h.db.target);
    locker.exec("BEGIN IMMEDIATE");
    // Uncommitted work of the other process: never seen by a read.
    locker.prepare("UPDATE shampoo_tasks SET title = 'Not yet committed' WHERE id = ?").run(taskId);
    for (const [tool, args] of READS) {
      const r = await a.call(tool, args());
      expect(r.isError, `${tool}: ${JSON.stringify(r.structuredContent)}`).toBeFalsy();
      expect(r.structuredContent, tool).toEqual(before.get(tool));
    }
  });

  it("keeps the access notes while the lock is held elsewhere and writes them once it is gone", async () => {
    const notes = async () =>
      Number(
        (
          await h.db.db
            .selectFrom("shampoo_graph_access")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    const start = await notes();
    // The lock is held by a child process that lets go after a while: a flush that waited for
    // it (the busy timeout) would then succeed and write the notes while it was held.
    const { exited } = await holdSqliteWriteLock(h.db.target, 1500);
    await a.sc("search_nodes", { query: "acme" });
    await a.sc("open_nodes", { names: ["Acme Vendor"] });
    await flushAccessNotes(h.shampoo.database); // gives up at once: the lock is taken
    expect(await notes()).toBe(start);
    await exited;
    await flushAccessNotes(h.shampoo.database);
    expect(await notes()).toBe(start + 2);
  });
});

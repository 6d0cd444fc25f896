/**
 * The real binary over stdio, as an MCP host launches it (`shampoo serve`), driven by the SDK
 * client: every registered tool on SQLite and on PostgreSQL as the no-configuration local
 * principal, then --principal/--role/--grants scoping across processes sharing one database.
 */
import { join } from "node:path";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { type DialectName, openDatabase } from "kernel";
import { dropPgSchema, pgUrlWithSchema } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ShampooDB } from "../../src/store/schema.ts";
import { checkInvariants } from "../crash/invariants.ts";
import { callEveryTool, handoffSession, type StdioServer, startStdio, TOOL_NAMES, tempDir } from "./support.ts";

const NOT_FOUND = { error: "Task not found", error_type: "not_found" };

describe.each<DialectName>(["sqlite", "postgres"])("shampoo serve (stdio) on %s", (dialect) => {
  const tmp = tempDir(`stdio-${dialect}`);
  const schema = `e2e_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const target = dialect === "sqlite" ? join(tmp.dir, "s.db") : pgUrlWithSchema(schema);
  let server: StdioServer;

  beforeAll(async () => {
    // The local principal plus an explicit grant on the suite's project: star never originates
    // quorums, lanes or jobs (catalog), and the coordination examples do.
    server = await startStdio(["--db", target, "--data-dir", tmp.dir, "--grants", "*,,e2e-stdio"]);
  });

  afterAll(async () => {
    const gone = await server?.stop();
    if (dialect === "postgres") await dropPgSchema(schema);
    tmp.remove();
    expect(gone, "the server process is gone after stdin closes").toBe(true);
  });

  it("runs as the local principal, and says so on stderr", async () => {
    await expect
      .poll(() => server.log())
      .toMatch(/caller local \(conductor, profile default, grants: \* \(every named project\)/);
  });

  it("calls every registered tool successfully", async () => {
    const results = await callEveryTool(server.session, "e2e-stdio");
    expect([...results.keys()]).toEqual(TOOL_NAMES);
    expect(results.get("create_task_or_note")).toMatchObject({ status: "not_started", type: "task" });
  });

  it("runs a working session across calls: task, saves, resume, query", async () => {
    await handoffSession((tool, args) => server.session.sc(tool, args), "handoff-stdio");
  });

  it("leaves a history that satisfies every invariant", async () => {
    const db = await openDatabase<ShampooDB>(target);
    try {
      const report = await checkInvariants(db.db);
      expect(report.problems).toEqual([]);
      expect(report.tasks).toBeGreaterThanOrEqual(2);
      const sources = await db.db.selectFrom("shampoo_history").select(["source_json", "principal"]).execute();
      const tools = new Set(sources.map((s) => JSON.parse(s.source_json).tool));
      for (const t of ["create_task_or_note", "update_task", "assign_task"]) expect(tools).toContain(t);
      expect(new Set(sources.map((s) => s.principal))).toEqual(new Set(["local"]));
    } finally {
      await db.close();
    }
  });

  it("answers an unknown tool with JSON-RPC -32602, not a tool result", async () => {
    const err = await server.session.client.callTool({ name: "no_such_tool", arguments: {} }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(McpError);
    expect((err as McpError).code).toBe(ErrorCode.InvalidParams);
  });
});

describe("--principal/--role/--grants scope a stdio caller (three processes, one SQLite file)", () => {
  const tmp = tempDir("grants");
  const db = join(tmp.dir, "shared.db");
  const servers: StdioServer[] = [];
  let alphaTask: string;
  let untaggedTask: string;

  // Five processes on one file. The local one first: it creates and migrates the file (two
  // processes migrating a fresh SQLite file at once race: kernel's migration lock is a no-op on
  // SQLite). The other four start together (each start is mostly loading the server).
  let local: StdioServer;
  let bob: StdioServer;
  let carol: StdioServer;
  let dora: StdioServer;
  let eve: StdioServer;

  beforeAll(async () => {
    local = await startStdio(["--db", db]);
    const started = await Promise.all(
      [
        ["--principal", "bob", "--role", "agent", "--grants", "beta"],
        ["--principal", "carol", "--role", "agent", "--grants", "alpha"],
        // What a shell leaves of --grants beta,"" is "beta,": the trailing empty item is the enclave.
        ["--principal", "dora", "--role", "agent", "--grants", "beta,"],
        ["--principal", "eve", "--profile", "elsewhere"],
      ].map((flags) => startStdio(["--db", db, ...flags])),
    );
    servers.push(local, ...started);
    [bob, carol, dora, eve] = started as [StdioServer, StdioServer, StdioServer, StdioServer];
    alphaTask = (await local.session.sc("create_task_or_note", { title: "alpha plan", project: "alpha" }))
      .task_id as string;
    untaggedTask = (await local.session.sc("create_task_or_note", { title: "private note", type: "note" }))
      .task_id as string;
  });

  afterAll(async () => {
    for (const s of servers) await s.stop();
    tmp.remove();
  });

  it("without any configuration runs as the local principal: every named project and the enclave", async () => {
    await expect
      .poll(() => local.log())
      .toContain('caller local (conductor, profile default, grants: * (every named project), "" (untagged))');
  });

  it('a principal without the grant gets "Task not found", the same bytes as a missing task', async () => {
    await expect.poll(() => bob.log()).toContain("caller bob (agent, profile default, grants: beta)");
    for (const id of [alphaTask, untaggedTask, "00000000-0000-4000-8000-000000000000"]) {
      const r = await bob.session.call("update_task", { task_id: id, title: "mine now" });
      expect(r.isError).toBe(true);
      expect(r.structuredContent).toEqual(NOT_FOUND);
      expect(await bob.session.sc("assign_task", { task_id: id, assignee: "bob" })).toEqual(NOT_FOUND);
    }
    // Nor can bob write into a project he lacks.
    const denied = await bob.session.call("create_task_or_note", { title: "x", project: "alpha" });
    expect(denied.isError).toBe(true);
    expect(denied.structuredContent).toMatchObject({ error_type: "scope" });
  });

  it('the grant opens exactly its project; "" (an empty item) opens the untagged enclave', async () => {
    expect(await carol.session.sc("update_task", { task_id: alphaTask, section: "today" })).toMatchObject({
      updated: alphaTask,
    });
    expect(await carol.session.sc("update_task", { task_id: untaggedTask, section: "today" })).toEqual(NOT_FOUND);

    await expect.poll(() => dora.log()).toContain('grants: beta, "" (untagged)');
    expect(await dora.session.sc("update_task", { task_id: untaggedTask, notes: "seen" })).toMatchObject({
      updated: untaggedTask,
    });
    expect(await dora.session.sc("update_task", { task_id: alphaTask, notes: "seen" })).toEqual(NOT_FOUND);
  });

  it("another --profile sees nothing of profile default, even with every grant", async () => {
    expect(await eve.session.sc("update_task", { task_id: alphaTask, title: "x" })).toEqual(NOT_FOUND);
    expect(await eve.session.sc("update_task", { task_id: untaggedTask, title: "x" })).toEqual(NOT_FOUND);
  });

  it("records who wrote: the history names each principal", async () => {
    const d = await openDatabase<ShampooDB>(db);
    try {
      const rows = await d.db.selectFrom("shampoo_history").select(["principal", "action"]).orderBy("seq").execute();
      expect(rows.map((r) => r.principal)).toEqual(["local", "local", "carol", "dora"]);
      expect((await checkInvariants(d.db)).problems).toEqual([]);
    } finally {
      await d.close();
    }
  });
});

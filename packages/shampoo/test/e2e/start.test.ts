/**
 * `npm start` (scripts/start.mjs): both products over Streamable HTTP as child processes, both
 * endpoints printed, SHAMPOO behind a generated local bearer token, signals forwarded, and the
 * whole thing down when either server dies.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { MODULES } from "../../src/modules.ts";
import { parseProfile } from "../../src/platform/profiles.ts";
import { DEFAULT_TOOLSETS } from "../../src/platform/toolsets.ts";
import { connectHttp, ROOT, TOOL_NAMES, tempDir } from "./support.ts";

const SUMMARY = /Both servers are up[\s\S]*?ScoreIA Open Chamber\s+(http:\S+)[\s\S]*?SHAMPOO\s+(http:\S+)/;

interface Started {
  child: ChildProcess;
  scoreia: string;
  shampoo: string;
  dataDir: string;
  out(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function start(): Promise<Started> {
  const tmp = tempDir("start");
  cleanups.push(tmp.remove);
  const child = spawn(process.execPath, [join(ROOT, "scripts/start.mjs")], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
    env: {
      ...process.env,
      SCOREIA_PORT: "0",
      SHAMPOO_PORT: "0",
      SCOREIA_DATA_DIR: join(tmp.dir, "scoreia"),
      SHAMPOO_DATA_DIR: join(tmp.dir, "shampoo"),
    },
  });
  cleanups.push(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  });
  let out = "";
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString("utf8");
  });
  child.stderr?.on("data", (c: Buffer) => {
    out += c.toString("utf8");
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.once("exit", (code, signal) => res({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no summary within 30 s:\n${out}`)), 30_000);
    child.stdout?.on("data", () => {
      const m = SUMMARY.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          child,
          scoreia: m[1] as string,
          shampoo: m[2] as string,
          dataDir: tmp.dir,
          out: () => out,
          exited,
        });
      }
    });
    void exited.then(() => reject(new Error(`npm start exited early:\n${out}`)));
  });
}

/** The server processes start.mjs runs (its direct children). */
function children(pid: number): Array<{ pid: number; args: string }> {
  try {
    return execFileSync("ps", ["-o", "pid=,args=", "--ppid", String(pid)], { encoding: "utf8" })
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => {
        const m = /^\s*(\d+)\s+(.*)$/.exec(l) as RegExpExecArray;
        return { pid: Number(m[1]), args: m[2] as string };
      });
  } catch {
    return []; // ps exits 1 when there are none
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("npm start (scripts/start.mjs)", () => {
  it("serves both products, SHAMPOO behind a generated local token; SIGTERM stops both", async () => {
    const s = await start();
    const kids = children(s.child.pid as number);
    expect(kids.map((k) => k.args).join("\n")).toMatch(/scoreia\.mjs serve --http[\s\S]*shampoo\.mjs serve --http/);

    // The generated config: one local principal, mode 0600, its token printed as the header to use.
    const configFile = join(s.dataDir, "shampoo", "local-http.json");
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    const token = JSON.parse(readFileSync(configFile, "utf8")).principals[0].token as string;
    expect(s.out()).toContain(`"Authorization": "Bearer ${token}"`);

    const chamber = new Client({ name: "start-e2e", version: "1" });
    await chamber.connect(new StreamableHTTPClientTransport(new URL(s.scoreia)));
    expect((await chamber.listTools()).tools.map((t) => t.name)).toContain("enter_open_challenge");
    await chamber.close();

    await expect(connectHttp(s.shampoo)).rejects.toThrow(/401|Unauthorized/);
    // The default toolsets, as any host gets them; ?toolsets=all in the URL lists every tool.
    const everyday = parseProfile([...DEFAULT_TOOLSETS], MODULES);
    const memory = await connectHttp(s.shampoo, token);
    expect(memory.tools.map((t) => t.name)).toEqual([
      "list_toolsets",
      "enable_toolset",
      ...TOOL_NAMES.filter((n) => everyday.has(n)),
    ]);
    const all = await connectHttp(`${s.shampoo}?toolsets=all`, token);
    expect(all.tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    await all.close();
    expect(await memory.sc("create_task_or_note", { title: "via npm start" })).toMatchObject({ status: "not_started" });
    await memory.close();

    s.child.kill("SIGTERM");
    expect(await s.exited).toEqual({ code: 0, signal: null });
    for (const k of kids) expect(alive(k.pid), k.args).toBe(false);
  });

  it("exits, stopping the other server, when either one dies", async () => {
    const s = await start();
    const kids = children(s.child.pid as number);
    const shampoo = kids.find((k) => k.args.includes("shampoo.mjs")) as { pid: number };
    process.kill(shampoo.pid, "SIGKILL");
    const { code } = await s.exited;
    expect(code).not.toBe(0);
    expect(s.out()).toContain("shampoo exited (SIGKILL); stopping the other server");
    for (const k of kids) expect(alive(k.pid)).toBe(false);
  });
});

import { existsSync } from "node:fs";
import type { SessionInfo, ToolOutput } from "kernel";
import type { ShampooCtx } from "../../context.ts";
import type { DoctorReport } from "./model.ts";
import { DOCTOR_EXIT } from "./rules.ts";

/**
 * `shampoo doctor`: the same report the doctor tool answers, called through the same registry
 * (cli.ts opens the database WITHOUT migrating it and wires the server, then hands it here).
 * Exit codes (rules.ts DOCTOR_EXIT): 0 ok, 3 warn, 4 unknown, 1 fail or the database cannot be
 * opened, 2 a usage error.
 */
export interface DoctorServer {
  registry: { call(name: string, args: unknown, ctx: ShampooCtx): Promise<ToolOutput> };
  mcp: { context(session: SessionInfo): ShampooCtx };
  close(): Promise<void>;
}

export interface DoctorCommand {
  /** The --db target: a SQLite file (must exist: the doctor creates nothing) or a postgres:// URL. */
  db: string;
  sections?: string | undefined;
  detail?: string | undefined;
  json: boolean;
  open(): Promise<DoctorServer>;
  out(text: string): void;
  err(text: string): void;
}

const CLI_SESSION: SessionInfo = {
  sessionId: "cli-doctor",
  transport: "stdio",
  clientInfo: () => undefined,
  log: async () => {},
};

export async function doctorCommand(cmd: DoctorCommand): Promise<number> {
  if (cmd.detail !== undefined && cmd.detail !== "summary" && cmd.detail !== "full") {
    cmd.err(`shampoo doctor: --detail is summary or full, got ${cmd.detail}\n`);
    return 2;
  }
  if (!/^postgres(ql)?:\/\//.test(cmd.db) && !existsSync(cmd.db)) {
    cmd.err(`shampoo doctor: no database at ${cmd.db} (the doctor creates nothing)\n`);
    return DOCTOR_EXIT.fail;
  }
  let server: DoctorServer;
  try {
    server = await cmd.open();
  } catch (e) {
    cmd.err(`shampoo doctor: cannot open the database: ${(e as Error).message}\n`);
    return DOCTOR_EXIT.fail;
  }
  try {
    const args = {
      ...(cmd.sections !== undefined ? { sections: cmd.sections } : {}),
      ...(cmd.detail !== undefined ? { detail: cmd.detail } : {}),
    };
    const answer = await server.registry.call("doctor", args, server.mcp.context(CLI_SESSION));
    const sc = answer.structuredContent as Record<string, unknown>;
    if (answer.isError) {
      cmd.err(`shampoo doctor: ${String(sc.error)}\n`);
      return DOCTOR_EXIT.fail;
    }
    const report = sc as unknown as DoctorReport;
    cmd.out(cmd.json ? `${JSON.stringify(report, null, 2)}\n` : renderReport(report));
    return DOCTOR_EXIT[report.status];
  } finally {
    await server.close();
  }
}

/** The report as lines for people: the verdict, then each section and its checks. */
export function renderReport(r: DoctorReport): string {
  const lines = [`SHAMPOO doctor: ${r.status.toUpperCase()}`];
  for (const s of r.sections) {
    lines.push(`${s.name}: ${s.status.toUpperCase()}`);
    for (const c of s.checks) {
      lines.push(`  ${c.status.padEnd(7)} ${c.id} (${c.severity}): ${c.summary}`);
      if (c.detail) for (const d of c.detail.split("\n")) lines.push(`          ${d}`);
    }
  }
  return `${lines.join("\n")}\n`;
}

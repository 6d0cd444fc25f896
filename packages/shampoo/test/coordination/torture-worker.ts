// One worker process of the lease torture (lease-torture.test.ts): claims jobs of the torture
// project with a short lease, "works" a few ms, completes with its fence, until nothing is left.
// Prints one line per outcome: `done <job> <fence>` (completion accepted), `refused <job> <fence>
// <error_type>` (a fenced-out or expired holder), nothing when a claim finds nothing (it tries again).
// argv: target principal project leaseSeconds
import { makeCaller } from "../../src/access/caller.ts";
import { openShampoo } from "../../src/app.ts";

const [target, principal, project, leaseS] = process.argv.slice(2) as [string, string, string, string];
const caller = makeCaller({ principal, role: "agent", profile: "default", grants: [project] });
const s = await openShampoo({ db: target, resolveCaller: () => caller });
const ctx = s.mcp.context({
  sessionId: principal,
  transport: "memory",
  clientInfo: () => undefined,
  log: async () => {},
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const out = (line: string) => process.stdout.write(`${line}\n`);

async function call(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  for (;;) {
    const r = await s.registry.call(tool, args, ctx);
    const sc = r.structuredContent as Record<string, unknown>;
    // A busy database is retried (nothing was changed); every other answer is the answer.
    if (r.isError && ["database_busy", "busy", "conflict", "db_unavailable"].includes(String(sc.error_type))) {
      await sleep(5 + Math.random() * 20);
      continue;
    }
    return { ...sc, isError: r.isError === true };
  }
}

out("ready");
// Runs until the test ends it (SIGTERM once every job is completed, or SIGKILL).
for (;;) {
  const c = await call("job_claim", { kind: "torture", lease_seconds: Number(leaseS) });
  if (!c.claimed) {
    await sleep(20);
    continue;
  }
  await sleep(2 + Math.random() * 10);
  const r = await call("job_complete", { job_id: c.job_id, outcome: "completed", fence: c.fence });
  out(r.isError ? `refused ${c.job_id} ${c.fence} ${r.error_type}` : `done ${c.job_id} ${c.fence}`);
}

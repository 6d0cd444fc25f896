// One process of the concurrent-startup test (migrate.test.ts): opens SHAMPOO on the given target
// (migrating it if needed), answers one read, and exits 0; any failure exits 1 with the message on
// stderr. Plain JavaScript on dist/ (built from the current sources by vitest's global setup), so
// each of the 18 processes starts under plain node in about a third of what tsx on src/ took.
import { openShampoo } from "../../dist/app.js";

const [target, schema] = process.argv.slice(2);
try {
  const s = await openShampoo({ db: target, ...(schema ? { pgSchema: schema } : {}) });
  const ctx = s.mcp.context({
    sessionId: "boot",
    transport: "memory",
    clientInfo: () => undefined,
    log: async () => {},
  });
  const out = await s.registry.call("query_tasks", {}, ctx);
  await s.close();
  if (out.isError) throw new Error(JSON.stringify(out.structuredContent));
  process.stdout.write("up\n");
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
}

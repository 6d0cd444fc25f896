// One process of the concurrent-startup test (startup.test.ts): opens the Chamber on the given
// target (migrating it if needed), answers one read of its store, and exits 0; any failure exits
// 1 with the message on stderr. Plain JavaScript on dist/ (built from the current sources by
// vitest's global setup): each of the 18 processes starts under plain node, without tsx.
import { openChamber } from "../dist/app.js";

const [target, schema] = process.argv.slice(2);
try {
  const c = await openChamber({ db: target, ...(schema ? { pgSchema: schema } : {}) });
  await c.database.db.selectFrom("chamber_attempts").select("handle").limit(1).execute();
  await c.close();
  process.stdout.write("up\n");
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
}

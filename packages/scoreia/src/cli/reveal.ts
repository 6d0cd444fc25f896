import { join } from "node:path";
import { defaultDb, ensureDataDir, UsageError, type Values } from "./common.ts";

/**
 * Retires a suite generation and publishes its room secret (commit-reveal, docs/evidence-0.2.md
 * §14.3): new attempts enter a fresh generation, and GET /suites/{suite}/{generation}/reveal.json
 * serves the secret and the openings re-grading reads, so anyone can rebuild the rooms and re-grade.
 */
export async function reveal(values: Values, args: string[]): Promise<number> {
  const [suite, generation, ...rest] = args;
  if (!suite || !generation || rest.length > 0)
    throw new UsageError("needs SUITE GENERATION, e.g. chambre-chrono-v0 001.3fa2c9d1");
  const { openChamber } = await import("../app.ts");
  const { SuiteSecrets } = await import("../suites/secrets.ts");
  const secrets = SuiteSecrets.open(join(ensureDataDir(values), "suite-secrets"));
  const chamber = await openChamber({ db: values.db ?? defaultDb(ensureDataDir(values)), secrets });
  try {
    const r = await chamber.service.reveal(suite, generation);
    process.stderr.write(`scoreia reveal: ${suite} ${generation} retired at ${r.revealed_at}; its secret is public\n`);
    process.stdout.write(`${r.secret}\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`scoreia reveal: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await chamber.close();
  }
}

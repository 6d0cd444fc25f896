import { join } from "node:path";
import { chooseSigner, defaultDb, ensureDataDir, UsageError, type Values } from "./common.ts";

/** Sets an attempt aside for review (it can still be sealed, to a quarantined card). */
export async function quarantine(values: Values, args: string[]): Promise<number> {
  const handle = args[0];
  if (!handle || !values.reason || args.length > 1) throw new UsageError("needs HANDLE and --reason TEXT");
  const { signer } = chooseSigner(values);
  const { openChamber } = await import("../app.ts");
  const { SuiteSecrets } = await import("../suites/secrets.ts");
  // The room secrets `serve` keeps: an attempt of a current secret generation needs its room.
  const secrets = SuiteSecrets.open(join(ensureDataDir(values), "suite-secrets"));
  const chamber = await openChamber({ db: values.db ?? defaultDb(ensureDataDir(values)), signer, secrets });
  try {
    await chamber.service.quarantine(handle, values.reason);
    process.stdout.write(`${handle} quarantined\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`scoreia quarantine: ${(e as Error).message}\n`);
    return 1;
  } finally {
    await chamber.close();
  }
}

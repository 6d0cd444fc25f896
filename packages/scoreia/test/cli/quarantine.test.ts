/**
 * Issue 28: `scoreia quarantine HANDLE --reason …` on an attempt of a current secret generation
 * (what `scoreia serve` enters by default) reads the room secrets `serve` keeps in the data dir.
 */
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { openChamber } from "../../src/app.ts";
import { SuiteSecrets } from "../../src/suites/secrets.ts";
import { tempDir } from "../e2e/support.ts";
import { IDENTITY } from "../support/chamber.ts";
import { run } from "./support.ts";

const tmp = tempDir("cli-quarantine");
afterAll(() => tmp.remove());

it("quarantines an attempt of a current secret generation (it failed with 'no secret for the generation')", async () => {
  const dataDir = join(tmp.dir, "data");
  const db = join(tmp.dir, "c.db");
  const secrets = SuiteSecrets.open(join(dataDir, "suite-secrets"));
  let chamber = await openChamber({ db, secrets });
  const e = await chamber.service.enter({ ...IDENTITY }, { mcpSession: "m" });
  const generation = (
    await chamber.database.db
      .selectFrom("chamber_attempts")
      .select("suite_generation")
      .where("handle", "=", e.attempt_handle as string)
      .executeTakeFirstOrThrow()
  ).suite_generation;
  expect(generation).toMatch(/^\d{3}\.[0-9a-f]{8}$/); // a secret generation, not the shipped one
  await chamber.close();

  const r = await run([
    "quarantine",
    e.attempt_handle as string,
    "--reason",
    "review",
    "--data-dir",
    dataDir,
    "--db",
    db,
  ]);
  expect(r.stderr).toBe("");
  expect([r.code, r.stdout]).toEqual([0, `${e.attempt_handle} quarantined\n`]);

  chamber = await openChamber({ db, secrets: SuiteSecrets.open(join(dataDir, "suite-secrets")) });
  try {
    const row = await chamber.database.db
      .selectFrom("chamber_attempts")
      .select(["state", "quarantine_reason"])
      .where("handle", "=", e.attempt_handle as string)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: "quarantined", quarantine_reason: "review" });
  } finally {
    await chamber.close();
  }
});

/**
 * A SHAMPOO store for one benchmark run: a temporary SQLite file or a fresh PostgreSQL schema,
 * removed by `drop()` (and at exit, through onCleanup, if the run dies first).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionInfo } from "kernel";
import { dropPgSchema, PG_URL } from "kernel/store/testing.ts";
import type { Caller } from "shampoo/access/caller.ts";
import { openShampoo, type Shampoo } from "shampoo/app.ts";
import { onCleanup } from "./lib.ts";

export type StoreKind = "sqlite" | "postgres";

/** `tag` names the temp directory or schema (e.g. "reflection"); `resolveCaller` as openShampoo's. */
export async function openBenchShampoo(
  kind: StoreKind,
  tag: string,
  resolveCaller: (s: SessionInfo) => Caller,
): Promise<{ shampoo: Shampoo; drop(): Promise<void> }> {
  if (kind === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), `shampoo-bench-${tag}-`));
    const drop = onCleanup(async () => rmSync(dir, { recursive: true, force: true }));
    return { shampoo: await openShampoo({ db: join(dir, "shampoo.db"), resolveCaller }), drop };
  }
  const schema = `bench_${tag}_${process.pid}_${Date.now().toString(36)}`;
  const drop = onCleanup(async () => dropPgSchema(schema));
  return { shampoo: await openShampoo({ db: PG_URL, pgSchema: schema, resolveCaller }), drop };
}

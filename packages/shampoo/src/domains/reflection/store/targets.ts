import type { Kysely, Transaction } from "kernel";
import type { ShampooDB } from "../../../store/schema.ts";

/**
 * Whether a task id exists in the profile at all, whatever its project. Only reflect_apply asks,
 * for a target of a candidate the caller can see (it saw the target's evidence), to tell
 * target_out_of_scope (moved beyond the caller's grants) from target_not_found, as the catalog
 * requires; it is never asked about an id the caller did not get from its own candidate.
 */
export async function taskExists(
  db: Kysely<ShampooDB> | Transaction<ShampooDB>,
  profile: string,
  id: string,
): Promise<boolean> {
  const row = await db
    .selectFrom("shampoo_tasks")
    .select("id")
    .where("profile", "=", profile)
    .where("id", "=", id)
    .executeTakeFirst();
  return row !== undefined;
}

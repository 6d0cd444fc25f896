import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import type { WriteScope } from "../../../platform/write.ts";
import { addRun } from "../store/packs.ts";

/**
 * The run-history entry every context-governance tool records (shampoo_context_runs), in the
 * tool's own write: input and result as JSON, started and finished at the write's time.
 */
export async function recordRun(
  w: WriteScope,
  tool: string,
  input: unknown,
  result: unknown,
  extra: { session_id?: string | null; pack_id?: string | null } = {},
): Promise<string> {
  const runId = randomUUID();
  const at = iso(w.now);
  await addRun(w.trx, {
    run_id: runId,
    profile: w.ctx.caller.profile,
    tool,
    principal: w.ctx.caller.principal,
    session_id: extra.session_id ?? null,
    pack_id: extra.pack_id ?? null,
    status: "completed",
    input_json: JSON.stringify(input ?? {}),
    result_json: JSON.stringify(result ?? {}),
    started_at: at,
    finished_at: at,
  });
  return runId;
}

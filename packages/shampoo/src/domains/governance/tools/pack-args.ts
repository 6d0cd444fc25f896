import { given } from "../../../platform/errors.ts";
import type { SessionRow } from "../../sessions/schema.ts";
import { namedSession } from "../../sessions/service.ts";
import { getTask } from "../../tasks/store.ts";
import { notFound, type W } from "../service/write.ts";

/** A pack's session: a UUID (session_save's vocabulary), visible to the caller, else "session not found". */
export async function packSession(w: W, v: unknown): Promise<SessionRow | null> {
  return namedSession(w.trx, w.ctx.caller, v);
}

/** A pack's target task, visible to the caller, else "Task not found". */
export async function packTarget(w: W, v: unknown) {
  if (given(v) === undefined) return null;
  const t = await getTask(w.trx, w.scope, String(v));
  if (!t) throw notFound("Task");
  return t;
}

import { blank, malformedSession, parseSessionId } from "../../sessions/model.ts";
import type { SessionRow } from "../../sessions/schema.ts";
import { sessionNotFound } from "../../sessions/service.ts";
import { getSession } from "../../sessions/store.ts";
import { getTask } from "../../tasks/store/tasks.ts";
import { notFound, type W } from "../service/write.ts";

/** A pack's session: a UUID (session_save's vocabulary), visible to the caller, else "session not found". */
export async function packSession(w: W, v: unknown): Promise<SessionRow | null> {
  if (blank(v)) return null;
  const id = parseSessionId(String(v));
  if (id === null) throw malformedSession();
  const s = await getSession(w.trx, w.ctx.caller, id, { starBypass: true });
  if (!s) throw sessionNotFound();
  return s;
}

/** A pack's target task, visible to the caller, else "Task not found". */
export async function packTarget(w: W, v: unknown) {
  if (blank(v)) return null;
  const t = await getTask(w.trx, w.scope, String(v));
  if (!t) throw notFound("Task");
  return t;
}

import type { DomainError } from "kernel";
import { fail, notFound } from "../../platform/errors.ts";
import type { NewContextPack, SessionRow } from "./schema.ts";

/** Sessions' rows as its tools answer them and its history events record them, and its failures. */

/** The catalog's wording for a malformed session id (session_save, resume_context, packs). */
export const SESSION_UUID_MESSAGE = "session_id must be a UUID returned by session_save";

export function malformedSession(): DomainError {
  return fail("validation", SESSION_UUID_MESSAGE);
}

/** The catalog's denial: foreign, invisible and (for updates) missing sessions read the same. */
export function sessionNotFound(): DomainError {
  return notFound("session");
}

/** Empty, missing or null file lists store as null; otherwise JSON text of the list. */
export function filesValue(v: readonly string[] | null | undefined): string | null {
  return Array.isArray(v) && v.length > 0 ? JSON.stringify(v) : null;
}

export function filesList(json: string | null): string[] | null {
  if (json === null) return null;
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.map(String) : null;
  } catch {
    return null;
  }
}

/** The public shape of a session (session_recall). */
export function sessionView(s: SessionRow): Record<string, unknown> {
  return {
    session_id: s.session_id,
    project: s.project,
    summary: s.summary,
    active_files: filesList(s.active_files),
    started_at: s.started_at,
    ended_at: s.ended_at,
  };
}

/** What a session's history event records: the view plus owner and state. */
export function sessionEventView(s: SessionRow): Record<string, unknown> {
  return {
    ...sessionView(s),
    owner: s.owner,
    handed_to: s.handed_to,
    state: s.state,
    closed_at: s.closed_at,
    closed_by: s.closed_by,
  };
}

/** What a pack's create event records: its metadata and the items it includes (not the body). */
export function packEventView(items: PackItem[]) {
  return (p: NewContextPack): Record<string, unknown> => {
    const { body: _b, items_json: _i, last_event_id: _l, ...meta } = p;
    return { ...meta, items };
  };
}

/** One item a handoff pack includes (its provenance): what it is and, when dated, its time. */
export interface PackItem {
  kind: "session" | "file" | "task" | "event";
  ref: string;
  at?: string;
}

/** A recent task event as the handoff lists it (store's recentTaskEvents). */
export interface TaskEvent {
  at: string;
  action: string;
  principal: string;
  task_id: string;
  title: string;
  old_json: string | null;
  new_json: string | null;
}

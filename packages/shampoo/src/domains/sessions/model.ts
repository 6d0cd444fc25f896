import type { DomainError } from "kernel";
import { fail } from "../../platform/errors.ts";
import type { SessionRow } from "./schema.ts";

/** The catalog's wording for a malformed session id (session_save and resume_context). */
export const SESSION_UUID_MESSAGE = "session_id must be a UUID returned by session_save";

export function malformedSession(): DomainError {
  return fail("validation", SESSION_UUID_MESSAGE);
}

/**
 * Parses a session id the way the predecessor's platform UUID parser (Python's uuid.UUID) reads
 * one: "urn:" and "uuid:" prefixes dropped, surrounding braces stripped, hyphens ignored, then
 * exactly 32 hex digits in any case. Returns the canonical lowercase 8-4-4-4-12 form, or null.
 * So "{6F9619FF-8B86-D011-B42D-00C04FC964FF}", "urn:uuid:6f9619ff-…" and the 32 bare digits all
 * name the same session.
 */
export function parseSessionId(raw: string): string | null {
  let hex = raw.replaceAll("urn:", "").replaceAll("uuid:", "");
  hex = hex.replace(/^[{}]+|[{}]+$/g, "").replaceAll("-", "");
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) return null;
  const h = hex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Omitted, null and blank (whitespace only) all mean "no session id given". */
export function blank(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === "string" && v.trim() === "");
}

/** Empty, missing or null file lists store as null; otherwise JSON text of the list. */
export function filesValue(v: unknown): string | null {
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

/**
 * session_recall's last_n: integers, integral floats (JSON 5.0 arrives as 5) and booleans (true
 * = 1, false = 0, as the predecessor's int(bool)). Negative values read as 0 (nothing), values
 * above 100 are clamped to 100 so one call stays bounded.
 */
export const RECALL_DEFAULT = 5;
export const RECALL_MAX = 100;
export function recallCount(v: unknown): number {
  if (v === undefined) return RECALL_DEFAULT;
  const n = typeof v === "boolean" ? (v ? 1 : 0) : Number(v);
  return Math.max(0, Math.min(RECALL_MAX, n));
}

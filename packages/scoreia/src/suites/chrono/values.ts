/**
 * Parsing of submitted values. A value that is not even a candidate answer (wrong shape, unknown
 * event id, out of the dial's range) is refused as value_format_invalid and costs nothing; only a
 * well-formed candidate is judged right or wrong. Parsing is lenient where a careful agent could
 * reasonably differ (case, spaces, "[cat]" brackets, a one-element array for a single value).
 */
import type { RoomAction } from "../types.ts";

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

function fail(message: string): { ok: false; message: string } {
  return { ok: false, message };
}

/** A single string value; a one-element array is accepted as that element. */
function single(value: RoomAction["value"]): string | null {
  if (typeof value === "string") return value.trim();
  if (Array.isArray(value) && value.length === 1 && typeof value[0] === "string") return value[0].trim();
  return null;
}

function cleanId(s: string): string {
  return s
    .trim()
    .replace(/^\[|\]$/g, "")
    .trim()
    .toLowerCase();
}

/** The event ids, earliest first: an array, or one string separated by commas, spaces or ">". */
export function parseSequence(value: RoomAction["value"], ids: string[]): Parsed<string[]> {
  const parts =
    typeof value === "string" ? value.split(/[\s,;>]+/) : Array.isArray(value) ? value.filter((v) => v.trim()) : [];
  const seq = parts.map(cleanId).filter((p) => p.length > 0);
  const expected = `a list of the ${ids.length} event ids, each once (ids: ${ids.join(", ")})`;
  if (seq.length !== ids.length) return fail(`submit_sequence expects ${expected}.`);
  if (new Set(seq).size !== seq.length || seq.some((id) => !ids.includes(id))) {
    return fail(`submit_sequence expects ${expected}.`);
  }
  return { ok: true, value: seq };
}

/** "HH:MM" (24-hour; "9:05" accepted) -> minutes after midnight. */
export function parseTime(value: RoomAction["value"]): Parsed<number> {
  const s = single(value);
  const m = s === null ? null : /^(\d{1,2}):(\d{2})$/.exec(s);
  const h = Number(m?.[1]);
  const min = Number(m?.[2]);
  if (!m || h > 23 || min > 59) return fail('submit_time expects a 24-hour time "HH:MM", e.g. "09:05".');
  return { ok: true, value: h * 60 + min };
}

/** A whole number in [0, max], digits only. */
export function parseInteger(value: RoomAction["value"], op: string, max: number): Parsed<number> {
  const s = single(value);
  if (s === null || !/^\d{1,6}$/.test(s) || Number(s) > max) {
    return fail(`${op} expects a whole number from 0 to ${max}, digits only.`);
  }
  return { ok: true, value: Number(s) };
}

/** A key's tag letter ("C", "key C" and "key_C" accepted). */
export function parseKey(value: RoomAction["value"], labels: string[]): Parsed<string> {
  const s = single(value);
  const m = s === null ? null : /^(?:key[\s_-]*)?([a-z])$/i.exec(s);
  const label = m?.[1]?.toUpperCase();
  if (!label || !labels.includes(label)) {
    return fail(`submit_master expects the letter of a key on the rack (${labels.join(", ")}).`);
  }
  return { ok: true, value: label };
}

import { invalid } from "../../../platform/errors.ts";
import { UUID } from "../model.ts";

/** Pure value rules of the task tools' arguments: no ctx, no store. */

const UUID_RE = new RegExp(UUID);

/** An integer argument clamped into [min, max]; absent → fallback. */
export function clampInt(v: unknown, min: number, max: number, fallback: number): number {
  if (typeof v !== "number" || !Number.isFinite(v)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(v)));
}

export function isUuid(v: string): boolean {
  return UUID_RE.test(v);
}

/** YYYY-MM-DD that is a real calendar day. */
export function checkDate(field: string, v: string): string {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  const t = m ? Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : Number.NaN;
  if (!m || new Date(t).toISOString().slice(0, 10) !== v)
    throw invalid(`${field} must be a date YYYY-MM-DD, got ${JSON.stringify(v)}`);
  return v;
}

/** ISO 8601 date-time (seconds and offset optional), e.g. 2026-03-15T14:00:00 or …Z / …+02:00. */
export function checkDateTime(field: string, v: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/.exec(v);
  const bad = () => invalid(`${field} must be an ISO date-time like 2026-03-15T14:00:00, got ${JSON.stringify(v)}`);
  if (!m) throw bad();
  try {
    checkDate(field, m[1] as string);
  } catch {
    throw bad();
  }
  const off = /^[+-](\d{2}):(\d{2})$/.exec(m[5] ?? "");
  if (
    Number(m[2]) > 23 ||
    Number(m[3]) > 59 ||
    Number(m[4] ?? 0) > 59 ||
    (off && (Number(off[1]) > 23 || Number(off[2]) > 59))
  )
    throw invalid(`${field} has an impossible time, got ${JSON.stringify(v)}`);
  return v;
}

const WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
const EVERY = ["day", "weekday", "week", "month", "year"];

/**
 * Recurrence config: a JSON object string such as {"every":"week","day":"monday"}.
 * Keys: every (day|weekday|week|month|year, required), interval (1..365), day (a weekday name,
 * with every=week), day_of_month (1..31, with every=month), until (YYYY-MM-DD). Nothing else.
 * Stored as canonical JSON text.
 */
export function checkRecurring(v: string): string {
  let cfg: unknown;
  try {
    cfg = JSON.parse(v);
  } catch {
    throw invalid('recurring must be a JSON object string, e.g. {"every":"week","day":"monday"}');
  }
  if (typeof cfg !== "object" || cfg === null || Array.isArray(cfg)) throw invalid("recurring must be a JSON object");
  const c = cfg as Record<string, unknown>;
  for (const k of Object.keys(c)) {
    if (!["every", "interval", "day", "day_of_month", "until"].includes(k))
      throw invalid(`recurring has an unknown key ${k}`);
  }
  if (typeof c.every !== "string" || !EVERY.includes(c.every))
    throw invalid(`recurring.every must be one of ${EVERY.join(", ")}`);
  if (
    c.interval !== undefined &&
    (!Number.isInteger(c.interval) || (c.interval as number) < 1 || (c.interval as number) > 365)
  ) {
    throw invalid("recurring.interval must be an integer 1..365");
  }
  if (
    c.day !== undefined &&
    (c.every !== "week" || typeof c.day !== "string" || !WEEKDAYS.includes(c.day.toLowerCase()))
  ) {
    throw invalid("recurring.day is a weekday name and goes with every=week");
  }
  if (
    c.day_of_month !== undefined &&
    (c.every !== "month" ||
      !Number.isInteger(c.day_of_month) ||
      (c.day_of_month as number) < 1 ||
      (c.day_of_month as number) > 31)
  ) {
    throw invalid("recurring.day_of_month is 1..31 and goes with every=month");
  }
  if (c.until !== undefined) checkDate("recurring.until", String(c.until));
  const out: Record<string, unknown> = { every: c.every };
  for (const k of ["interval", "day", "day_of_month", "until"]) {
    if (c[k] !== undefined) out[k] = k === "day" ? String(c[k]).toLowerCase() : c[k];
  }
  return JSON.stringify(out);
}

import { createHash } from "node:crypto";
import { iso } from "kernel";
import { fail } from "../../../platform/errors.ts";

/** Text helpers shared by the governance rules. Pure: no clock, no database. */

/** Whitespace collapsed, trimmed, lowercased: the form claims and facts are compared in. */
export function norm(s: string): string {
  return s.replace(/\s+/g, " ").trim().toLowerCase();
}

/** sha256 hex of a chunk body: a new answer or an edited source gives a new hash. */
export function sourceHash(body: string): string {
  return createHash("sha256").update(body, "utf8").digest("hex");
}

/** A token estimate good enough for budgeting: 4 characters per token, rounded up (as sessions/pack.ts). */
export function tokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/**
 * Sentences of a body: split after . ! ? or a line break. A full stop between two digits or
 * letters without a space ("v1.2", "node.js") does not end a sentence.
 */
export function sentences(body: string): string[] {
  return body
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export function round(x: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

/** An ISO timestamp argument (`name` for the message), normalized; a validation error otherwise. */
export function isoArg(name: string, v: string): string {
  const ms = Date.parse(v);
  if (!/^\d{4}-\d{2}-\d{2}/.test(v) || Number.isNaN(ms))
    throw fail("validation", `${name} must be an ISO-8601 timestamp, got ${JSON.stringify(v)}`);
  return iso(ms);
}

/**
 * Parsing of submitted values. A value that does not have the stage's shape (unknown part, a slot
 * named twice, a missing entry, a code of the wrong length) is refused as value_format_invalid,
 * which costs nothing: only a well-formed answer can be wrong. The formats are public (manifest,
 * `look`), so a refusal never tells the agent anything about the answer.
 */

import type { Room } from "./generate.ts";
import { BIN_IDS, type BinId } from "./model.ts";

// Object.hasOwn, not `in`: "constructor" is `in` every plain object.
const isPart = (room: Room, id: string) => Object.hasOwn(room.env.index, id);

export const FORMATS = {
  submit_bins:
    'one "part:bin" entry per part, every part exactly once, bins bin-a, bin-b or bin-c; e.g. ["gear:bin-a", "cam:bin-c", ...] (an array, or one string with entries separated by commas)',
  submit_placement:
    'one "slot:part" entry per slot 1-6, every slot and every part exactly once; e.g. ["1:gear", "2:cam", ...] (array or comma-separated string)',
  submit_order:
    'the six part ids in the order they are fitted, first to last; e.g. ["cam", "gear", ...] (array or comma-separated string)',
  submit_bolt:
    'the code as one string of digits, one digit per dial of the bolt (a 2-dial lock would take a string like "17")',
} as const;

/** Entries of a list value, trimmed and lower-cased; a plain string is split on commas. */
function entries(value: unknown): string[] | null {
  const raw = typeof value === "string" ? value.split(",") : Array.isArray(value) ? value : null;
  if (!raw || raw.some((x) => typeof x !== "string")) return null;
  const out = (raw as string[]).map((x) => x.trim().toLowerCase()).filter((x) => x !== "");
  return out.length > 0 ? out : null;
}

function pairs(value: unknown): Array<[string, string]> | null {
  const list = entries(value);
  if (!list) return null;
  const out: Array<[string, string]> = [];
  for (const e of list) {
    const m = /^([a-z0-9-]+)\s*:\s*([a-z0-9-]+)$/.exec(e);
    if (!m) return null;
    out.push([m[1] as string, m[2] as string]);
  }
  return out;
}

/** bins by part id, or null when malformed. */
export function parseBins(room: Room, value: unknown): Record<string, BinId> | null {
  const list = pairs(value);
  if (!list || list.length !== room.parts.length) return null;
  const out: Record<string, BinId> = {};
  for (const [part, bin] of list) {
    if (!isPart(room, part) || Object.hasOwn(out, part)) return null;
    if (!(BIN_IDS as readonly string[]).includes(bin)) return null;
    out[part] = bin as BinId;
  }
  return out;
}

/** Part id on each slot (slot s at s - 1), or null when malformed. */
export function parsePlacement(room: Room, value: unknown): string[] | null {
  const list = pairs(value);
  const n = room.parts.length;
  if (!list || list.length !== n) return null;
  const out = new Array<string>(n).fill("");
  for (const [slot, part] of list) {
    const s = /^[1-9]$/.test(slot) ? Number(slot) : 0;
    if (s < 1 || s > n || out[s - 1] !== "" || !isPart(room, part) || out.includes(part)) return null;
    out[s - 1] = part;
  }
  return out;
}

/** Part ids first to last, or null when malformed. */
export function parseOrder(room: Room, value: unknown): string[] | null {
  const list = entries(value);
  if (!list || list.length !== room.parts.length) return null;
  if (new Set(list).size !== list.length || list.some((p) => !isPart(room, p))) return null;
  return list;
}

export function parseCode(room: Room, value: unknown): string | null {
  if (typeof value !== "string") return null;
  const code = value.trim();
  return new RegExp(`^[0-9]{${room.bolt.dials}}$`).test(code) ? code : null;
}

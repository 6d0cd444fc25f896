import { createHash } from "node:crypto";
// `canonicalize`: the RFC 8785 reference implementation by one of its authors, pinned at 4.0.0,
// the last release that declares Node 20 (5.x declares Node >= 22, and npm warned on every
// install). Only the values sortedCopy cannot order go through it (array-index and __proto__
// keys); there 4.0.0 took 0.32 ms for a 21-event replay with index keys where 5.1.0 took 0.20 ms
// (same bytes; best of two runs of 3,000 on this machine). The RFC 8785 vectors and the
// differential test in jcs.test.ts check the bytes.
import canonicalize from "canonicalize";

export class CanonicalizationError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(`${path}: ${message}`);
    this.name = "CanonicalizationError";
  }
}

/**
 * RFC 8785 canonical JSON of `value`, refusing what the I-JSON subset cannot carry: lone
 * surrogates (in strings and keys), non-finite numbers, and every non-JSON value (undefined,
 * functions, symbols, bigints, class instances such as Date or Map). Everything signed or hashed
 * goes through here.
 *
 * RFC 8785 is ECMAScript's JSON.stringify with object members sorted by UTF-16 code units (§3.2:
 * strings and numbers are serialised exactly as JSON.stringify does). So the common case copies
 * the value with its keys in that order and lets the engine's JSON.stringify write it: 1.7× faster
 * than canonicalize on a 1.4 KB Chamber event (best of 40 runs: 13.9 vs 23.6 µs), and events are
 * most of what the Chamber hashes. Two key shapes defeat the copy, and values holding them go to `canonicalize`:
 * array-index keys ("10", "9"), which JavaScript objects always enumerate first in numeric order,
 * and "__proto__", which an assignment would not create as an own member. Both paths give the same
 * bytes: the RFC 8785 vectors and a differential test against `canonicalize` (jcs.test.ts) check it.
 */
export function canonicalJson(value: unknown): string {
  let out: string | undefined;
  try {
    const copy = sortedCopy(value);
    out = copy === NEEDS_REFERENCE ? canonicalize(value) : JSON.stringify(copy);
  } catch (e) {
    // Only the walk that names the path looks at why.
    check(value, "$", true);
    throw new CanonicalizationError(e instanceof Error ? e.message : String(e), "$");
  }
  if (out === undefined) throw new CanonicalizationError("no canonical form", "$");
  return out;
}

/** The value cannot be written by JSON.stringify in canonical order (see canonicalJson). */
const NEEDS_REFERENCE = Symbol("needs the reference implementation");
/** A canonical array index: the keys JavaScript objects enumerate before all others. */
const INDEX_KEY = /^(?:0|[1-9]\d{0,9})$/;

class NotJson extends Error {}

/**
 * `v` with its objects' keys in RFC 8785 order, or NEEDS_REFERENCE; throws NotJson on anything
 * canonical JSON refuses. Copy on write: a value already in that order (what JSON.parse gives
 * for canonical text, such as a proof bundle the server wrote) is returned itself, checked but
 * not copied, and JSON.stringify then writes it as it stands.
 */
function sortedCopy(v: unknown): unknown {
  switch (typeof v) {
    case "string":
      if (!v.isWellFormed()) throw new NotJson("string has a lone surrogate");
      return v;
    case "number":
      if (!Number.isFinite(v)) throw new NotJson(`number ${v} is not finite`);
      return v;
    case "boolean":
      return v;
    case "object": {
      if (v === null) return v;
      if (Array.isArray(v)) {
        let out: unknown[] | null = null;
        for (let i = 0; i < v.length; i++) {
          const c = sortedCopy(v[i]);
          if (c === NEEDS_REFERENCE) return c;
          if (out === null && c !== v[i]) out = v.slice(0, i);
          if (out !== null) out[i] = c;
        }
        return out ?? v;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) throw new NotJson("not a plain object");
      const keys = Object.keys(v);
      let sorted = true;
      for (let i = 1; i < keys.length; i++) {
        if ((keys[i - 1] as string) > (keys[i] as string)) {
          sorted = false;
          break;
        }
      }
      if (!sorted) keys.sort();
      // A prototype-less object is copied, so that JSON.stringify sees a plain one.
      let out: Record<string, unknown> | null = sorted && proto !== null ? null : {};
      const src = v as Record<string, unknown>;
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i] as string;
        if (k === "__proto__" || INDEX_KEY.test(k)) return NEEDS_REFERENCE;
        if (!k.isWellFormed()) throw new NotJson("key has a lone surrogate");
        const child = src[k];
        const c = sortedCopy(child);
        if (c === NEEDS_REFERENCE) return c;
        if (out === null && c !== child) {
          out = {};
          for (let j = 0; j < i; j++) out[keys[j] as string] = src[keys[j] as string];
        }
        if (out !== null) out[k] = c;
      }
      return out ?? v;
    }
    default:
      throw new NotJson(`${typeof v} is not a JSON value`);
  }
}

function check(v: unknown, path: string, strings: boolean): void {
  switch (typeof v) {
    case "string":
      if (strings && !v.isWellFormed()) throw new CanonicalizationError("string has a lone surrogate", path);
      return;
    case "number":
      if (!Number.isFinite(v)) throw new CanonicalizationError(`number ${v} is not finite`, path);
      return;
    case "boolean":
      return;
    case "object": {
      if (v === null) return;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) check(v[i], strings ? `${path}[${i}]` : path, strings);
        return;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) {
        throw new CanonicalizationError(`${proto?.constructor?.name ?? "object"} is not a JSON value`, path);
      }
      for (const k in v) {
        if (strings && !k.isWellFormed()) throw new CanonicalizationError("key has a lone surrogate", path);
        check((v as Record<string, unknown>)[k], strings ? `${path}.${k}` : path, strings);
      }
      return;
    }
    default:
      throw new CanonicalizationError(`${typeof v} is not a JSON value`, path);
  }
}

/** `sha256:` + lowercase hex of SHA-256 over the UTF-8 bytes of `text`. */
export function sha256Tagged(text: string | Uint8Array): string {
  return `sha256:${createHash("sha256").update(text).digest("hex")}`;
}

/** sha256 over the canonical form. */
export function canonicalHash(value: unknown): string {
  return sha256Tagged(canonicalJson(value));
}

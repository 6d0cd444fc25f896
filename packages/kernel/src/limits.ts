/**
 * Request limits enforced before anything runs (seed 000 `limits`): the whole request size,
 * the JSON nesting depth and the length of every array. A violation names the limit and the
 * offending path so that the caller knows exactly what to shrink.
 */
export interface Limits {
  maxRequestBytes: number;
  maxJsonDepth: number;
  maxArrayItems: number;
}

export interface LimitViolation {
  limit: "max_request_bytes" | "max_json_depth" | "max_array_items" | "unicode";
  message: string;
  /** Where, for a violation inside the value: `$` the arguments, `$.host`, `$.value[2]`. */
  path?: string;
}

/**
 * Checks a parsed value. `bytes` is the UTF-8 size of the serialized arguments.
 *
 * The walk keeps its own stack instead of recursing, and stops at the first level past
 * max_json_depth: 30,000 nested arrays are refused as max_json_depth like 17 are, in a few
 * steps, instead of overflowing the call stack (issue 14 §6). The size comes first; a value too
 * deep for JSON.stringify (which does recurse) to measure goes on to the walk, which names its
 * depth.
 *
 * Strings: a lone surrogate is not Unicode (it cannot be stored, signed or hashed faithfully);
 * U+0000 is refused too, in keys and values, on every engine: PostgreSQL text cannot hold it
 * and SQLite would, so refusing it is the one rule both can keep (docs/storage.md).
 */
export function checkLimits(value: unknown, limits: Limits, bytes?: number): LimitViolation | null {
  let size = bytes;
  if (size === undefined) {
    try {
      size = Buffer.byteLength(JSON.stringify(value ?? null), "utf8");
    } catch (e) {
      if (!(e instanceof RangeError)) throw e;
    }
  }
  if (size !== undefined && size > limits.maxRequestBytes) {
    return {
      limit: "max_request_bytes",
      message: `request is ${size} bytes; max_request_bytes is ${limits.maxRequestBytes}`,
    };
  }
  return walk(value, limits);
}

function badString(s: string, path: string): LimitViolation | null {
  if (!s.isWellFormed()) return { limit: "unicode", path, message: `${path} has a lone surrogate (not valid Unicode)` };
  if (s.includes("\u0000"))
    return { limit: "unicode", path, message: `${path} contains U+0000 (NUL), which is not accepted` };
  return null;
}

/** Depth-first, in document order, as the recursive walk it replaces. */
function walk(root: unknown, limits: Limits): LimitViolation | null {
  const stack: Array<{ v: unknown; depth: number; path: string }> = [{ v: root, depth: 1, path: "$" }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { v, depth, path } = item;
    if (typeof v === "string") {
      const bad = badString(v, path);
      if (bad) return bad;
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (depth > limits.maxJsonDepth) {
      return { limit: "max_json_depth", message: `${path} nests deeper than max_json_depth ${limits.maxJsonDepth}` };
    }
    if (Array.isArray(v)) {
      if (v.length > limits.maxArrayItems) {
        return {
          limit: "max_array_items",
          message: `${path} has ${v.length} items; max_array_items is ${limits.maxArrayItems}`,
        };
      }
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], depth: depth + 1, path: `${path}[${i}]` });
      continue;
    }
    const entries = Object.entries(v);
    for (const [k] of entries) {
      if (!k.isWellFormed()) return { limit: "unicode", message: `${path} has a key with a lone surrogate` };
      if (k.includes("\u0000"))
        return { limit: "unicode", message: `${path} has a key containing U+0000 (NUL), which is not accepted` };
    }
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, child] = entries[i] as [string, unknown];
      stack.push({ v: child, depth: depth + 1, path: `${path}.${k}` });
    }
  }
  return null;
}

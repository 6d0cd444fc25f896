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
}

/** Checks a parsed value. `bytes` is the UTF-8 size of the serialized arguments. */
export function checkLimits(value: unknown, limits: Limits, bytes?: number): LimitViolation | null {
  const size = bytes ?? Buffer.byteLength(JSON.stringify(value ?? null), "utf8");
  if (size > limits.maxRequestBytes) {
    return {
      limit: "max_request_bytes",
      message: `request is ${size} bytes; max_request_bytes is ${limits.maxRequestBytes}`,
    };
  }
  return walk(value, 1, "$", limits);
}

function walk(v: unknown, depth: number, path: string, limits: Limits): LimitViolation | null {
  // A lone surrogate is not Unicode: it cannot be stored, signed or hashed faithfully.
  if (typeof v === "string") {
    return v.isWellFormed() ? null : { limit: "unicode", message: `${path} has a lone surrogate (not valid Unicode)` };
  }
  if (v === null || typeof v !== "object") return null;
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
    for (let i = 0; i < v.length; i++) {
      const r = walk(v[i], depth + 1, `${path}[${i}]`, limits);
      if (r) return r;
    }
    return null;
  }
  for (const [k, child] of Object.entries(v)) {
    if (!k.isWellFormed()) return { limit: "unicode", message: `${path} has a key with a lone surrogate` };
    const r = walk(child, depth + 1, `${path}.${k}`, limits);
    if (r) return r;
  }
  return null;
}

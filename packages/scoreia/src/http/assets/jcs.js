/**
 * RFC 8785 (JCS) canonical JSON for the browser: the same output as the server's canonicalJson
 * (evidence/jcs.ts), refusing the same inputs (lone surrogates, non-finite numbers, non-JSON
 * values). Object keys sort by UTF-16 code units (Array.prototype.sort's default order);
 * numbers and strings use ECMAScript's JSON serialization, which RFC 8785 adopts.
 */
export function canonicalize(value) {
  return serialize(value, "$");
}

function serialize(v, path) {
  if (v === null) return "null";
  switch (typeof v) {
    case "boolean":
      return v ? "true" : "false";
    case "number":
      if (!Number.isFinite(v)) throw new Error(`${path}: number ${v} is not finite`);
      return JSON.stringify(v);
    case "string":
      if (!v.isWellFormed()) throw new Error(`${path}: string has a lone surrogate`);
      return JSON.stringify(v);
    case "object": {
      if (Array.isArray(v)) return `[${v.map((x, i) => serialize(x, `${path}[${i}]`)).join(",")}]`;
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) throw new Error(`${path}: not a JSON value`);
      const keys = Object.keys(v).sort();
      const parts = keys.map((k) => {
        if (!k.isWellFormed()) throw new Error(`${path}: key has a lone surrogate`);
        return `${JSON.stringify(k)}:${serialize(v[k], `${path}.${k}`)}`;
      });
      return `{${parts.join(",")}}`;
    }
    default:
      throw new Error(`${path}: ${typeof v} is not a JSON value`);
  }
}

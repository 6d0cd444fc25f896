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

/**
 * The first member name that occurs twice in one object of the valid JSON `text` (compared after
 * unescaping), or null (docs/evidence-0.2.md §1.1): JSON.parse keeps the last of two `"verdict"`
 * members while another parser keeps the first, so such a proof is refused, never read. The text
 * is valid JSON first (JSON.parse decides); this scan only follows strings and nesting.
 */
export function firstDuplicate(text) {
  const frames = []; // one per open container: the names seen (object) or null (array)
  let nameNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const top = frames[frames.length - 1];
      if (nameNext && top) {
        const name = JSON.parse(text.slice(i, j + 1));
        if (top.has(name)) return name;
        top.add(name);
      }
      nameNext = false;
      i = j;
    } else if (c === "{") {
      frames.push(new Set());
      nameNext = true;
    } else if (c === "[") {
      frames.push(null);
      nameNext = false;
    } else if (c === "}" || c === "]") {
      frames.pop();
      nameNext = false;
    } else if (c === ",") {
      nameNext = frames[frames.length - 1] instanceof Set;
    }
  }
  return null;
}

/** JSON.parse that throws on a duplicated member name (the error's `code` is `duplicate_member`). */
export function parseStrictJson(text) {
  const value = JSON.parse(text);
  const dup = firstDuplicate(text);
  if (dup !== null) {
    const e = new Error(`duplicate member name ${JSON.stringify(dup).slice(0, 80)}: a document with one is refused`);
    e.code = "duplicate_member";
    throw e;
  }
  return value;
}

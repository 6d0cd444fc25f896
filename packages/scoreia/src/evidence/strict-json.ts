/**
 * JSON.parse that refuses duplicated member names (docs/evidence-0.2.md §1.1). JSON.parse keeps
 * the last of two `"verdict"` members while another parser may keep the first, so a proof with a
 * duplicate could verify here and read differently elsewhere: verifiers refuse it outright.
 * The text must first be valid JSON (JSON.parse decides); this scan then only tracks strings and
 * nesting, so it needs no grammar of its own.
 */

export class DuplicateMemberError extends Error {
  constructor(readonly member: string) {
    super(`duplicate member name ${JSON.stringify(member).slice(0, 80)}: a document with one is refused`);
    this.name = "DuplicateMemberError";
  }
}

/**
 * The first duplicated member name in valid JSON `text`, or null. Strings are skipped with
 * indexOf (most of a proof's bytes are inside strings: hashes, markers, observations), and a
 * member name is decoded by JSON.parse only when it holds an escape.
 */
export function firstDuplicate(text: string): string | null {
  // One frame per open container: the member names seen (objects) or null (arrays).
  const stack: Array<Set<string> | null> = [];
  // In an object, the next string is a member name when it follows `{` or `,`.
  let expectName = false;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // The closing quote: the next one not escaped (preceded by an even run of backslashes).
      let j = text.indexOf('"', i + 1);
      for (;;) {
        let k = j - 1;
        while (text.charCodeAt(k) === 0x5c /* \ */) k--;
        if ((j - 1 - k) % 2 === 0) break;
        j = text.indexOf('"', j + 1);
      }
      const top = stack[stack.length - 1];
      if (expectName && top) {
        const raw = text.slice(i + 1, j);
        const name = raw.includes("\\") ? (JSON.parse(text.slice(i, j + 1)) as string) : raw;
        if (top.has(name)) return name;
        top.add(name);
      }
      expectName = false;
      i = j;
    } else if (c === 0x7b /* { */) {
      stack.push(new Set());
      expectName = true;
    } else if (c === 0x5b /* [ */) {
      stack.push(null);
      expectName = false;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      expectName = false;
    } else if (c === 0x2c /* , */) {
      expectName = stack[stack.length - 1] instanceof Set;
    }
  }
  return null;
}

export function parseStrictJson(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  const dup = firstDuplicate(text);
  if (dup !== null) throw new DuplicateMemberError(dup);
  return value;
}

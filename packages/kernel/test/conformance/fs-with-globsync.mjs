// The builtin `fs`, re-exported whole, plus a small `globSync` (Node 22's signature, the subset
// the conformance CLI uses: string or string[] patterns, `cwd`, `exclude` as a function; results
// are paths relative to cwd, with `/` separators). Supports `**`, `*`, `?` and `{a,b}`.
import fs from "node:fs";
import path from "node:path";

export * from "node:fs";

function globToRegExp(glob) {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === "*") {
      if (glob[i + 1] === "*") {
        // `**/` matches zero or more directories; a trailing `**` matches anything.
        if (glob[i + 2] === "/") {
          re += "(?:.*/)?";
          i += 2;
        } else {
          re += ".*";
          i += 1;
        }
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else if (c === "{") {
      const end = glob.indexOf("}", i);
      if (end < 0) re += "\\{";
      else {
        const alts = glob.slice(i + 1, end).split(",");
        re += `(?:${alts.map((a) => globToRegExp(a).source.slice(1, -1)).join("|")})`;
        i = end;
      }
    } else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

export function globSync(pattern, options = {}) {
  const cwd = options.cwd ? String(options.cwd) : process.cwd();
  const patterns = (Array.isArray(pattern) ? pattern : [pattern]).map((p) => globToRegExp(p.replace(/\\/g, "/")));
  const exclude = typeof options.exclude === "function" ? options.exclude : () => false;
  let entries;
  try {
    entries = fs.readdirSync(cwd, { recursive: true });
  } catch {
    return [];
  }
  return entries
    .map((e) => String(e).split(path.sep).join("/"))
    .filter((rel) => patterns.some((re) => re.test(rel)) && !exclude(rel))
    .map((rel) => rel.split("/").join(path.sep));
}

if (typeof fs.globSync !== "function") fs.globSync = globSync;

export default fs;

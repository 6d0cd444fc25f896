import type { Module } from "./module.ts";

/**
 * Tool profiles (issue 14 §5): a host that carries only some tools names them, by category
 * (a module name: `tasks`, `graph`, …) or by tool name, e.g. `--tools tasks,session_save`.
 * tools/list then shows only those, and a call to any other is an unknown tool (-32602).
 * `all` names every tool. An unknown word is refused with the list of valid ones (a typo must
 * never silently hide or widen the tool list).
 */
export type ToolProfile = ReadonlySet<string>;

export class ProfileError extends Error {}

export function parseProfile(words: readonly string[], modules: readonly Module[], where = "--tools"): ToolProfile {
  const categories = new Map(
    modules.filter((m) => m.tools.length > 0).map((m) => [m.name, m.tools.map((t) => t.name)]),
  );
  const names = new Set(modules.flatMap((m) => m.tools.map((t) => t.name)));
  const out = new Set<string>();
  const items = words.flatMap((w) => w.split(",")).map((w) => w.trim());
  if (items.length === 0 || items.every((w) => w === "")) throw new ProfileError(`${where} names no tools`);
  for (const w of items) {
    if (w === "") continue;
    if (w === "all") for (const n of names) out.add(n);
    else if (categories.has(w)) for (const n of categories.get(w) as string[]) out.add(n);
    else if (names.has(w)) out.add(w);
    else {
      throw new ProfileError(
        `${where}: unknown category or tool ${JSON.stringify(w)} (categories: all, ${[...categories.keys()].join(", ")}; or any tool name)`,
      );
    }
  }
  return out;
}

/** The tools both profiles allow (either may be absent: no restriction). */
export function intersect(a: ToolProfile | undefined, b: ToolProfile | undefined): ToolProfile | undefined {
  if (!a) return b;
  if (!b) return a;
  return new Set([...a].filter((n) => b.has(n)));
}

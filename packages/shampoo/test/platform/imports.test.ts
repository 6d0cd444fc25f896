import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { MODULES } from "../../src/modules.ts";

/**
 * The import graph of SHAMPOO's sources (issue 14 §4: the cross-domain cycles gone). Every
 * import counts, type-only ones and re-exports included: a type cycle is still a design cycle.
 * - No cycle between domains: a module adds behaviour to another through an extension point
 *   (platform/extend.ts), never by importing it.
 * - A domain imports another only if its module declares it in `dependsOn` (the migration order
 *   follows the same list).
 * - Nothing outside src/domains imports a domain but the composition roots: modules.ts (the
 *   server reaches a module's start and close work through its definition: opened / closing)
 *   and cli.ts (the graph's import/export commands); the shared layer names no domain.
 */

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");
const ROOTS = new Set(["modules.ts", "cli.ts"]);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
}

interface Edge {
  from: string;
  to: string;
}

/** Every relative import of every source file, as paths relative to src/ ("/" separated). */
function importEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const file of sources(SRC)) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
    for (const { fileName } of info.importedFiles) {
      if (!fileName.startsWith(".")) continue;
      const target = resolve(dirname(file), fileName);
      edges.push({ from: rel(file), to: rel(target) });
    }
  }
  return edges;
}

const rel = (p: string) => relative(SRC, p).split(sep).join("/");
const domainOf = (p: string) => (p.startsWith("domains/") ? (p.split("/")[1] as string) : null);

/** The cycles of a directed graph, each as a closed path (first = last); empty when acyclic. */
function cyclesOf(graph: Map<string, Set<string>>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (n: string) => {
    state.set(n, "open");
    path.push(n);
    for (const m of [...(graph.get(n) ?? [])].sort()) {
      if (state.get(m) === "open") cycles.push([...path.slice(path.indexOf(m)), m]);
      else if (!state.has(m)) visit(m);
    }
    path.pop();
    state.set(n, "done");
  };
  for (const n of [...graph.keys()].sort()) if (!state.has(n)) visit(n);
  return cycles;
}

describe("import graph of src/", () => {
  const edges = importEdges();
  const between = edges
    .map((e) => ({ ...e, a: domainOf(e.from), b: domainOf(e.to) }))
    .filter((e): e is Edge & { a: string; b: string } => e.a !== null && e.b !== null && e.a !== e.b);
  const graph = new Map<string, Set<string>>();
  for (const e of between) {
    const out = graph.get(e.a) ?? new Set<string>();
    out.add(e.b);
    graph.set(e.a, out);
  }
  const example = (a: string, b: string) => between.find((e) => e.a === a && e.b === b);

  it("the cycle finder finds a cycle, and the parser sees the imports it must judge", () => {
    const g = new Map([
      ["a", new Set(["b"])],
      ["b", new Set(["c"])],
      ["c", new Set(["a"])],
      ["d", new Set(["a"])],
    ]);
    expect(cyclesOf(g)).toEqual([["a", "b", "c", "a"]]);
    expect(cyclesOf(new Map([["a", new Set(["b"])]]))).toEqual([]);
    // links builds on tasks and graph: the parser must see those edges (type imports included).
    expect([...(graph.get("links") ?? [])].sort()).toEqual(expect.arrayContaining(["graph", "tasks"]));
  });

  it("no cycle between domains (type-only imports and re-exports count)", () => {
    const cycles = cyclesOf(graph).map((c) =>
      c
        .slice(1)
        .map((to, i) => {
          const from = c[i] as string;
          const e = example(from, to);
          return `${from} -> ${to} (${e?.from} imports ${e?.to})`;
        })
        .join("; "),
    );
    expect(cycles).toEqual([]);
  });

  it("a domain imports only the modules its definition depends on", () => {
    const declared = new Map(MODULES.map((m) => [m.name, new Set(m.dependsOn)]));
    const undeclared = between
      .filter((e) => !(declared.get(e.a)?.has(e.b) ?? false))
      .map((e) => `${e.from} imports ${e.to}, but module ${e.a} does not depend on ${e.b}`);
    expect([...new Set(undeclared)]).toEqual([]);
  });

  it("nothing outside the domains imports one but the composition roots", () => {
    const leaks = edges
      .filter((e) => domainOf(e.from) === null && domainOf(e.to) !== null && !ROOTS.has(e.from))
      .map((e) => `${e.from} imports ${e.to}`);
    expect(leaks).toEqual([]);
  });
});

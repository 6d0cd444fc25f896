/**
 * Extension points: how one module adds behaviour to another without the two importing each
 * other. The module that offers the point defines it (`defineExtensionPoint`) and reads what was
 * contributed (`point.all()`); a module that builds on it lists a contribution in its definition
 * (`contributes: [point.contribute(fn)]`). modules.ts installs the contributions of the one module
 * list, in module order, exactly as it derives the tool list and the migration order from it.
 *
 * Example: tasks fires `tasksWritten` inside every task write; links contributes its link
 * discovery to it. tasks never imports links, and without the links module task writes simply
 * discover nothing.
 */

export interface Contribution<T> {
  point: ExtensionPoint<T>;
  value: T;
}

export interface ExtensionPoint<T> {
  /** `<module>.<what>`, unique. */
  readonly name: string;
  /** What the installed modules contributed, in module order (empty if none contributed). */
  all(): readonly T[];
  /** A contribution to list in a module definition's `contributes`. */
  contribute(value: T): Contribution<T>;
}

const POINT_NAME = /^[a-z][a-z0-9_]*\.[a-z][a-zA-Z0-9_]*$/;
const points = new Map<string, ExtensionPointImpl<unknown>>();
let installed: string | null = null;

class ExtensionPointImpl<T> implements ExtensionPoint<T> {
  values: T[] = [];
  constructor(readonly name: string) {}
  all(): readonly T[] {
    // Reading a point before any module list is installed would silently skip every
    // contribution (a task write that discovers no link): refuse instead.
    if (installed === null)
      throw new Error(`extension point ${this.name} read before the modules were installed (import src/modules.ts)`);
    return this.values;
  }
  contribute(value: T): Contribution<T> {
    return { point: this, value };
  }
}

export function defineExtensionPoint<T>(name: string): ExtensionPoint<T> {
  if (!POINT_NAME.test(name)) throw new Error(`extension point ${JSON.stringify(name)}: use <module>.<what>`);
  if (points.has(name)) throw new Error(`extension point ${name} is defined twice`);
  const p = new ExtensionPointImpl<T>(name);
  points.set(name, p as ExtensionPointImpl<unknown>);
  return p;
}

/**
 * Makes the contributions of `modules` (already in module order) the ones every point answers,
 * replacing whatever was installed before. `label` names the list in errors.
 */
export function installContributions(
  modules: readonly { name: string; contributes?: readonly Contribution<unknown>[] }[],
  label = "modules",
): void {
  for (const p of points.values()) p.values = [];
  for (const m of modules) {
    for (const c of m.contributes ?? []) {
      const p = points.get(c.point.name);
      if (!p || p !== c.point) throw new Error(`${m.name} contributes to an unknown extension point ${c.point.name}`);
      p.values.push(c.value);
    }
  }
  installed = label;
}

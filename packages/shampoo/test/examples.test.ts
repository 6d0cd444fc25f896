/**
 * Every tool's `examples` (its definition, src/domains/<area>/tools/<tool>.ts) are calls that
 * must work: the e2e suite makes them over every transport (test/e2e/support.ts). This fast check
 * needs no database and no binary: each tool has examples, each example names only known fixture
 * keys, and each, filled with dummy values, passes the registry's own limits and input validation
 * (the same ToolRegistry and Ajv the server uses; the handler is never reached).
 */
import { DomainError, type Rejection, ToolRegistry } from "kernel";
import { describe, expect, it } from "vitest";
import { LIMITS, TOOLS } from "../src/app.ts";
import type { ShampooCtx } from "../src/context.ts";
import { FIXTURE_KEYS } from "../src/modules.ts";
import type { FixtureValues } from "../src/platform/module.ts";
import { fillExample, fx, placeholdersOf, type ShampooTool } from "../src/tooling.ts";

/** A dummy per key: a UUID-shaped value for ids, a plain word for names. */
const DUMMY: FixtureValues = Object.fromEntries(
  FIXTURE_KEYS.map((k, i) => [k, `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`]),
);

/**
 * How the registry answers `args` for `name` before any handler runs: "limit" or "schema" for a
 * refusal, "valid" when the input passed (the context, awaited right after validation, refuses
 * with a sentinel so nothing runs).
 */
async function verdict(name: string, args: unknown): Promise<{ kind: string; detail: string }> {
  let seen: Rejection | undefined;
  const registry = new ToolRegistry<ShampooCtx>({
    tools: TOOLS,
    limits: LIMITS,
    // The placeholder result of formatRejection below is not a tool's output.
    validateOutput: false,
    formatRejection: (_t: ShampooTool, r) => {
      seen = r;
      return { structuredContent: {}, isError: true };
    },
  });
  const sentinel = Promise.reject(new DomainError("example_valid", "input validated"));
  await registry.call(name, args, sentinel);
  if (!seen) throw new Error(`${name}: the handler ran`);
  if (seen.kind === "error" && seen.error.code === "example_valid") return { kind: "valid", detail: "" };
  const detail =
    seen.kind === "schema"
      ? JSON.stringify(seen.errors)
      : seen.kind === "limit"
        ? seen.violation.message
        : seen.error.message;
  return { kind: seen.kind, detail };
}

describe("tool examples", () => {
  it("every registered tool has at least one example with a title", () => {
    expect(TOOLS.filter((t) => !t.examples?.length).map((t) => t.name)).toEqual([]);
    for (const t of TOOLS) for (const e of t.examples ?? []) expect(e.title, t.name).toMatch(/\S/);
  });

  it("placeholders name known fixture keys only", () => {
    const unknown = TOOLS.flatMap((t) =>
      (t.examples ?? []).flatMap((e) =>
        placeholdersOf(e.input)
          .filter((k) => !FIXTURE_KEYS.includes(k))
          .map((k) => `${t.name}: ${k}`),
      ),
    );
    expect(unknown).toEqual([]);
  });

  it("every example, filled with dummy values, validates against its tool's inputSchema", async () => {
    const failures: string[] = [];
    for (const t of TOOLS) {
      for (const e of t.examples ?? []) {
        const args = fillExample(e.input, DUMMY, FIXTURE_KEYS);
        expect(placeholdersOf(args), `${t.name} (${e.title}) has no placeholder left`).toEqual([]);
        const v = await verdict(t.name, args);
        if (v.kind !== "valid") failures.push(`${t.name} (${e.title}): ${v.kind} ${v.detail}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("the check itself refuses an example that breaks the schema (an unknown argument)", async () => {
    const tool = TOOLS.find((t) => t.name === "assign_task") as ShampooTool;
    const args = { ...fillExample((tool.examples ?? [])[0]?.input, DUMMY, FIXTURE_KEYS), colour: "blue" };
    expect(await verdict("assign_task", args)).toMatchObject({ kind: "schema" });
  });
});

describe("fillExample", () => {
  const fixture: FixtureValues = { taskId: "t-1", project: "p" };

  it("replaces placeholders anywhere inside strings, arrays and objects, leaving other values", () => {
    const example = { task_id: fx("taskId"), names: [`e2e ${fx("project")} x`], n: 3, ok: true, none: null };
    expect(fillExample(example, fixture, FIXTURE_KEYS)).toEqual({
      task_id: "t-1",
      names: ["e2e p x"],
      n: 3,
      ok: true,
      none: null,
    });
    expect(example.task_id).toBe("{{fixture:taskId}}");
  });

  it("fails loudly on a key the fixture does not hold, naming it", () => {
    expect(() => fillExample({ session_id: fx("sessionId") }, fixture, FIXTURE_KEYS)).toThrow(/fixture\.sessionId/);
  });

  it("fails loudly on an unknown key, naming it", () => {
    expect(() => fillExample({ id: fx("nope") }, fixture, FIXTURE_KEYS)).toThrow(/unknown fixture key "nope"/);
    expect(placeholdersOf({ a: ["{{fixture:nope}}", fx("taskId")] })).toEqual(["nope", "taskId"]);
  });
});

describe("fixture keys come from the modules", () => {
  it("every key is made by exactly one module's fixture step, and project is always there", () => {
    expect(FIXTURE_KEYS[0]).toBe("project");
    expect(new Set(FIXTURE_KEYS).size).toBe(FIXTURE_KEYS.length);
    expect(FIXTURE_KEYS).toEqual(expect.arrayContaining(["taskId", "sessionId", "entity", "chunkId", "runApply"]));
  });
});

describe("no argument is accepted and silently dropped", () => {
  /** Words that say a property is taken and ignored. */
  const IGNORED = /\b(unused|accepted but|not stored|(is|are) ignored|no effect)\b/i;

  it("no tool's input property is documented as accepted and ignored: each is honoured or refused", () => {
    const walk = (schema: unknown, path: string, out: string[]): void => {
      if (!schema || typeof schema !== "object") return;
      const s = schema as { description?: unknown; properties?: Record<string, unknown>; items?: unknown };
      if (typeof s.description === "string" && IGNORED.test(s.description)) out.push(`${path}: ${s.description}`);
      for (const [k, v] of Object.entries(s.properties ?? {})) walk(v, `${path}.${k}`, out);
      if (s.items) walk(s.items, `${path}[]`, out);
    };
    const found: string[] = [];
    for (const t of TOOLS) walk(t.inputSchema, t.name, found);
    expect(found).toEqual([]);
    // and the tool descriptions do not say it either
    expect(TOOLS.filter((t) => IGNORED.test(t.description)).map((t) => t.name)).toEqual([]);
  });
});

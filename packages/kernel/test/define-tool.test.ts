import { describe, expect, it } from "vitest";
import { DomainError, ERRORS, errorSpec, errorTable } from "../src/errors.ts";
import { defineTool } from "../src/tools/define.ts";
import { type Rejection, type ToolOutput, ToolRegistry } from "../src/tools/registry.ts";

interface Ctx {
  role: "agent" | "conductor";
}

const seen: Array<{ n: number; label: string }> = [];
const bump = defineTool<{ n: number; label?: string }, Ctx>({
  name: "bump",
  description: "adds one",
  kind: "write",
  access: ["conductor"],
  inputSchema: {
    type: "object",
    additionalProperties: false,
    required: ["n"],
    properties: { n: { type: "integer" }, label: { type: "string" } },
  },
  examples: [{ title: "one", input: { n: 1 }, expect: { n: 2 } }],
  // `a` is typed: a.n is a number here, no cast.
  handler: async (a) => {
    seen.push({ n: a.n, label: a.label ?? "" });
    return { structuredContent: { n: a.n + 1 } };
  },
});
const look = defineTool<Record<string, never>, Ctx>({
  name: "look",
  description: "reads",
  kind: "read",
  inputSchema: { type: "object", additionalProperties: false, properties: {} },
  handler: async () => ({ structuredContent: { ok: true } }),
});

const format = (_t: unknown, r: Rejection): ToolOutput => ({
  structuredContent: { code: r.kind === "error" ? r.error.code : r.kind },
  isError: true,
});
const registry = new ToolRegistry<Ctx>({
  tools: [bump, look],
  limits: { maxRequestBytes: 10_000, maxJsonDepth: 8, maxArrayItems: 10 },
  formatRejection: format,
  authorize: (def, ctx) => {
    if (def.access && !def.access.includes(ctx.role)) throw new DomainError("forbidden", "no");
  },
});

describe("defineTool", () => {
  it("derives the annotations from kind", () => {
    expect(bump.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: false,
    });
    expect(look.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });
    expect(defineTool({ ...look, name: "x", kind: "idempotent" }).annotations?.idempotentHint).toBe(true);
    expect(bump.examples).toEqual([{ title: "one", input: { n: 1 }, expect: { n: 2 } }]);
  });

  it("access is enforced by the pipeline, after the context resolves, before the handler", async () => {
    seen.length = 0;
    expect((await registry.call("bump", { n: 1 }, { role: "agent" })).structuredContent).toEqual({ code: "forbidden" });
    expect(seen).toEqual([]);
    expect(
      (await registry.call("bump", { n: 1 }, Promise.resolve({ role: "conductor" as const }))).structuredContent,
    ).toEqual({ n: 2 });
    expect(seen).toEqual([{ n: 1, label: "" }]);
  });

  it("asynchronous caller resolution: awaited after validation; a failed resolution is this call's error", async () => {
    let resolved = 0;
    const lazy = () => new Promise<Ctx>((r) => setTimeout(() => r({ role: "conductor" }), 5)).finally(() => resolved++);
    const bad = await registry.call("bump", { n: "x" }, lazy());
    expect(bad.structuredContent).toEqual({ code: "schema" });
    const failed = await registry.call("look", {}, Promise.reject(new DomainError("not_found", "session not found")));
    expect(failed).toEqual({ structuredContent: { code: "not_found" }, isError: true });
    expect(resolved).toBeLessThanOrEqual(1);
  });
});

describe("the error table", () => {
  it("gives each code its MCP form, HTTP status and retryability; unknown codes are non-retryable 400 results", () => {
    expect(errorSpec("unknown_tool")).toEqual({ mcp: "protocol", jsonRpc: -32602, http: 404, retryable: false });
    expect(errorSpec("busy")).toMatchObject({ http: 503, retryable: true });
    expect(errorSpec("state_conflict")).toMatchObject({ mcp: "result", http: 409, retryable: false });
    expect(errorSpec("no_such_code")).toEqual({ mcp: "result", http: 400, retryable: false });
    const t = errorTable({ seal_pending: { mcp: "result", http: 202, retryable: true } });
    expect(errorSpec("seal_pending", t).retryable).toBe(true);
    expect(() => errorTable({ busy: ERRORS.busy })).toThrow("error code busy is already in the kernel table");
  });
});

import { describe, expect, it } from "vitest";
import { DomainError } from "../src/errors.ts";
import { OutputSchemaError, ToolRegistry, UnknownToolError } from "../src/tools/registry.ts";
import { directSession, type FakeCtx, LIMITS, makeFixture } from "./fixtures.ts";

const ctx = (): FakeCtx => ({ session: directSession() });

describe("ToolRegistry: names", () => {
  it("throws UnknownToolError for a name that is neither a tool nor an alias", async () => {
    const f = makeFixture();
    const err = await f.registry.call("no_such_tool", {}, ctx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownToolError);
    expect((err as UnknownToolError).toolName).toBe("no_such_tool");
    expect(f.rejections).toEqual([]);
  });

  it("routes an alias to its target without listing it", async () => {
    const f = makeFixture();
    const out = await f.registry.call("say", { text: "hi" }, ctx());
    expect(out.structuredContent).toEqual({ ok: true, result: "hi" });
    expect(f.calls.echo).toBe(1);
    expect(f.aliasCalls).toEqual([{ alias: "say", target: "echo" }]);
    expect(f.registry.list().map((t) => t.name)).not.toContain("say");
    expect(f.registry.list().map((t) => t.name)).toContain("echo");
    expect(f.registry.has("say")).toBe(true);
  });

  it("does not consult resolveAlias for canonical names", async () => {
    const f = makeFixture({ refuseAlias: true });
    await f.registry.call("echo", { text: "hi" }, ctx());
    expect(f.aliasCalls).toEqual([]);
  });

  it("lets resolveAlias refuse the call: the product's error envelope, handler not run", async () => {
    const f = makeFixture({ refuseAlias: true });
    const out = await f.registry.call("say", { text: "hi" }, ctx());
    expect(out.isError).toBe(true);
    expect(out.structuredContent).toMatchObject({ ok: false, code: "alias_retired" });
    expect(f.calls.echo).toBeUndefined();
  });

  it("compiles named tools' validators ahead of their first call; an unknown name is refused", async () => {
    const f = makeFixture();
    expect(() => f.registry.compile(["echo", "say"])).not.toThrow();
    expect(() => f.registry.compile(["echo", "no_such_tool"])).toThrow(UnknownToolError);
    const out = await f.registry.call("echo", { text: "hi" }, ctx());
    expect(out.structuredContent).toEqual({ ok: true, result: "hi" });
    // The precompiled validator is the one in use: unknown arguments are still refused.
    const bad = await f.registry.call("echo", { text: "hi", extra: 1 }, ctx());
    expect(bad.isError).toBe(true);
    expect(f.rejections).toHaveLength(1);
    expect(f.calls.echo).toBe(1);
  });

  it("refuses duplicate tools and aliases to unknown targets at construction", () => {
    const { registry } = makeFixture();
    const [echo] = registry.list();
    const base = { limits: LIMITS, formatRejection: () => ({ structuredContent: {} }) };
    expect(() => new ToolRegistry({ ...base, tools: [echo!, echo!] })).toThrow(/duplicate tool echo/);
    expect(() => new ToolRegistry({ ...base, tools: [echo!], aliases: { old: "gone" } })).toThrow(/unknown tool gone/);
  });
});

describe("ToolRegistry: the way in (limits → schema → handler)", () => {
  it("checks limits before the schema", async () => {
    const f = makeFixture();
    // Both too many items and schema-invalid (strings where integers are expected, an extra key).
    const out = await f.registry.call("echo", { text: "x", items: ["a", "b", "c", "d", "e", "f"], extra: 1 }, ctx());
    expect(f.rejections).toHaveLength(1);
    expect(f.rejections[0]).toMatchObject({ kind: "limit", violation: { limit: "max_array_items" } });
    expect(out.structuredContent.message).toContain("$.items");
    expect(f.calls.echo).toBeUndefined();
  });

  it("enforces each limit on the arguments", async () => {
    const f = makeFixture();
    let deep: unknown = {};
    for (let i = 0; i < LIMITS.maxJsonDepth; i++) deep = { a: deep };
    await f.registry.call("echo", { text: "x", nested: deep }, ctx());
    await f.registry.call("echo", { text: "x".repeat(LIMITS.maxRequestBytes) }, ctx());
    expect(f.rejections.map((r) => (r.kind === "limit" ? r.violation.limit : r.kind))).toEqual([
      "max_json_depth",
      "max_request_bytes",
    ]);
    expect(f.calls.echo).toBeUndefined();
  });

  it("rejects unknown arguments through formatRejection, without running the handler", async () => {
    const f = makeFixture();
    const out = await f.registry.call("echo", { text: "hi", surprise: true }, ctx());
    expect(out.isError).toBe(true);
    expect(f.rejections).toHaveLength(1);
    const r = f.rejections[0]!;
    expect(r.kind).toBe("schema");
    if (r.kind !== "schema") return;
    expect(r.errors).toContainEqual(
      expect.objectContaining({ keyword: "additionalProperties", params: { additionalProperty: "surprise" } }),
    );
    expect(f.calls.echo).toBeUndefined();
  });

  it("rejects wrong types and missing required arguments, reporting every error", async () => {
    const f = makeFixture();
    await f.registry.call("echo", { items: [1, "two"] }, ctx());
    const r = f.rejections[0]!;
    expect(r.kind).toBe("schema");
    if (r.kind !== "schema") return;
    const found = r.errors.map((e) => `${e.keyword}@${e.instancePath}`);
    expect(found).toContain("required@");
    expect(found).toContain("type@/items/1");
    expect(f.calls.echo).toBeUndefined();
  });

  it("treats missing arguments as an empty object (so required fields are reported)", async () => {
    const f = makeFixture();
    const out = await f.registry.call("echo", undefined, ctx());
    expect(out.structuredContent).toMatchObject({ ok: false, code: "invalid_arguments" });
    expect(f.calls.echo).toBeUndefined();
  });

  it("runs the handler once for valid arguments", async () => {
    const f = makeFixture();
    const out = await f.registry.call("echo", { text: "hi", items: [1, 2, 3, 4, 5], nested: { a: { b: {} } } }, ctx());
    expect(out).toEqual({ structuredContent: { ok: true, result: "hi" } });
    expect(f.calls.echo).toBe(1);
    expect(f.rejections).toEqual([]);
  });
});

describe("ToolRegistry: failures", () => {
  it("turns a DomainError into formatRejection kind 'error'", async () => {
    const f = makeFixture();
    const out = await f.registry.call("fail_domain", {}, ctx());
    expect(f.rejections).toHaveLength(1);
    const r = f.rejections[0]!;
    expect(r.kind).toBe("error");
    if (r.kind !== "error") return;
    expect(r.error).toBeInstanceOf(DomainError);
    expect(r.error.code).toBe("not_allowed");
    expect(r.error.extra).toEqual({ retryable: false });
    expect(out).toEqual({
      structuredContent: { ok: false, code: "not_allowed", message: "this room is closed" },
      isError: true,
    });
    expect(f.internalErrors).toEqual([]);
  });

  it("turns an unexpected Error into internal_error without leaking the handler's message", async () => {
    const f = makeFixture();
    const out = await f.registry.call("fail_internal", {}, ctx());
    expect(out.isError).toBe(true);
    expect(out.structuredContent).toMatchObject({ ok: false, code: "internal_error" });
    expect(JSON.stringify(out)).not.toContain("hunter2");
    const r = f.rejections[0]!;
    expect(r.kind === "error" && r.error.code).toBe("internal_error");
    expect(r.kind === "error" && r.error.message).not.toContain("hunter2");
    // The operator still gets the real cause, out of band.
    expect(f.internalErrors).toHaveLength(1);
    expect(f.internalErrors[0]!.tool).toBe("fail_internal");
    expect(String(f.internalErrors[0]!.error)).toContain("hunter2");
  });
});

describe("ToolRegistry: output validation", () => {
  it("throws OutputSchemaError when a handler's result violates the then-branch of if/then/else", async () => {
    const f = makeFixture();
    const err = await f.registry.call("bad_output", {}, ctx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutputSchemaError);
    expect((err as OutputSchemaError).toolName).toBe("bad_output");
    expect((err as OutputSchemaError).errors).toContainEqual(
      expect.objectContaining({ keyword: "required", params: { missingProperty: "result" } }),
    );
  });

  it("honours the else-branch too: a failure without code/message is refused", async () => {
    const f = makeFixture();
    const err = await f.registry.call("bad_failure", {}, ctx()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutputSchemaError);
    expect((err as OutputSchemaError).errors.map((e) => e.params)).toEqual(
      expect.arrayContaining([{ missingProperty: "code" }, { missingProperty: "message" }]),
    );
  });

  it("accepts results that satisfy whichever branch applies", async () => {
    const f = makeFixture();
    // then-branch (ok:true with result) and else-branch (the rejection envelope) both validate.
    const ok = await f.registry.call("echo", { text: "hi" }, ctx());
    expect(ok).not.toHaveProperty("isError");
    const refused = await f.registry.call("fail_domain", {}, ctx());
    expect(refused.isError).toBe(true);
  });

  it("can be switched off", async () => {
    const f = makeFixture({ validateOutput: false });
    await expect(f.registry.call("bad_output", {}, ctx())).resolves.toEqual({ structuredContent: { ok: true } });
  });
});

import { DomainError } from "../src/errors.ts";
import type { Limits } from "../src/limits.ts";
import type { McpServerOptions, SessionInfo } from "../src/server.ts";
import {
  type JsonSchema,
  type RegistryOptions,
  type Rejection,
  type ToolDef,
  ToolRegistry,
} from "../src/tools/registry.ts";

/**
 * A tiny product on the kernel, for the kernel's own tests: a handful of tools whose handlers
 * count their calls, an error envelope whose outputSchema uses 2020-12 if/then/else, and a
 * formatRejection that records what it was given.
 */
export interface FakeCtx {
  session: SessionInfo;
}

export const LIMITS: Limits = { maxRequestBytes: 2048, maxJsonDepth: 4, maxArrayItems: 5 };

/** ok:true requires `result`; ok:false requires `code` and `message` (2020-12 if/then/else). */
export const ENVELOPE: JsonSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  properties: {
    ok: { type: "boolean" },
    result: {},
    code: { type: "string" },
    message: { type: "string" },
  },
  required: ["ok"],
  if: { properties: { ok: { const: true } } },
  // biome-ignore lint/suspicious/noThenProperty: the JSON Schema 2020-12 keyword under test
  then: { required: ["result"] },
  else: { required: ["code", "message"] },
};

export const ECHO_INPUT: JsonSchema = {
  type: "object",
  properties: {
    text: { type: "string", description: "what to echo" },
    items: { type: "array", items: { type: "integer" } },
    nested: { type: "object" },
  },
  required: ["text"],
  additionalProperties: false,
};

const NO_ARGS: JsonSchema = { type: "object", properties: {}, additionalProperties: false };

export interface Fixture {
  registry: ToolRegistry<FakeCtx>;
  /** Handler invocations per tool name. */
  calls: Record<string, number>;
  rejections: Rejection[];
  internalErrors: { tool: string; error: unknown }[];
  /** What resolveAlias saw. */
  aliasCalls: { alias: string; target: string }[];
  /** Sessions seen by `context` (one per tools/call). */
  sessions: SessionInfo[];
  mcp: McpServerOptions<FakeCtx>;
}

export interface FixtureOptions {
  refuseAlias?: boolean;
  validateOutput?: boolean;
  limits?: Limits;
}

export function makeFixture(opts: FixtureOptions = {}): Fixture {
  const calls: Record<string, number> = {};
  const rejections: Rejection[] = [];
  const internalErrors: Fixture["internalErrors"] = [];
  const aliasCalls: Fixture["aliasCalls"] = [];
  const sessions: SessionInfo[] = [];
  const count = (name: string) => {
    calls[name] = (calls[name] ?? 0) + 1;
  };

  const tools: ToolDef<FakeCtx>[] = [
    {
      name: "echo",
      title: "Echo",
      description: "Echoes its text back.",
      inputSchema: ECHO_INPUT,
      outputSchema: ENVELOPE,
      annotations: { readOnlyHint: true },
      async handler(args) {
        count("echo");
        return { structuredContent: { ok: true, result: args.text } };
      },
    },
    {
      name: "fail_domain",
      description: "Always refuses with a DomainError.",
      inputSchema: NO_ARGS,
      outputSchema: ENVELOPE,
      async handler() {
        count("fail_domain");
        throw new DomainError("not_allowed", "this room is closed", { retryable: false });
      },
    },
    {
      name: "fail_internal",
      description: "Always crashes.",
      inputSchema: NO_ARGS,
      outputSchema: ENVELOPE,
      async handler() {
        count("fail_internal");
        throw new Error("connection to postgres://admin:hunter2@db failed");
      },
    },
    {
      name: "bad_output",
      description: "Claims success without a result (violates the then-branch).",
      inputSchema: NO_ARGS,
      outputSchema: ENVELOPE,
      async handler() {
        count("bad_output");
        return { structuredContent: { ok: true } };
      },
    },
    {
      name: "bad_failure",
      description: "Reports a failure without code/message (violates the else-branch).",
      inputSchema: NO_ARGS,
      outputSchema: ENVELOPE,
      async handler() {
        count("bad_failure");
        return { structuredContent: { ok: false }, isError: true };
      },
    },
    {
      name: "whoami",
      description: "Reports what the context knows about the session.",
      inputSchema: NO_ARGS,
      async handler(_args, ctx) {
        count("whoami");
        return {
          structuredContent: {
            sessionId: ctx.session.sessionId,
            transport: ctx.session.transport,
            clientInfo: ctx.session.clientInfo() ?? null,
            meta: ctx.session.meta ?? null,
          },
        };
      },
    },
    {
      name: "log",
      description: "Sends one log notification per level given, then returns.",
      inputSchema: {
        type: "object",
        properties: {
          levels: { type: "array", items: { enum: ["debug", "info", "notice", "warning", "error"] } },
        },
        required: ["levels"],
        additionalProperties: false,
      },
      async handler(args, ctx) {
        count("log");
        const levels = args.levels as ("debug" | "info" | "notice" | "warning" | "error")[];
        for (const level of levels) await ctx.session.log(level, { said: level });
        return { structuredContent: { sent: levels.length } };
      },
    },
  ];

  const registryOptions: RegistryOptions<FakeCtx> = {
    tools,
    limits: opts.limits ?? LIMITS,
    aliases: { say: "echo" },
    resolveAlias(alias, target) {
      aliasCalls.push({ alias, target });
      if (opts.refuseAlias) throw new DomainError("alias_retired", `${alias} was retired; call ${target}`);
    },
    formatRejection(_tool, rejection) {
      rejections.push(rejection);
      const [code, message] =
        rejection.kind === "limit"
          ? [rejection.violation.limit, rejection.violation.message]
          : rejection.kind === "schema"
            ? ["invalid_arguments", rejection.errors.map((e) => `${e.instancePath} ${e.message}`).join("; ")]
            : [rejection.error.code, rejection.error.message];
      return { structuredContent: { ok: false, code, message }, isError: true };
    },
    onInternalError(tool, error) {
      internalErrors.push({ tool, error });
    },
    ...(opts.validateOutput === undefined ? {} : { validateOutput: opts.validateOutput }),
  };
  const registry = new ToolRegistry(registryOptions);

  return {
    registry,
    calls,
    rejections,
    internalErrors,
    aliasCalls,
    sessions,
    mcp: {
      name: "kernel-fixture",
      version: "0.0.1",
      instructions: "A fake product for kernel tests.",
      registry,
      context(session) {
        sessions.push(session);
        return { session };
      },
    },
  };
}

/** A SessionInfo for calling the registry directly (no MCP session). */
export function directSession(): SessionInfo {
  return { sessionId: "direct", transport: "memory", clientInfo: () => undefined, log: async () => {} };
}

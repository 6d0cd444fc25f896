import type { ErrorObject, ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { DomainError } from "../errors.ts";
import { checkLimits, type Limits, type LimitViolation } from "../limits.ts";
import { logger } from "../log.ts";
import { storeFault } from "../store/faults.ts";

const toolLog = logger("tools");

/** A JSON Schema object, published verbatim in tools/list. */
export type JsonSchema = Record<string, unknown>;

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What a handler returns: the structured result, and whether it is a tool-level failure. */
export interface ToolOutput {
  structuredContent: Record<string, unknown>;
  isError?: boolean;
  /** Text for the `content` block; defaults to the JSON of structuredContent. */
  text?: string;
}

/** read: changes nothing; write: changes something; idempotent: a write whose repeat changes nothing more. */
export type ToolKind = "read" | "write" | "idempotent";

/** A call that must work, with (a part of) what it answers: fed to the e2e suite and the docs. */
export interface ToolExample<Input = Record<string, unknown>> {
  title: string;
  input: Input;
  /** Fields the result must contain with these values (a subset match). */
  expect?: Record<string, unknown>;
}

/** A tool is data plus one function (build one with defineTool, define.ts). */
export interface ToolDef<Ctx> {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  kind?: ToolKind;
  /** Who may call it, in the product's words; enforced by the registry's `authorize`. */
  access?: readonly string[];
  examples?: ToolExample[];
  handler(args: Record<string, unknown>, ctx: Ctx): Promise<ToolOutput>;
}

/** Why a call was refused before its handler ran. */
export type Rejection =
  | { kind: "limit"; violation: LimitViolation }
  | { kind: "schema"; errors: ErrorObject[] }
  | { kind: "error"; error: DomainError };

export interface RegistryOptions<Ctx> {
  tools: ToolDef<Ctx>[];
  limits: Limits;
  /**
   * Names that reach a tool without being listed (legacy names). `resolveAlias` may refuse the
   * call by throwing a DomainError (e.g. after a cut-off date).
   */
  aliases?: Record<string, string>;
  resolveAlias?(alias: string, target: string, ctx: Ctx): void;
  /**
   * Enforces `access` after the context is resolved and before the handler runs: throw a
   * DomainError to refuse. Runs for every call, so a tool cannot forget it.
   */
  authorize?(tool: ToolDef<Ctx>, ctx: Ctx): void;
  /**
   * Tool profiles: may this context see and call the tool? A tool it may not is, for it, an
   * unknown tool (UnknownToolError → -32602), exactly as if it did not exist.
   */
  visible?(tool: ToolDef<Ctx>, ctx: Ctx): boolean;
  /** Turn a refused or failed call into this product's error envelope. */
  formatRejection(tool: ToolDef<Ctx>, rejection: Rejection): ToolOutput;
  /** Validate every result against the tool's outputSchema (default on; a few µs a call). */
  validateOutput?: boolean;
  /** Where unexpected failures are reported (default: stderr, never stdout, which stdio owns). */
  onInternalError?(toolName: string, error: unknown): void;
}

export class UnknownToolError extends Error {
  constructor(readonly toolName: string) {
    super(`Unknown tool: ${toolName}`);
    this.name = "UnknownToolError";
  }
}

export class OutputSchemaError extends Error {
  constructor(
    readonly toolName: string,
    readonly errors: ErrorObject[],
  ) {
    super(`${toolName} produced a result that violates its outputSchema: ${JSON.stringify(errors)}`);
    this.name = "OutputSchemaError";
  }
}

interface Compiled<Ctx> {
  def: ToolDef<Ctx>;
  /** The validators, compiled at a tool's first call (see the constructor). */
  input: () => ValidateFunction;
  output?: () => ValidateFunction;
}

/**
 * The one way in: limits → strict input validation against the published schema → handler →
 * output validation. Unknown names throw UnknownToolError (the MCP layer maps it to -32602).
 */
export class ToolRegistry<Ctx> {
  private readonly byName = new Map<string, Compiled<Ctx>>();
  private readonly aliases: Map<string, string>;
  private ajvInstance: Ajv2020 | undefined;

  /**
   * The validator compiler, created at the first validation: an Ajv instance compiles its
   * meta-schemas when constructed, which a start that answers `initialize` and `tools/list` does
   * not need. strict:false because the contract schemas carry keywords Ajv's strict mode flags
   * (e.g. maxLength next to type:["string","array"]); they are published verbatim.
   */
  private ajv(): Ajv2020 {
    this.ajvInstance ??= new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
    return this.ajvInstance;
  }

  constructor(private readonly opts: RegistryOptions<Ctx>) {
    for (const def of opts.tools) {
      if (this.byName.has(def.name)) throw new Error(`duplicate tool ${def.name}`);
      // Compiled on first use: compiling every tool's schemas at start was 41 % of the CPU of a
      // SHAMPOO start (3.6 of 8.7 s to `initialize`, profiled under load), and tools/list
      // publishes the schemas as written, so a start needs none of them.
      const lazy = (schema: JsonSchema) => {
        let fn: ValidateFunction | undefined;
        return () => (fn ??= this.ajv().compile(schema));
      };
      this.byName.set(def.name, {
        def,
        input: lazy(def.inputSchema),
        ...(def.outputSchema ? { output: lazy(def.outputSchema) } : {}),
      });
    }
    this.aliases = new Map(Object.entries(opts.aliases ?? {}));
    for (const [alias, target] of this.aliases) {
      if (!this.byName.has(target)) throw new Error(`alias ${alias} targets unknown tool ${target}`);
    }
  }

  /** Canonical tools only: aliases are never listed. */
  list(): ToolDef<Ctx>[] {
    return [...this.byName.values()].map((c) => c.def);
  }

  has(name: string): boolean {
    return this.byName.has(name) || this.aliases.has(name);
  }

  /**
   * Compiles the named tools' validators now instead of at their first call: for a process that
   * knows what it will call and wants that call's latency free of Ajv compilation (about 100 ms
   * for a write tool's first call; the crash test's writer, whose kill window starts at "ready").
   */
  compile(names: readonly string[]): void {
    for (const name of names) {
      const c = this.byName.get(this.aliases.get(name) ?? name);
      if (!c) throw new UnknownToolError(name);
      c.input();
      c.output?.();
    }
  }

  /**
   * `ctx` may be a promise (asynchronous caller resolution: a session looked up in the
   * database); it is awaited after limits and input validation, so a malformed call costs no
   * lookup, and a failed resolution is this call's error result.
   */
  async call(name: string, args: unknown, ctx: Ctx | PromiseLike<Ctx>): Promise<ToolOutput> {
    let compiled = this.byName.get(name);
    const aliasTarget = compiled ? undefined : this.aliases.get(name);
    if (aliasTarget) compiled = this.byName.get(aliasTarget);
    if (!compiled) throw new UnknownToolError(name);
    const { def } = compiled;
    let pending = ctx;
    if (this.opts.visible) {
      // A profile needs the context before anything else: outside it the name is unknown.
      const resolved = await ctx;
      if (!this.opts.visible(def, resolved)) throw new UnknownToolError(name);
      pending = resolved;
    }

    const out = await this.run(compiled, name, aliasTarget, args ?? {}, pending);
    const output = this.opts.validateOutput !== false ? compiled.output?.() : undefined;
    if (output && !output(out.structuredContent)) {
      throw new OutputSchemaError(def.name, output.errors ?? []);
    }
    return out;
  }

  private async run(
    compiled: Compiled<Ctx>,
    name: string,
    aliasTarget: string | undefined,
    args: unknown,
    pending: Ctx | PromiseLike<Ctx>,
  ): Promise<ToolOutput> {
    const { def } = compiled;
    // A context promise left unawaited (the call refused early) must not become an unhandled rejection.
    if (isPromiseLike(pending)) Promise.resolve(pending).catch(() => {});
    try {
      if (aliasTarget) this.opts.resolveAlias?.(name, aliasTarget, await pending);
      const violation = checkLimits(args, this.opts.limits);
      if (violation) return this.opts.formatRejection(def, { kind: "limit", violation });
      const input = compiled.input();
      if (!input(args)) {
        return this.opts.formatRejection(def, { kind: "schema", errors: input.errors ?? [] });
      }
      const ctx = await pending;
      this.opts.authorize?.(def, ctx);
      return await def.handler(args as Record<string, unknown>, ctx);
    } catch (e) {
      if (e instanceof DomainError) return this.opts.formatRejection(def, { kind: "error", error: e });
      // The database failed underneath (lost, stalled, locked by another process, full): a
      // specific retryable code, one log line without a stack (store/faults.ts).
      const fault = storeFault(e);
      if (fault) {
        toolLog.warn({ tool: def.name, code: fault.code }, fault.message);
        return this.opts.formatRejection(def, { kind: "error", error: fault });
      }
      // Unknown failures are converted once, here, without leaking internals.
      (this.opts.onInternalError ?? defaultInternalError)(def.name, e);
      const error = new DomainError("internal_error", "internal error; nothing was changed", {}, { cause: e });
      return this.opts.formatRejection(def, { kind: "error", error });
    }
  }
}

function isPromiseLike<T>(v: T | PromiseLike<T>): v is PromiseLike<T> {
  return typeof (v as { then?: unknown } | null)?.then === "function";
}

function defaultInternalError(toolName: string, error: unknown): void {
  toolLog.error({ tool: toolName, err: error }, "internal error");
}

export type { ErrorObject as ErrorObjectLike } from "ajv";

import {
  defineTool,
  type JsonSchema,
  type Rejection,
  type ToolDef,
  type ToolExample,
  type ToolOutput,
  type ToolSpec,
} from "kernel";
import type { ShampooCtx } from "./context.ts";
import { fail, payloadType } from "./platform/errors.ts";
import type { FixtureValues } from "./platform/module.ts";

/**
 * Shared shapes for SHAMPOO tools. Domain failures are normal error payloads
 * `{error, error_type}` returned with `isError: true` (catalog "Error surfaces"); unknown tool
 * names never get here (JSON-RPC -32602).
 */

export const ERROR_RESULT: JsonSchema = {
  type: "object",
  required: ["error", "error_type"],
  properties: { error: { type: "string" }, error_type: { type: "string" } },
};

/** An outputSchema that accepts the tool's success shape or the shared error payload. */
export function output(success: JsonSchema): JsonSchema {
  return { type: "object", anyOf: [success, ERROR_RESULT] };
}

/** A strict input schema: unknown arguments are rejected before anything runs. */
export function input(properties: Record<string, JsonSchema>, required: string[] = []): JsonSchema {
  return { type: "object", additionalProperties: false, properties, required };
}

export type ShampooTool = ToolDef<ShampooCtx>;

/**
 * Who may call a tool: `agent` (every caller), `conductor` (the conductor role), `star` (a caller
 * whose grants include "*"). A tool lists the words any one of which admits the caller; omitted
 * = every caller. Enforced by the registry (authorize below), never by the handler.
 */
export type Access = "agent" | "conductor" | "star";

/** A tool's definition besides its logic: the kernel's ToolSpec, with SHAMPOO's access words. */
type ToolBase<I> = Omit<ToolSpec<I, ShampooCtx>, "handler" | "annotations" | "access" | "examples"> & {
  access?: readonly Access[];
  /**
   * Calls that must work, as plain data typed as the tool's input (never inferred from them):
   * ids made at run time are written `fx("taskId")`. The e2e suite calls every tool with each
   * of its examples (test/e2e/support.ts); test/examples.test.ts checks them against
   * `inputSchema`. They never appear in tools/list.
   */
  examples?: ToolExample<NoInfer<I>>[];
};

/** A tool's logic: the result as a plain object. */
interface Run<I> {
  run(args: I, ctx: ShampooCtx): Promise<Record<string, unknown>>;
}

/**
 * A tool's logic that also has the result's exact JSON at hand (`text`, equal to
 * JSON.stringify(result)), sent as the text block instead of serializing the result again.
 */
interface RunText<I> {
  runText(args: I, ctx: ShampooCtx): Promise<{ result: Record<string, unknown>; text: string }>;
}

/**
 * One SHAMPOO tool (kernel defineTool): `I` is the type of its validated input. The source span
 * names the tool, so every history event says where it came from.
 */
export function tool<I = Record<string, unknown>>(def: ToolBase<I> & (Run<I> | RunText<I>)): ShampooTool {
  const named = (ctx: ShampooCtx): ShampooCtx => ({ ...ctx, source: { ...ctx.source, tool: def.name } });
  const { name, title, description, inputSchema, outputSchema, kind, access, examples } = def;
  const handler =
    "runText" in def
      ? async (args: I, ctx: ShampooCtx): Promise<ToolOutput> => {
          const { result, text } = await def.runText(args, named(ctx));
          return { structuredContent: result, text };
        }
      : async (args: I, ctx: ShampooCtx): Promise<ToolOutput> => ({
          structuredContent: await def.run(args, named(ctx)),
        });
  return defineTool<I, ShampooCtx>({
    name,
    description,
    inputSchema,
    kind,
    handler,
    ...(title ? { title } : {}),
    ...(outputSchema ? { outputSchema } : {}),
    ...(access ? { access } : {}),
    ...(examples ? { examples } : {}),
  });
}

/** A placeholder: `{{fixture:<key>}}`, anywhere inside a string of an example. */
export const FIXTURE_PLACEHOLDER = /\{\{fixture:([^}]*)\}\}/g;

/**
 * The placeholder for a fixture value, to write inside an example (alone or within a string).
 * The keys are made by the modules' e2e fixture steps (`domains/<area>/fixtures.ts`, each key
 * documented there; `fixtureKeys(MODULES)` lists them); test/examples.test.ts fails on a key no
 * module makes.
 */
export function fx(key: string): string {
  return `{{fixture:${key}}}`;
}

/** The fixture keys an example's placeholders name (unknown ones included, for the check). */
export function placeholdersOf(example: unknown): string[] {
  const keys = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === "string") for (const m of v.matchAll(FIXTURE_PLACEHOLDER)) keys.add(m[1] as string);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(example);
  return [...keys];
}

/**
 * A copy of `example` with every placeholder replaced by the fixture's value. Throws on a key
 * outside `known` (no module makes it) or that the fixture does not hold (the tool that makes
 * it is not registered, or the fixture step failed), naming the key.
 */
export function fillExample<T>(example: T, fixture: FixtureValues, known: readonly string[]): T {
  const fill = (v: unknown): unknown => {
    if (typeof v === "string") {
      return v.replace(FIXTURE_PLACEHOLDER, (_m, key: string) => {
        if (!known.includes(key)) {
          throw new Error(`unknown fixture key ${JSON.stringify(key)} (known: ${known.join(", ")})`);
        }
        const value = fixture[key];
        if (typeof value !== "string") {
          throw new Error(`this example needs fixture.${key}: register the tool that makes it`);
        }
        return value;
      });
    }
    if (Array.isArray(v)) return v.map(fill);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, fill(x)]));
    return v;
  };
  return fill(example) as T;
}

/** The registry's access check (RegistryOptions.authorize): `access` words, any one admits. */
export function authorize(def: ShampooTool, ctx: ShampooCtx): void {
  const access = def.access as readonly Access[] | undefined;
  if (!access || access.includes("agent")) return;
  if (access.includes("conductor") && ctx.caller.role === "conductor") return;
  if (access.includes("star") && ctx.caller.star) return;
  throw fail(
    "forbidden",
    `${def.name} requires-conductor: the conductor role${access.includes("star") ? " or a star grant" : ""} is needed`,
  );
}

/** The error payload for a refused or failed call. */
export function formatRejection(_tool: ShampooTool, r: Rejection): ToolOutput {
  if (r.kind === "error") {
    const { error_type: _stamped, ...fields } = r.error.extra;
    const type = payloadType(r.error.code);
    // The type is its own field: a message never repeats it as a prefix ("invalid_sort: …").
    const error = r.error.message.startsWith(`${type}: `) ? r.error.message.slice(type.length + 2) : r.error.message;
    return { structuredContent: { error, error_type: type, ...fields }, isError: true };
  }
  if (r.kind === "limit") {
    return { structuredContent: { error: r.violation.message, error_type: "validation" }, isError: true };
  }
  const messages = r.errors.map((e) => {
    if (e.keyword === "additionalProperties") return `Unknown argument: ${String(e.params.additionalProperty)}`;
    if (e.keyword === "required") return `Missing required argument: ${String(e.params.missingProperty)}`;
    // An enum refusal names what is allowed, so the caller can correct itself in one step.
    if (e.keyword === "enum" && Array.isArray(e.params.allowedValues)) {
      const where = e.instancePath.replace(/^\//, "") || "arguments";
      return `${where} must be one of: ${(e.params.allowedValues as unknown[]).map((v) => (v === "" ? '""' : String(v))).join(", ")}`;
    }
    return `${e.instancePath.replace(/^\//, "") || "arguments"} ${e.message ?? "is invalid"}`;
  });
  return {
    structuredContent: { error: [...new Set(messages)].join("; "), error_type: "validation" },
    isError: true,
  };
}

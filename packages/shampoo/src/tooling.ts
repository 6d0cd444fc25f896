import {
  DomainError,
  defineTool,
  type JsonSchema,
  type Rejection,
  type ToolDef,
  type ToolExample,
  type ToolKind,
  type ToolOutput,
} from "kernel";
import type { ShampooCtx } from "./context.ts";

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

interface ToolBase<I> {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  kind: ToolKind;
  access?: readonly Access[];
  examples?: ToolExample<I>[];
}

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

/** The registry's access check (RegistryOptions.authorize): `access` words, any one admits. */
export function authorize(def: ShampooTool, ctx: ShampooCtx): void {
  const access = def.access as readonly Access[] | undefined;
  if (!access || access.includes("agent")) return;
  if (access.includes("conductor") && ctx.caller.role === "conductor") return;
  if (access.includes("star") && ctx.caller.star) return;
  throw new DomainError(
    "forbidden",
    `${def.name} requires-conductor: the conductor role${access.includes("star") ? " or a star grant" : ""} is needed`,
    {
      error_type: "requires-conductor",
    },
  );
}

export function notFound(what: "Task" | "Entity" | "Session" | string): DomainError {
  return new DomainError("not_found", `${what} not found`, { error_type: "not_found" });
}

export function invalid(message: string, errorType = "validation"): DomainError {
  return new DomainError(errorType, message, { error_type: errorType });
}

/** The error payload for a refused or failed call. */
export function formatRejection(_tool: ShampooTool, r: Rejection): ToolOutput {
  if (r.kind === "error") {
    const type = typeof r.error.extra.error_type === "string" ? r.error.extra.error_type : r.error.code;
    const { error_type: _t, ...rest } = r.error.extra;
    return { structuredContent: { error: r.error.message, error_type: type, ...rest }, isError: true };
  }
  if (r.kind === "limit") {
    return { structuredContent: { error: r.violation.message, error_type: "validation" }, isError: true };
  }
  const messages = r.errors.map((e) => {
    if (e.keyword === "additionalProperties") return `Unknown argument: ${String(e.params.additionalProperty)}`;
    if (e.keyword === "required") return `Missing required argument: ${String(e.params.missingProperty)}`;
    return `${e.instancePath.replace(/^\//, "") || "arguments"} ${e.message ?? "is invalid"}`;
  });
  return {
    structuredContent: { error: [...new Set(messages)].join("; "), error_type: "validation" },
    isError: true,
  };
}

import { DomainError, type JsonSchema, type Rejection, type ToolDef, type ToolOutput } from "kernel";
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

/** A tool's logic: the result as a plain object. */
interface Run {
  run(args: Record<string, unknown>, ctx: ShampooCtx): Promise<Record<string, unknown>>;
}

/**
 * A tool's logic that also has the result's exact JSON at hand (`text`, equal to
 * JSON.stringify(result)), sent as the text block instead of serializing the result again.
 */
interface RunText {
  runText(args: Record<string, unknown>, ctx: ShampooCtx): Promise<{ result: Record<string, unknown>; text: string }>;
}

/** Wraps a tool's logic into its handler. */
export function tool(def: Omit<ShampooTool, "handler"> & (Run | RunText)): ShampooTool {
  // The source span names the tool, so every history event says where it came from.
  const named = (ctx: ShampooCtx): ShampooCtx => ({ ...ctx, source: { ...ctx.source, tool: def.name } });
  if ("runText" in def) {
    const { runText, ...rest } = def;
    return {
      ...rest,
      handler: async (args, ctx) => {
        const { result, text } = await runText(args, named(ctx));
        return { structuredContent: result, text };
      },
    };
  }
  const { run, ...rest } = def;
  return { ...rest, handler: async (args, ctx) => ({ structuredContent: await run(args, named(ctx)) }) };
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

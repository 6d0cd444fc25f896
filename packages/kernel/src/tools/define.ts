import type { JsonSchema, ToolAnnotations, ToolDef, ToolExample, ToolKind, ToolOutput } from "./registry.ts";

/**
 * What a tool does to the world, which fixes its MCP annotations (one rule for every tool):
 * - read: changes nothing (readOnlyHint).
 * - write: changes something; repeating it changes something again (e.g. creates a second row).
 * - idempotent: changes something; repeating the same call leaves the same state (idempotentHint).
 * None of them destroys (nothing is ever physically deleted), none reaches outside the server.
 */
export function annotationsFor(kind: ToolKind): ToolAnnotations {
  return {
    readOnlyHint: kind === "read",
    destructiveHint: false,
    idempotentHint: kind !== "write",
    openWorldHint: false,
  };
}

export interface ToolSpec<Input, Ctx> {
  name: string;
  title?: string;
  description: string;
  /** Published verbatim in tools/list; the pipeline validates every call against it first. */
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  kind: ToolKind;
  /** Who may call it (the product's words: "agent", "conductor", …); absent = everyone. */
  access?: readonly string[];
  /** Calls that must work: they feed the e2e suite and the generated docs. */
  examples?: ToolExample<Input>[];
  /** Overrides of the derived annotations (rare: say why beside it). */
  annotations?: Partial<ToolAnnotations>;
  /**
   * Receives the input already validated against `inputSchema`, so `Input` (the type parameter)
   * must describe that schema: the catalog test and each tool's own tests hold the two together.
   */
  handler(input: Input, ctx: Ctx): Promise<ToolOutput>;
}

/**
 * A tool is one definition: name, schemas, typed input, kind → annotations, access, examples.
 *
 *   defineTool<{ task_id: string }, Ctx>({ name: "get_x", kind: "read", inputSchema, handler: async (a) => … })
 */
export function defineTool<Input, Ctx>(spec: ToolSpec<Input, Ctx>): ToolDef<Ctx> {
  const { handler, annotations, kind, examples: _examples, ...rest } = spec;
  return {
    ...rest,
    kind,
    annotations: { ...annotationsFor(kind), ...(annotations ?? {}) },
    // The registry calls this only with input that passed `inputSchema` (registry.ts run()).
    handler: (args, ctx) => handler(args as Input, ctx),
    ...(spec.examples ? { examples: spec.examples as ToolExample[] } : {}),
  };
}

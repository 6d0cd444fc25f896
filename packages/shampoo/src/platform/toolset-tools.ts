import type { ShampooCtx } from "../context.ts";
import { input, output, type ShampooTool, tool } from "../tooling.ts";
import { fail } from "./errors.ts";
import { ENABLE_TOOLSET, HOW_TO_WIDEN, LIST_TOOLSETS, type ToolsetView } from "./toolsets.ts";

/**
 * The server's own meta-tools (toolsets.ts): not catalog tools, so not in TOOLS (the catalog
 * test, the e2e call-every-tool suites); the registry serves them first, and each session's
 * ToolsetView decides whether they are listed.
 */

function viewOf(ctx: ShampooCtx): ToolsetView {
  if (!ctx.toolsets) throw fail("internal_error", "toolsets are not served here");
  return ctx.toolsets;
}

const STATUS = {
  type: "object",
  required: ["name", "description", "tools", "enabled"],
  properties: {
    name: { type: "string" },
    description: { type: "string" },
    tools: { type: "integer" },
    enabled: { type: "boolean" },
  },
};

export const list_toolsets = tool<Record<string, never>>({
  name: LIST_TOOLSETS,
  title: "List toolsets",
  description:
    "The toolsets (categories of tools) you may use: tools you may use in each, and whether it is on. Turn one on with enable_toolset.",
  kind: "read",
  inputSchema: input({}),
  outputSchema: output({
    type: "object",
    required: ["toolsets", "can_enable", "how_to_widen"],
    properties: {
      toolsets: { type: "array", items: STATUS },
      can_enable: { type: "boolean" },
      how_to_widen: { type: "string" },
    },
  }),
  examples: [{ title: "what can be turned on", input: {} }],
  run: async (_a, ctx) => {
    const view = viewOf(ctx);
    return { toolsets: view.list(), can_enable: view.sessionful, how_to_widen: HOW_TO_WIDEN };
  },
});

export const enable_toolset = tool<{ toolset: string }>({
  name: ENABLE_TOOLSET,
  title: "Enable a toolset",
  description:
    "Turns on a toolset (a name from list_toolsets, or all) for the rest of this session: its tools you may use are then listed (notifications/tools/list_changed).",
  kind: "idempotent",
  inputSchema: input({ toolset: { type: "string", minLength: 1, maxLength: 64 } }, ["toolset"]),
  outputSchema: output({
    type: "object",
    required: ["toolset", "added", "not_allowed"],
    properties: {
      toolset: { type: "string" },
      added: { type: "array", items: { type: "string" } },
      not_allowed: { type: "array", items: { type: "string" } },
    },
  }),
  examples: [{ title: "turn on links", input: { toolset: "links" } }],
  run: async ({ toolset }, ctx) => {
    const { added, notAllowed } = await viewOf(ctx).enable(toolset);
    return { toolset, added, not_allowed: notAllowed };
  },
});

export const TOOLSET_TOOLS: ShampooTool[] = [list_toolsets, enable_toolset];

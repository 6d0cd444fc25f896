import { fx, input, output, tool } from "../../../tooling.ts";
import type { BuildContextPackInput } from "../inputs.gen.ts";
import { DEFAULT_TOKEN_BUDGET, PACK_TYPES } from "../rules/packing.ts";
import { buildContextPack } from "../service/packs.ts";

export const build_context_pack = tool<BuildContextPackInput>({
  name: "build_context_pack",
  title: "Build a context pack",
  description: `Compiles a role-specific context pack (planner, reviewer, executor, bridge_checker, handoff; default planner) under a token budget (unset or 0: ${DEFAULT_TOKEN_BUDGET}; negatives select nothing) from the live facts, candidate claims, open questions, chunks and open tasks you can see. Greedy by score: the role's weight for each kind × (freshness, halving every 7 days; relevance, 1 for items tied to target_ref's task or its linked entities; quality: confidence or priority). Deterministic: the same memory gives the same bytes. Persists the pack with its summary artifact and the provenance of every item, retires your earlier active packs of the same kind (type, session, target), and records a run-history entry; an empty pack is not persisted (pack_id null). session_id must be yours (star bypasses) or handed to you, else 'session not found'; target_ref is a task id ('Task not found' when invisible).`,
  inputSchema: input({
    pack_type: { type: "string", enum: [...PACK_TYPES], description: "Role of the pack (default planner)." },
    session_id: { type: ["string", "null"], maxLength: 200, description: "A session of yours the pack is for." },
    target_ref: {
      type: ["string", "null"],
      maxLength: 200,
      description: "Task id scoping the pack; absent means unscoped.",
    },
    token_budget: {
      type: ["integer", "null"],
      minimum: -1_000_000,
      maximum: 1_000_000,
      description: "Token budget; unset or 0 means 4000.",
    },
  }),
  outputSchema: output({
    type: "object",
    required: [
      "pack_id",
      "pack_type",
      "token_budget",
      "token_usage",
      "items_included",
      "persisted",
      "body",
      "sections",
      "contract_version",
    ],
    properties: {
      pack_id: { type: ["string", "null"] },
      pack_type: { type: "string" },
      token_budget: { type: "integer" },
      token_usage: { type: "integer" },
      items_included: { type: "integer" },
      preview_items_included: { type: "integer" },
      task_scoped: { type: "boolean" },
      persisted: { type: "boolean" },
      freshness_score: { type: "number" },
      relevance_score: { type: "number" },
      quality_score: { type: "number" },
      previewable: { type: "boolean" },
      contract_version: { type: "string" },
      selection_policy: { type: "object" },
      advanced_context: { type: "object" },
      sections: { type: "array", items: { type: "object" } },
      body: { type: "string" },
    },
  }),
  examples: [
    {
      title: "a planner pack for a task",
      input: { pack_type: "planner", target_ref: fx("taskId") },
    },
  ],
  kind: "write",
  run: (a, ctx) => buildContextPack(ctx, a),
});

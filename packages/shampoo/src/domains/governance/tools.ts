import type { ShampooTool } from "../../tooling.ts";
import { assess_context } from "./tools/assess_context.ts";
import { audit_memory } from "./tools/audit_memory.ts";
import { build_context_pack } from "./tools/build_context_pack.ts";
import { enrich_context } from "./tools/enrich_context.ts";
import { explain_impact } from "./tools/explain_impact.ts";
import { extract_candidate_claims } from "./tools/extract_candidate_claims.ts";
import { govern_fact } from "./tools/govern_fact.ts";
import { list_memory_issues } from "./tools/list_memory_issues.ts";
import { promote_candidate } from "./tools/promote_candidate.ts";
import { queue_clarification } from "./tools/queue_clarification.ts";
import { record_human_answer } from "./tools/record_human_answer.ts";
import { replay_memory } from "./tools/replay_memory.ts";

/**
 * Context governance: the catalog's eleven tools in catalog (alphabetical) order, then
 * list_memory_issues (named by audit_memory, without a catalog section).
 */
export const governanceTools: ShampooTool[] = [
  assess_context,
  audit_memory,
  build_context_pack,
  enrich_context,
  explain_impact,
  extract_candidate_claims,
  govern_fact,
  promote_candidate,
  queue_clarification,
  record_human_answer,
  replay_memory,
  list_memory_issues,
];

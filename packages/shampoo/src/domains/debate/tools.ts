import type { ShampooTool } from "../../tooling.ts";
import { debate_add_role } from "./tools/debate_add_role.ts";
import { debate_advance_watermark } from "./tools/debate_advance_watermark.ts";
import { debate_bind_role } from "./tools/debate_bind_role.ts";
import { debate_binding_list } from "./tools/debate_binding_list.ts";
import { debate_close_topic } from "./tools/debate_close_topic.ts";
import { debate_compact } from "./tools/debate_compact.ts";
import { debate_escalate } from "./tools/debate_escalate.ts";
import { debate_init } from "./tools/debate_init.ts";
import { debate_judge_prepare } from "./tools/debate_judge_prepare.ts";
import { debate_judge_verdict } from "./tools/debate_judge_verdict.ts";
import { debate_message_claim_reclaim } from "./tools/debate_message_claim_reclaim.ts";
import { debate_post } from "./tools/debate_post.ts";
import { debate_post_with_recipients } from "./tools/debate_post_with_recipients.ts";
import { debate_protocol_maintain } from "./tools/debate_protocol_maintain.ts";
import { debate_protocol_state } from "./tools/debate_protocol_state.ts";
import { debate_read } from "./tools/debate_read.ts";
import { debate_reconcile_project } from "./tools/debate_reconcile_project.ts";
import { debate_rotate_binding } from "./tools/debate_rotate_binding.ts";
import { debate_search } from "./tools/debate_search.ts";
import { debate_set_topic_priority } from "./tools/debate_set_topic_priority.ts";
import { debate_signal_advance } from "./tools/debate_signal_advance.ts";
import { debate_signal_check } from "./tools/debate_signal_check.ts";
import { debate_state } from "./tools/debate_state.ts";
import { debate_wake_dry_run } from "./tools/debate_wake_dry_run.ts";
import { debate_work_queue } from "./tools/debate_work_queue.ts";
import { debate_worker_claim } from "./tools/debate_worker_claim.ts";
import { debate_worker_recover_stale } from "./tools/debate_worker_recover_stale.ts";

/** The 27 debate tools, in catalog (alphabetical) order. One file per tool under tools/. */
export const debateTools: ShampooTool[] = [
  debate_add_role,
  debate_advance_watermark,
  debate_bind_role,
  debate_binding_list,
  debate_close_topic,
  debate_compact,
  debate_escalate,
  debate_init,
  debate_judge_prepare,
  debate_judge_verdict,
  debate_message_claim_reclaim,
  debate_post,
  debate_post_with_recipients,
  debate_protocol_maintain,
  debate_protocol_state,
  debate_read,
  debate_reconcile_project,
  debate_rotate_binding,
  debate_search,
  debate_set_topic_priority,
  debate_signal_advance,
  debate_signal_check,
  debate_state,
  debate_wake_dry_run,
  debate_work_queue,
  debate_worker_claim,
  debate_worker_recover_stale,
];

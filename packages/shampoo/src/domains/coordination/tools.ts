import type { ShampooTool } from "../../tooling.ts";
import { job_claim } from "./tools/job_claim.ts";
import { job_complete } from "./tools/job_complete.ts";
import { job_create } from "./tools/job_create.ts";
import { job_release } from "./tools/job_release.ts";
import { lane_create } from "./tools/lane_create.ts";
import { lane_list } from "./tools/lane_list.ts";
import { lane_merge } from "./tools/lane_merge.ts";
import { lane_review } from "./tools/lane_review.ts";
import { lane_transition } from "./tools/lane_transition.ts";
import { quorum_cancel } from "./tools/quorum_cancel.ts";
import { quorum_create } from "./tools/quorum_create.ts";
import { quorum_list } from "./tools/quorum_list.ts";
import { quorum_mark_participant } from "./tools/quorum_mark_participant.ts";
import { quorum_resolve } from "./tools/quorum_resolve.ts";

/** The fourteen coordination tools, in catalog order (quorum, then jobs and lanes; alphabetical in each). */
export const coordinationTools: ShampooTool[] = [
  quorum_cancel,
  quorum_create,
  quorum_list,
  quorum_mark_participant,
  quorum_resolve,
  job_claim,
  job_complete,
  job_create,
  job_release,
  lane_create,
  lane_list,
  lane_merge,
  lane_review,
  lane_transition,
];

import type { ShampooTool } from "../../tooling.ts";
import { reflect_apply } from "./tools/reflect_apply.ts";
import { reflect_archive } from "./tools/reflect_archive.ts";
import { reflect_audit } from "./tools/reflect_audit.ts";
import { reflect_cancel } from "./tools/reflect_cancel.ts";
import { reflect_decide } from "./tools/reflect_decide.ts";
import { reflect_discard } from "./tools/reflect_discard.ts";
import { reflect_history } from "./tools/reflect_history.ts";
import { reflect_review } from "./tools/reflect_review.ts";
import { reflect_start } from "./tools/reflect_start.ts";

/**
 * The eight catalog reflection tools and reflect_history (the run list reflect_archive refers
 * to), in alphabetical order. One file per tool under tools/.
 */
export const reflectionTools: ShampooTool[] = [
  reflect_apply,
  reflect_archive,
  reflect_audit,
  reflect_cancel,
  reflect_decide,
  reflect_discard,
  reflect_history,
  reflect_review,
  reflect_start,
];

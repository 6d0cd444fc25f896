import type { ShampooTool } from "../../tooling.ts";
import { close_session } from "./tools/close_session.ts";
import { resume_context } from "./tools/resume_context.ts";
import { session_recall } from "./tools/session_recall.ts";
import { session_save } from "./tools/session_save.ts";

/** The four session tools, in catalog (alphabetical) order. One file per tool under tools/. */
export const sessionTools: ShampooTool[] = [close_session, resume_context, session_recall, session_save];

import type { ShampooTool } from "../../tooling.ts";
import { doctor } from "./tools/doctor.ts";
import { licence } from "./tools/licence.ts";
import { status } from "./tools/status.ts";

/** The three health tools, in catalog order. One file per tool under tools/. */
export const healthTools: ShampooTool[] = [doctor, licence, status];

import type { ShampooTool } from "../../tooling.ts";
import { inbound_approve } from "./tools/inbound_approve.ts";
import { inbound_list } from "./tools/inbound_list.ts";
import { inbound_reject } from "./tools/inbound_reject.ts";

/** The three inbound review tools, in catalog order. Staging is the CLI's (service/stage.ts). */
export const inboundTools: ShampooTool[] = [inbound_approve, inbound_list, inbound_reject];

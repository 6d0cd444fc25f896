import type { ShampooTool } from "../../tooling.ts";
import { handshake_challenge } from "./tools/handshake_challenge.ts";
import { handshake_complete } from "./tools/handshake_complete.ts";
import { issue_ticket } from "./tools/issue_ticket.ts";
import { list_sessions } from "./tools/list_sessions.ts";
import { revoke_principal } from "./tools/revoke_principal.ts";
import { revoke_session } from "./tools/revoke_session.ts";

/** The auth registry's tools, in catalog order; the two revocation tools the catalog lost close it. */
export const authTools: ShampooTool[] = [
  handshake_challenge,
  handshake_complete,
  issue_ticket,
  list_sessions,
  revoke_principal,
  revoke_session,
];

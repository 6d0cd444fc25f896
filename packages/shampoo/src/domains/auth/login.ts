import { readFileSync, writeFileSync } from "node:fs";
import { type Credential, handshake, httpCall } from "./client.ts";

/**
 * `shampoo login`: the client side of enrolment and renewal, over the server's
 * pre-authentication routes (http.ts).
 *
 *   shampoo login --url http://host:8421/mcp --ticket TICKET_ID [--profile P] [--credentials FILE]
 *       the ticket's secret from $SHAMPOO_TICKET_SECRET or the first line of stdin; writes FILE
 *       (mode 0600): url, client_id, principal, profile, bootstrap_secret, session_token, expires_at
 *   shampoo login --credentials FILE [--url …]
 *       renews: a bootstrap handshake, the new session token written back to FILE
 *
 * Either way it prints the MCP host entry that connects with the new token (an hour; run it
 * again, or use RenewingSession in client.ts, to renew).
 */

export interface LoginOptions {
  url?: string | undefined;
  ticket?: string | undefined;
  profile?: string | undefined;
  credentials: string;
  /** The ticket secret (default: $SHAMPOO_TICKET_SECRET, else the first line of stdin). */
  secret?: string | undefined;
}

export interface StoredCredentials {
  url: string;
  client_id: string;
  principal: string;
  profile: string;
  bootstrap_secret: string;
  session_token: string;
  expires_at: string;
}

export class LoginError extends Error {}

async function firstLineOfStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) {
    chunks.push(c as Buffer);
    if (Buffer.concat(chunks).includes(10)) break;
  }
  return Buffer.concat(chunks).toString("utf8").split("\n")[0]?.trim() ?? "";
}

export async function login(opts: LoginOptions): Promise<StoredCredentials> {
  let stored: StoredCredentials | undefined;
  if (!opts.ticket) {
    try {
      stored = JSON.parse(readFileSync(opts.credentials, "utf8")) as StoredCredentials;
    } catch (e) {
      throw new LoginError(`no --ticket, and cannot read credentials ${opts.credentials}: ${(e as Error).message}`);
    }
  }
  const url = opts.url ?? stored?.url;
  if (!url) throw new LoginError("--url is required (the server's MCP endpoint)");
  let cred: Credential;
  if (opts.ticket) {
    const secret = opts.secret ?? process.env.SHAMPOO_TICKET_SECRET ?? (await firstLineOfStdin());
    if (!secret) throw new LoginError("the ticket's secret: set SHAMPOO_TICKET_SECRET or pipe it on stdin");
    cred = { refKind: "ticket", refId: opts.ticket, secret, ...(opts.profile ? { profile: opts.profile } : {}) };
  } else {
    const s = stored as StoredCredentials;
    cred = { refKind: "bootstrap", refId: s.client_id, secret: s.bootstrap_secret, profile: opts.profile ?? s.profile };
  }
  let grant: Awaited<ReturnType<typeof handshake>>;
  try {
    grant = await handshake(httpCall(url), {
      ...cred,
      client: { client_name: "shampoo-login", client_kind: "client" },
    });
  } catch (e) {
    throw new LoginError((e as Error).message);
  }
  const out: StoredCredentials = {
    url,
    client_id: grant.client_id,
    principal: grant.principal,
    profile: grant.profile,
    bootstrap_secret: grant.bootstrap_secret ?? (stored as StoredCredentials).bootstrap_secret,
    session_token: grant.session_token,
    expires_at: grant.expires_at,
  };
  writeFileSync(opts.credentials, `${JSON.stringify(out, null, 2)}\n`, { mode: 0o600 });
  return out;
}

/** What `shampoo login` prints: who, until when, and the host entry. */
export function loginBanner(c: StoredCredentials, file: string): string {
  const entry = JSON.stringify({ url: c.url, headers: { Authorization: `Bearer ${c.session_token}` } });
  return (
    `logged in as ${c.principal} (client ${c.client_id}, profile ${c.profile}) until ${c.expires_at}\n` +
    `credentials: ${file} (keep it private; \`shampoo login --credentials ${file}\` renews)\n` +
    `MCP host entry: { "mcpServers": { "shampoo": ${entry} } }\n`
  );
}

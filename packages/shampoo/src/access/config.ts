import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { type Caller, localCaller, makeCaller, ROLES, type Role } from "./caller.ts";

/**
 * Who may call `shampoo serve`, from a JSON file (`--config FILE`):
 *
 *   {"principals":[{"token":"…","principal":"alice","role":"agent","grants":["shared-ops",""],"profile":"default"}]}
 *
 * Over HTTP every request carries `Authorization: Bearer <token>`; the entry whose token matches
 * is the caller of that request's tool calls. Over stdio `--principal NAME` picks an entry by name
 * (whoever launches the process can read the file anyway, so no token is needed there).
 *
 * Validation is strict: an unknown key, a missing field or a bad value refuses the whole file with
 * a message naming the entry and the field (a typo must never widen or silently drop a grant).
 */

export class ConfigError extends Error {}

export interface Principal {
  /** The caller this token stands for. */
  caller: Caller;
  /** SHA-256 of the token: tokens are compared digest to digest, in constant time. */
  digest: Buffer;
  /**
   * This principal's tool profile as written (categories or tool names, platform/profiles.ts);
   * resolved into `caller.tools` by `shampoo serve` once the tool list is loaded.
   */
  tools?: string[];
}

export interface ShampooConfig {
  source: string;
  principals: Principal[];
  /** Things worth saying that do not refuse the file (e.g. group- or world-readable). */
  warnings: string[];
  /** The "oauth" section as written (OAuth 2.1 resource server, parsed by domains/auth/oauth.ts). */
  oauth?: unknown;
}

const ENTRY_KEYS = ["token", "principal", "role", "grants", "profile", "tools"];
/** RFC 6750 b64token: what may follow "Bearer " unquoted. */
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const MIN_TOKEN = 16;
const MAX_TOKEN = 512;
const PROFILE = /^[A-Za-z0-9._-]{1,64}$/;
const MAX_NAME = 200;

const digest = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest();

export function loadConfig(file: string): ShampooConfig {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new ConfigError(`cannot read --config ${file}: ${(e as Error).message}`);
  }
  let mode: number | undefined;
  try {
    mode = statSync(file).mode;
  } catch {
    // stat after a successful read can only fail in a race; the file was read, that is enough
  }
  // A file others can write could be given any principal and grants by them: refused, as ssh
  // refuses such key files. One others can only read leaks tokens: a warning.
  if (mode !== undefined && process.platform !== "win32" && (mode & 0o022) !== 0) {
    throw new ConfigError(
      `${file} holds bearer tokens and others can write it (mode ${(mode & 0o777).toString(8)}): anyone who can write it can make themselves any principal; chmod 600 it`,
    );
  }
  const config = parseConfig(text, file);
  if (mode !== undefined && process.platform !== "win32" && (mode & 0o077) !== 0) {
    config.warnings.push(
      `${file} holds bearer tokens and is readable by others (mode ${(mode & 0o777).toString(8)}); chmod 600 it`,
    );
  }
  return config;
}

export function parseConfig(text: string, source = "config"): ShampooConfig {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${source} is not JSON: ${(e as Error).message}`);
  }
  if (!isObject(doc)) throw new ConfigError(`${source} must be a JSON object {"principals":[…]}`);
  for (const k of Object.keys(doc)) {
    if (k !== "principals" && k !== "oauth") {
      throw new ConfigError(`${source}: unknown key ${JSON.stringify(k)} (only "principals" and "oauth")`);
    }
  }
  const list = doc.principals;
  if (!Array.isArray(list) || list.length === 0) {
    throw new ConfigError(`${source}: "principals" must be a non-empty array`);
  }
  const principals: Principal[] = [];
  const seen = new Map<string, number>();
  for (const [i, entry] of list.entries()) {
    const at = `${source}: principals[${i}]`;
    const p = parseEntry(entry, at);
    const key = p.digest.toString("hex");
    const earlier = seen.get(key);
    if (earlier !== undefined) throw new ConfigError(`${at}.token is the same as principals[${earlier}].token`);
    seen.set(key, i);
    principals.push(p);
  }
  return { source, principals, warnings: [], ...(doc.oauth === undefined ? {} : { oauth: doc.oauth }) };
}

function parseEntry(entry: unknown, at: string): Principal {
  if (!isObject(entry)) throw new ConfigError(`${at} must be an object {token, principal, role, grants, profile?}`);
  for (const k of Object.keys(entry)) {
    if (!ENTRY_KEYS.includes(k)) {
      throw new ConfigError(`${at}: unknown key ${JSON.stringify(k)} (allowed: ${ENTRY_KEYS.join(", ")})`);
    }
  }
  const { token, principal, role, grants } = entry;
  const profile = entry.profile ?? "default";
  if (typeof token !== "string") throw new ConfigError(`${at}.token is required (a string)`);
  if (token.length < MIN_TOKEN || token.length > MAX_TOKEN) {
    throw new ConfigError(`${at}.token must be ${MIN_TOKEN}..${MAX_TOKEN} characters (got ${token.length})`);
  }
  if (!TOKEN.test(token)) {
    throw new ConfigError(`${at}.token may hold only A-Z a-z 0-9 - . _ ~ + / (then = padding): no spaces or quotes`);
  }
  if (typeof principal !== "string" || principal.trim() === "" || principal.length > MAX_NAME) {
    throw new ConfigError(`${at}.principal is required: a non-blank string of at most ${MAX_NAME} characters`);
  }
  if (typeof role !== "string" || !ROLES.includes(role as Role)) {
    throw new ConfigError(`${at}.role must be "agent" or "conductor", got ${JSON.stringify(role)}`);
  }
  if (!Array.isArray(grants) || grants.length === 0) {
    throw new ConfigError(
      `${at}.grants must be a non-empty array of project names, "" (the untagged enclave) or "*" (every named project)`,
    );
  }
  for (const [j, g] of grants.entries()) {
    if (typeof g !== "string" || g.length > MAX_NAME || (g !== "" && g.trim() !== g)) {
      throw new ConfigError(
        `${at}.grants[${j}] must be a project name (no surrounding spaces, at most ${MAX_NAME} characters), "" or "*", got ${JSON.stringify(g)}`,
      );
    }
  }
  if (typeof profile !== "string" || !PROFILE.test(profile)) {
    throw new ConfigError(`${at}.profile must match [A-Za-z0-9._-]{1,64}, got ${JSON.stringify(profile)}`);
  }
  const tools = entry.tools;
  if (
    tools !== undefined &&
    (!Array.isArray(tools) || tools.length === 0 || tools.some((t) => typeof t !== "string" || t.trim() === ""))
  ) {
    throw new ConfigError(`${at}.tools must be a non-empty array of categories or tool names (e.g. ["tasks","graph"])`);
  }
  return {
    caller: makeCaller({ principal, role: role as Role, profile, grants: grants as string[] }),
    digest: digest(token),
    ...(tools ? { tools: tools as string[] } : {}),
  };
}

/**
 * The principal whose token an `Authorization: Bearer <token>` header carries, or null. Every
 * configured token is compared (SHA-256 digests, crypto.timingSafeEqual, no early exit), so the
 * time taken says nothing about which token, or how much of one, matched.
 */
export function authenticateBearer(config: ShampooConfig, header: string | string[] | undefined): Principal | null {
  const value = Array.isArray(header) ? header[0] : header;
  const m = value === undefined ? null : /^Bearer +([^ ]+) *$/i.exec(value);
  const presented = digest(m?.[1] ?? "");
  let found: Principal | null = null;
  for (const p of config.principals) {
    if (timingSafeEqual(p.digest, presented) && m) found = p;
  }
  return found;
}

/**
 * Parses `--grants a,b,"",*`. An item `""` — or an empty item, which is what a shell leaves of
 * `""` after quote removal (`a,,b`) — is the untagged enclave; `*` is every named project.
 */
export function parseGrants(list: string): string[] {
  return list.split(",").map((g) => {
    const t = g.trim();
    return t === '""' || t === "''" ? "" : t;
  });
}

export interface CallerFlags {
  principal?: string | undefined;
  role?: string | undefined;
  grants?: string | undefined;
  profile?: string | undefined;
}

export const hasCallerFlags = (f: CallerFlags): boolean =>
  f.principal !== undefined || f.role !== undefined || f.grants !== undefined || f.profile !== undefined;

/**
 * The command-line caller (stdio, or everyone under --insecure-local). Without flags: the local
 * principal (conductor, every named project and the untagged enclave, profile "default"). Each
 * flag replaces that field; the others keep the local principal's values.
 *
 * With a config file, `--principal NAME` alone picks that entry instead (and the other flags are
 * refused: one source of truth per caller).
 */
export function callerFromFlags(flags: CallerFlags, config?: ShampooConfig): Caller {
  if (config && flags.principal !== undefined) {
    if (flags.role !== undefined || flags.grants !== undefined || flags.profile !== undefined) {
      throw new ConfigError(
        `with --config, --principal NAME picks that entry of ${config.source}; --role/--grants/--profile would contradict it`,
      );
    }
    const entry = config.principals.find((p) => p.caller.principal === flags.principal);
    if (!entry) throw new ConfigError(`no principal ${JSON.stringify(flags.principal)} in ${config.source}`);
    return entry.caller;
  }
  if (config && hasCallerFlags(flags)) {
    throw new ConfigError("with --config, name the caller with --principal NAME (an entry of the file)");
  }
  const local = localCaller();
  const role = flags.role ?? local.role;
  if (!ROLES.includes(role as Role)) throw new ConfigError(`--role must be agent or conductor, got ${role}`);
  const profile = flags.profile ?? local.profile;
  if (!PROFILE.test(profile)) throw new ConfigError(`--profile must match [A-Za-z0-9._-]{1,64}, got ${profile}`);
  const principal = flags.principal ?? local.principal;
  if (principal.trim() === "" || principal.length > MAX_NAME) {
    throw new ConfigError(`--principal must be a non-blank name of at most ${MAX_NAME} characters`);
  }
  const grants = flags.grants === undefined ? ["*", ""] : parseGrants(flags.grants);
  return makeCaller({ principal, role: role as Role, profile, grants });
}

/** One line saying who a caller is, for the startup banner. */
export function describeCaller(c: Caller): string {
  const grants = [
    ...(c.star ? ["* (every named project)"] : []),
    ...[...c.projects].sort(),
    ...(c.untagged ? ['"" (untagged)'] : []),
  ];
  return `${c.principal} (${c.role}, profile ${c.profile}, grants: ${grants.length ? grants.join(", ") : "none"})`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

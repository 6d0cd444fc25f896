import { createPublicKey, type JsonWebKey, type KeyObject, verify } from "node:crypto";
import type { Clock, RouteHandler } from "kernel";
import { type Caller, makeCaller, ROLES, type Role } from "../../access/caller.ts";

/**
 * SHAMPOO as an OAuth 2.1 resource server (the MCP specification's authorization): access
 * tokens are JWTs from one configured issuer, signed with a key of its JWKS (inline or fetched
 * from `jwks_uri`), whose audience must name this server; the token's issuer and subject map to
 * a configured principal and its grants, and its scopes decide the role. RFC 9728 protected-
 * resource metadata is served at `/.well-known/oauth-protected-resource` (and the path-suffixed
 * form for the MCP endpoint), and 401 answers point at it.
 *
 * Configured in the --config file under "oauth":
 *   {"issuer":"https://auth.example","audience":"https://shampoo.example/mcp",
 *    "jwks":{"keys":[…]} | "jwks_uri":"https://auth.example/jwks.json",
 *    "scope":"shampoo", "conductor_scope":"shampoo:conductor",
 *    "subjects":[{"subject":"user-123","principal":"alice","role":"agent","grants":["ops"],"profile":"default"}]}
 * A token must carry `scope` (default "shampoo"); a subject configured as conductor acts as
 * conductor only when the token also carries `conductor_scope`, else as agent.
 */

export interface OAuthSubject {
  subject: string;
  principal: string;
  role: Role;
  grants: string[];
  profile: string;
}

export interface OAuthConfig {
  issuer: string;
  audience: string;
  jwks?: { keys: JsonWebKey[] };
  jwks_uri?: string;
  scope: string;
  conductor_scope: string;
  subjects: OAuthSubject[];
}

export class OAuthConfigError extends Error {}

const KEYS = ["issuer", "audience", "jwks", "jwks_uri", "scope", "conductor_scope", "subjects"];
const SUBJECT_KEYS = ["subject", "principal", "role", "grants", "profile"];
const LEEWAY_S = 60;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): v is string => typeof v === "string" && v.trim() !== "";

/** Strict parsing of the "oauth" section: an unknown key or a bad value refuses it. */
export function parseOAuth(v: unknown, at = "oauth"): OAuthConfig {
  if (!isObject(v)) throw new OAuthConfigError(`${at} must be an object`);
  for (const k of Object.keys(v)) if (!KEYS.includes(k)) throw new OAuthConfigError(`${at}: unknown key ${k}`);
  if (!str(v.issuer) || !str(v.audience)) throw new OAuthConfigError(`${at}.issuer and ${at}.audience are required`);
  const hasJwks = isObject(v.jwks) && Array.isArray(v.jwks.keys);
  if (hasJwks === str(v.jwks_uri)) throw new OAuthConfigError(`${at}: exactly one of jwks {keys:[…]} or jwks_uri`);
  if (!Array.isArray(v.subjects) || v.subjects.length === 0) throw new OAuthConfigError(`${at}.subjects must be a non-empty array`); // biome-ignore format: one check
  const subjects = v.subjects.map((s, i): OAuthSubject => {
    const where = `${at}.subjects[${i}]`;
    if (!isObject(s)) throw new OAuthConfigError(`${where} must be an object`);
    for (const k of Object.keys(s)) if (!SUBJECT_KEYS.includes(k)) throw new OAuthConfigError(`${where}: unknown key ${k}`); // biome-ignore format: one check
    if (!str(s.subject) || !str(s.principal))
      throw new OAuthConfigError(`${where}: subject and principal are required`);
    if (!ROLES.includes(s.role as Role)) throw new OAuthConfigError(`${where}.role must be agent or conductor`);
    if (!Array.isArray(s.grants) || s.grants.some((g) => typeof g !== "string")) throw new OAuthConfigError(`${where}.grants must be an array of strings`); // biome-ignore format: one check
    const profile = s.profile ?? "default";
    if (typeof profile !== "string" || !/^[A-Za-z0-9._-]{1,64}$/.test(profile)) throw new OAuthConfigError(`${where}.profile is not a profile name`); // biome-ignore format: one check
    return { subject: s.subject, principal: s.principal, role: s.role as Role, grants: s.grants as string[], profile };
  });
  return {
    issuer: v.issuer,
    audience: v.audience,
    ...(hasJwks ? { jwks: v.jwks as { keys: JsonWebKey[] } } : { jwks_uri: v.jwks_uri as string }),
    scope: str(v.scope) ? v.scope : "shampoo",
    conductor_scope: str(v.conductor_scope) ? v.conductor_scope : "shampoo:conductor",
    subjects,
  };
}

const ALGS: Record<string, { hash: string; ec?: boolean; pss?: boolean }> = {
  RS256: { hash: "sha256" },
  PS256: { hash: "sha256", pss: true },
  ES256: { hash: "sha256", ec: true },
};

function decodePart(s: string | undefined): Record<string, unknown> | null {
  if (!s || !/^[A-Za-z0-9_-]+$/.test(s)) return null;
  try {
    const v = JSON.parse(Buffer.from(s, "base64url").toString("utf8"));
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

export class OAuthVerifier {
  private keys = new Map<string, KeyObject>();
  private fetchedAt = 0;
  constructor(
    readonly config: OAuthConfig,
    private readonly clock: Clock,
    private readonly fetchJwks: (url: string) => Promise<unknown> = async (url) => (await fetch(url)).json(),
  ) {
    if (config.jwks) this.load(config.jwks.keys);
  }

  private load(keys: unknown[]): void {
    this.keys.clear();
    for (const [i, k] of keys.entries()) {
      if (!isObject(k)) continue;
      try {
        this.keys.set(
          typeof k.kid === "string" ? k.kid : `#${i}`,
          createPublicKey({ key: k as JsonWebKey, format: "jwk" }),
        );
      } catch {
        // a key this runtime cannot use is skipped, never trusted
      }
    }
  }

  private async key(kid: unknown): Promise<KeyObject | undefined> {
    const find = () => (typeof kid === "string" ? this.keys.get(kid) : this.keys.size === 1 ? [...this.keys.values()][0] : undefined); // biome-ignore format: one rule
    const found = find();
    if (found || !this.config.jwks_uri || this.clock.now() - this.fetchedAt < 60_000) return found;
    this.fetchedAt = this.clock.now(); // at most one fetch a minute, whatever kids are presented
    const doc = await this.fetchJwks(this.config.jwks_uri).catch(() => null);
    if (isObject(doc) && Array.isArray(doc.keys)) this.load(doc.keys);
    return find();
  }

  /** The caller an access token stands for, or null (any doubt is null). */
  async authenticate(token: string): Promise<Caller | null> {
    const [h, p, s, extra] = token.split(".");
    if (extra !== undefined || !s) return null;
    const header = decodePart(h);
    const claims = decodePart(p);
    const alg = typeof header?.alg === "string" ? ALGS[header.alg] : undefined;
    if (!header || !claims || !alg || !/^[A-Za-z0-9_-]+$/.test(s)) return null;
    const key = await this.key(header.kid);
    if (!key) return null;
    const ok = verify(alg.hash, Buffer.from(`${h}.${p}`), {
      key,
      ...(alg.ec ? { dsaEncoding: "ieee-p1363" as const } : {}),
      ...(alg.pss ? { padding: 6, saltLength: 32 } : {}),
    }, Buffer.from(s, "base64url")); // biome-ignore format: one call
    if (!ok) return null;
    const now = this.clock.now() / 1000;
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (claims.iss !== this.config.issuer || !aud.includes(this.config.audience)) return null;
    if (typeof claims.exp !== "number" || claims.exp + LEEWAY_S <= now) return null;
    if (typeof claims.nbf === "number" && claims.nbf - LEEWAY_S > now) return null;
    const scopes = typeof claims.scope === "string" ? claims.scope.split(" ") : [];
    if (!scopes.includes(this.config.scope)) return null;
    const entry = this.config.subjects.find((x) => x.subject === claims.sub);
    if (!entry) return null;
    const role: Role =
      entry.role === "conductor" && scopes.includes(this.config.conductor_scope) ? "conductor" : "agent";
    return makeCaller({ principal: entry.principal, role, profile: entry.profile, grants: entry.grants });
  }

  /** RFC 9728 protected-resource metadata. */
  metadata(): Record<string, unknown> {
    return {
      resource: this.config.audience,
      authorization_servers: [this.config.issuer],
      bearer_methods_supported: ["header"],
      scopes_supported: [this.config.scope, this.config.conductor_scope],
      resource_name: "SHAMPOO",
    };
  }

  /** The metadata document's routes (plain and path-suffixed for the MCP endpoint). */
  routes(mcpPath = "/mcp"): RouteHandler {
    return (app) => {
      for (const path of ["/.well-known/oauth-protected-resource", `/.well-known/oauth-protected-resource${mcpPath}`]) {
        app.get(path, (c) => c.json(this.metadata(), 200, { "cache-control": "max-age=300" }));
      }
    };
  }
}

import { type DomainError, type RawBuilder, sql } from "kernel";
import { fail } from "../platform/errors.ts";

/**
 * Who is calling. One `Caller` is resolved per call (stdio: from the command line or config;
 * HTTP: per session from its bearer token) and passed to every service and store function.
 *
 * - role: `agent` or `conductor` (conductor-only tools arrive with coordination).
 * - grants: named projects; "" is the untagged enclave (content without a project), which needs
 *   its own explicit grant and fails closed otherwise; "*" (star) widens visibility to every
 *   named project — it never covers the untagged enclave, and never confers origination or role
 *   ownership (those checks live with the tools that need them).
 * - profile: a hard data boundary. Every row carries its profile and nothing crosses profiles.
 */
export type Role = "agent" | "conductor";

export interface Caller {
  principal: string;
  role: Role;
  profile: string;
  projects: ReadonlySet<string>;
  untagged: boolean;
  star: boolean;
  /** The tools this principal may see and call (platform/profiles.ts); absent = every tool. */
  tools?: ReadonlySet<string>;
}

export const ROLES: Role[] = ["agent", "conductor"];

/** Parses grants like ["shared-ops", "", "*"]. The literal "*" is a grant, never a project value. */
export function makeCaller(opts: { principal: string; role: Role; profile: string; grants: string[] }): Caller {
  if (!opts.principal.trim()) throw new Error("principal must not be blank");
  if (!ROLES.includes(opts.role)) throw new Error(`role must be agent or conductor, got ${opts.role}`);
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(opts.profile)) throw new Error(`bad profile name ${opts.profile}`);
  const projects = new Set<string>();
  let untagged = false;
  let star = false;
  for (const g of opts.grants) {
    if (g === "") untagged = true;
    else if (g === "*") star = true;
    else projects.add(g);
  }
  return { principal: opts.principal, role: opts.role, profile: opts.profile, projects, untagged, star };
}

/** The no-configuration local caller of `shampoo serve` over stdio: everything, in profile "default". */
export function localCaller(principal = "local"): Caller {
  return makeCaller({ principal, role: "conductor", profile: "default", grants: ["*", ""] });
}

/** Normalizes a project argument: absent/empty → null (untagged). "*" is never a project. */
export function projectValue(v: unknown): string | null {
  if (v === undefined || v === null || v === "") return null;
  if (v === "*") throw fail("invalid_project", "'*' is a grant, not a project value");
  return String(v);
}

/** Can the caller see content of this project (null = untagged)? */
export function canSee(caller: Caller, project: string | null): boolean {
  if (project === null) return caller.untagged;
  return caller.star || caller.projects.has(project);
}

/** Writes follow the same grants: a project the caller cannot see cannot be written. */
export const canWrite = canSee;

/**
 * The scope of a read as data for the store's WHERE clause: scope filters live in the queries,
 * not in after-the-fact checks (no existence oracle).
 */
export interface Scope {
  profile: string;
  /** null → every named project (star). */
  projects: string[] | null;
  untagged: boolean;
}

export function scopeOf(caller: Caller): Scope {
  return { profile: caller.profile, projects: caller.star ? null : [...caller.projects], untagged: caller.untagged };
}

/** Generic denial for writes outside the grants (never says whether the project exists). */
export function scopeDenied(): DomainError {
  return fail("scope_denied", "Project not in scope");
}

/**
 * The project part of a scope as one SQL condition on `column` (default `project`; or an SQL expression): named
 * projects granted (or any named project with star), and NULL only with the untagged grant.
 * Every domain's scoped queries use this one rule; the profile is filtered beside it.
 */
export function projectCondition(scope: Scope, column: string | RawBuilder<unknown> = "project"): RawBuilder<boolean> {
  const col = typeof column === "string" ? sql.ref(column) : column;
  const ors: RawBuilder<boolean>[] = [];
  if (scope.projects === null) ors.push(sql<boolean>`${col} IS NOT NULL`);
  else if (scope.projects.length > 0) ors.push(sql<boolean>`${col} IN (${sql.join(scope.projects)})`);
  if (scope.untagged) ors.push(sql<boolean>`${col} IS NULL`);
  return ors.length > 0 ? sql<boolean>`(${sql.join(ors, sql` OR `)})` : sql<boolean>`1 = 0`;
}

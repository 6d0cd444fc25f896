import { expect } from "vitest";
import type { Agent, Harness } from "../support/shampoo.ts";

/** Helpers of the debate suites: a cast of separate principals (each its own MCP client). */

let n = 0;
export function uniq(prefix = "p"): string {
  return `${prefix}-${++n}-${Math.random().toString(36).slice(2, 7)}`;
}

export type Sc = Record<string, unknown>;

export interface Actor extends Agent {
  /** A session the actor owns (session_save), in the cast's project. */
  session: string;
  /** A second owned session (rotations). */
  spare: string;
}

export async function actor(
  h: Harness,
  principal: string,
  project: string,
  opts: { role?: "agent" | "conductor"; grants?: string[] } = {},
): Promise<Actor> {
  const a = await h.as({ principal, role: opts.role ?? "agent", grants: opts.grants ?? [project] });
  const s1 = await a.sc("session_save", { project, summary: `${principal} main` });
  const s2 = await a.sc("session_save", { project, summary: `${principal} spare` });
  return Object.assign(a, { session: s1.session_id as string, spare: s2.session_id as string });
}

export interface Cast {
  project: string;
  conductor: Actor;
  pro: Actor;
  con: Actor;
  judge: Actor;
  outsider: Actor;
  star: Actor;
}

/** Conductor, two debaters, a judge, an in-scope outsider and a star agent, each its own principal. */
export async function cast(h: Harness): Promise<Cast> {
  const project = uniq("proj");
  return {
    project,
    conductor: await actor(h, uniq("cond"), project, { role: "conductor" }),
    pro: await actor(h, uniq("pro"), project),
    con: await actor(h, uniq("con"), project),
    judge: await actor(h, uniq("judge"), project),
    outsider: await actor(h, uniq("out"), project),
    star: await actor(h, uniq("star"), project, { grants: ["*", project] }),
  };
}

/** The structured result of a call that must succeed. */
export async function ok(a: Agent, tool: string, args: Sc): Promise<Sc> {
  const r = await a.call(tool, args);
  expect(r.isError, `${tool}: ${JSON.stringify(r.structuredContent)}`).toBeFalsy();
  return r.structuredContent as Sc;
}

/** The error payload of a call that must fail. */
export async function err(a: Agent, tool: string, args: Sc): Promise<Sc> {
  const r = await a.call(tool, args);
  expect(r.isError, `${tool} should fail: ${JSON.stringify(r.structuredContent)}`).toBe(true);
  return r.structuredContent as Sc;
}

export const DENIED = {
  error: "not-found: unknown topic, undeclared role, or a role you do not own",
  error_type: "not_found",
};
export const UNKNOWN_TOPIC = { error: "unknown_topic", error_type: "unknown_topic" };
export const MISSING_TOPIC = "7c9e6679-7425-40de-944b-e07fc1f90ae7";

/**
 * A legacy topic the conductor creates with CONDUCTOR bound to its session and the other roles
 * as open seats, which each actor then takes by binding its own session.
 */
export async function openTopic(
  c: Cast,
  seats: Array<[string, Actor]>,
  extra: Sc = {},
): Promise<{ topicId: string; init: Sc }> {
  const roles = [
    { role: "CONDUCTOR", session_id: c.conductor.session },
    ...seats.map(([role]) => ({ role, session_id: null })),
  ];
  const init = await ok(c.conductor, "debate_init", {
    title: uniq("topic"),
    created_by_role: "CONDUCTOR",
    project: c.project,
    roles_json: JSON.stringify(roles),
    ...extra,
  });
  const topicId = init.topic_id as string;
  for (const [role, a] of seats) await ok(a, "debate_bind_role", { topic_id: topicId, role, session_id: a.session });
  return { topicId, init };
}

/** A debate/v1 topic: PRO and CON blind, JUDGE, each bound by its own principal. */
export async function v1Topic(c: Cast, rounds = 1): Promise<string> {
  const { topicId } = await openTopic(
    c,
    [
      ["PRO", c.pro],
      ["CON", c.con],
      ["JUDGE", c.judge],
    ],
    { protocol_version: "debate/v1", blind_roles_csv: "PRO,CON", max_rounds: rounds, phase_timeout_seconds: 600 },
  );
  return topicId;
}

export function post(a: Agent, topicId: string, role: string, kind: string, body: string, extra: Sc = {}): Promise<Sc> {
  return ok(a, "debate_post", { topic_id: topicId, role, priority: "M", kind, body, ...extra });
}

import { type RawBuilder, sql } from "kernel";
import { type Caller, projectCondition, scopeOf } from "../../../access/caller.ts";

/**
 * Who sees a quorum (and the lanes under it): conductor and star see every quorum of the
 * profile; anyone else needs the quorum's project in scope AND to be a client participant of it.
 * One SQL condition on the quorum alias `q`, so the filter lives in the query (no oracle).
 */
export function quorumVisible(caller: Caller, q: string): RawBuilder<boolean> {
  if (caller.role === "conductor" || caller.star) return sql<boolean>`1 = 1`;
  const project = projectCondition(scopeOf(caller), `${q}.project`);
  return sql<boolean>`(${project} AND EXISTS (SELECT 1 FROM shampoo_quorum_participants qp
    WHERE qp.profile = ${sql.ref(`${q}.profile`)} AND qp.quorum_id = ${sql.ref(`${q}.id`)}
      AND qp.kind = 'client' AND qp.ref = ${caller.principal}))`;
}

/** Origination (quorum_create, lane_create, job_create): an explicit grant, never star. */
export function explicitGrant(caller: Caller, project: string | null): boolean {
  return project === null ? caller.untagged : caller.projects.has(project);
}

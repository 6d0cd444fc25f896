import { sql } from "kernel";
import { type Db, type GraphScope, visibleSql } from "./rows.ts";

/**
 * The export queries of memory.jsonl (service/jsonl.ts): the visible live content of one
 * project, in keyset pages of (name, id).
 */

function inProject(a: string, project: string | null) {
  return project === null ? sql`${sql.ref(`${a}.project`)} IS NULL` : sql`${sql.ref(`${a}.project`)} = ${project}`;
}

/** Live, in the project, visible to the caller. */
function live(a: string, s: GraphScope, project: string | null) {
  return sql`${sql.ref(`${a}.lifecycle`)} = 'live' AND ${inProject(a, project)} AND ${visibleSql(a, s)}`;
}

/** How many entities, and relations between two of them, the export of a project holds. */
export async function exportCounts(
  db: Db,
  s: GraphScope,
  project: string | null,
): Promise<{ entities: number; relations: number }> {
  const counts = await sql<{ entities: number | string; relations: number | string }>`SELECT
      (SELECT count(*) FROM shampoo_entities e WHERE e.profile = ${s.profile} AND ${live("e", s, project)}) AS entities,
      (SELECT count(*) FROM shampoo_relations r
        JOIN shampoo_entities f ON f.id = r.from_id JOIN shampoo_entities t ON t.id = r.to_id
        WHERE r.profile = ${s.profile} AND r.lifecycle = 'live' AND ${live("f", s, project)}
          AND ${live("t", s, project)}) AS relations`.execute(db);
  return { entities: Number(counts.rows[0]?.entities ?? 0), relations: Number(counts.rows[0]?.relations ?? 0) };
}

export interface ExportEntity {
  id: string;
  name: string;
  entity_type: string;
}

/** The page of the project's exported entities after `after` in (name, id) order: O(page) each. */
export async function exportPage(
  db: Db,
  s: GraphScope,
  project: string | null,
  after: { name: string; id: string } | null,
  size: number,
): Promise<ExportEntity[]> {
  const rows = await sql<ExportEntity>`
          SELECT e.id, e.name, e.entity_type FROM shampoo_entities e
          WHERE e.profile = ${s.profile} AND ${live("e", s, project)}
            ${after ? sql`AND (e.name > ${after.name} OR (e.name = ${after.name} AND e.id > ${after.id}))` : sql``}
          ORDER BY e.name, e.id LIMIT ${size}`.execute(db);
  return rows.rows;
}

/** The live relations leaving these entities whose other endpoint is exported too. */
export async function exportEdges(
  db: Db,
  s: GraphScope,
  project: string | null,
  fromIds: string[],
): Promise<{ from: string; to: string; relation_type: string }[]> {
  const edges = await sql<{ from: string; to: string; relation_type: string }>`
        SELECT f.name AS "from", t.name AS "to", r.relation_type FROM shampoo_relations r
          JOIN shampoo_entities f ON f.id = r.from_id JOIN shampoo_entities t ON t.id = r.to_id
        WHERE r.from_id IN (${sql.join(fromIds)}) AND r.lifecycle = 'live' AND ${live("t", s, project)}
        ORDER BY f.name, t.name, r.relation_type`.execute(db);
  return edges.rows;
}

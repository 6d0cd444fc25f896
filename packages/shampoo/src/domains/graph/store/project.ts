import { type DialectName, sql } from "kernel";
import { fts5Quote } from "../../../store/search-quote.ts";
import { fold } from "../model.ts";
import { PG_ENTITY_DOC, pgFold } from "../schema.ts";
import { type Db, type GraphScope, visibleSql } from "./rows.ts";

/** search_by_project's queries: the substring pool of one project, and its blank listing. */

/** `%…%` LIKE pattern of a literal, with `\` as the escape character. */
export function likeAny(text: string): string {
  return `%${text.replaceAll("\\", "\\\\").replaceAll("%", "\\%").replaceAll("_", "\\_")}%`;
}

function projectIs(a: string, project: string | null) {
  return project === null ? sql`${sql.ref(`${a}.project`)} IS NULL` : sql`${sql.ref(`${a}.project`)} = ${project}`;
}

/**
 * Ids of live visible entities of one project whose name, aliases, type or a live observation
 * contains one of the substrings (case- and accent-insensitive). SQLite answers from its trigram
 * indexes when every substring has three characters or more (the trigram minimum) and scans
 * the project with LIKE otherwise (ASCII case folding only there); PostgreSQL uses LIKE on the
 * folded expressions, which its pg_trgm indexes accelerate where the extension is installed.
 */
export async function substringPool(
  db: Db,
  dialect: DialectName,
  s: GraphScope,
  project: string | null,
  subs: string[],
  limit: number,
): Promise<string[]> {
  const where = sql`e.lifecycle = 'live' AND ${projectIs("e", project)} AND ${visibleSql("e", s)}`;
  let entityRows: { id: string }[];
  let obsRows: { id: string }[];
  if (dialect === "sqlite" && subs.every((x) => [...x].length >= 3)) {
    const match = subs.map(fts5Quote).join(" OR ");
    entityRows = (
      await sql<{ id: string }>`SELECT e.id FROM shampoo_entities_tri t JOIN shampoo_entities e ON e.rid = t.rowid
        WHERE shampoo_entities_tri MATCH ${match} AND ${where} LIMIT ${limit}`.execute(db)
    ).rows;
    obsRows = (
      await sql<{ id: string }>`SELECT DISTINCT e.id FROM shampoo_observations_tri t
        JOIN shampoo_observations o ON o.rid = t.rowid JOIN shampoo_entities e ON e.id = o.entity_id
        WHERE shampoo_observations_tri MATCH ${match} AND o.lifecycle = 'live' AND ${where} LIMIT ${limit}`.execute(db)
    ).rows;
  } else {
    // SQLite LIKE folds ASCII case; PostgreSQL compares the folded, lowercased expressions that
    // its trigram indexes are built on (schema.ts pgFold), with folded substrings.
    const sqlite = dialect === "sqlite";
    const esc = sql.raw(" ESCAPE '\\'");
    const entityDoc = sql.raw(
      sqlite ? "(e.name || char(10) || e.alias_text || char(10) || e.entity_type)" : pgFold(PG_ENTITY_DOC),
    );
    const obsDoc = sql.raw(sqlite ? "o.content" : pgFold("content"));
    const pats = sqlite ? subs : [...new Set(subs.map(fold))];
    const anyOf = (doc: typeof entityDoc) =>
      sql.join(
        pats.map((x) => sql`${doc} LIKE ${likeAny(x)}${esc}`),
        sql` OR `,
      );
    entityRows = (
      await sql<{ id: string }>`SELECT e.id FROM shampoo_entities e
        WHERE e.profile = ${s.profile} AND (${anyOf(entityDoc)}) AND ${where} LIMIT ${limit}`.execute(db)
    ).rows;
    obsRows = (
      await sql<{
        id: string;
      }>`SELECT DISTINCT e.id FROM shampoo_observations o JOIN shampoo_entities e ON e.id = o.entity_id
        WHERE e.profile = ${s.profile} AND o.lifecycle = 'live' AND (${anyOf(obsDoc)}) AND ${where}
        LIMIT ${limit}`.execute(db)
    ).rows;
  }
  const ids: string[] = [];
  for (const r of [...entityRows, ...obsRows]) if (!ids.includes(r.id) && ids.length < limit) ids.push(r.id);
  return ids;
}

/** The first `limit` live visible entities of a project by name (blank search_by_project). */
export async function projectListing(db: Db, s: GraphScope, project: string | null, limit: number): Promise<string[]> {
  const r = await sql<{ id: string }>`SELECT e.id FROM shampoo_entities e
    WHERE e.profile = ${s.profile} AND e.lifecycle = 'live' AND ${projectIs("e", project)} AND ${visibleSql("e", s)}
    ORDER BY e.name, e.id LIMIT ${limit}`.execute(db);
  return r.rows.map((x) => x.id);
}

import type { DialectName, Generated, Kysely } from "kernel";
import type { PlatformDB } from "../platform/schema.ts";

/** Row types. Timestamps are ISO-8601 UTC text; JSON columns hold JSON text; both dialects alike. */
export interface HistoryRow {
  seq: Generated<number>;
  event_id: string;
  profile: string;
  principal: string;
  role: string;
  session_id: string | null;
  /** Per-profile logical clock: strictly increasing within a profile. */
  clock: number;
  at: string;
  entity_kind: string;
  entity_id: string;
  action: string;
  old_json: string | null;
  new_json: string | null;
  payload_json: string | null;
  parent_event_id: string | null;
  /** Where the mutation came from: {tool, session, request}. */
  source_json: string;
  /**
   * The project of the row when the event happened ("" untagged; NULL unknown: older events and
   * kinds without a project). Migration governance/0004_history_project.
   */
  project: string | null;
}

export interface ClockRow {
  profile: string;
  clock: number;
}

/** A migration: receives the dialect because some DDL differs. */
export type Up = (db: Kysely<unknown>, dialect: DialectName) => Promise<void>;

/**
 * The whole SHAMPOO database, as types only: the platform's tables here, each module's in its
 * own schema.ts, joined in by modules.ts (`interface ShampooDB extends <Area>DB` in its
 * `declare module` block, next to the module list). So the shared schema imports no domain,
 * and every file that names ShampooDB sees every module's tables.
 */
export interface ShampooDB extends PlatformDB {}

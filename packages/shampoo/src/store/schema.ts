import type { DialectName, Generated, Kysely } from "kernel";
import type { GovernanceDB } from "../domains/governance/schema/tables.ts";
import type { GraphDB } from "../domains/graph/schema.ts";
import type { LinksDB } from "../domains/links/schema.ts";
import type { ReflectionDB } from "../domains/reflection/schema.ts";
import type { SessionsDB } from "../domains/sessions/schema.ts";
import type { TasksDB } from "../domains/tasks/schema.ts";
import type { PlatformDB } from "../platform/schema.ts";

export type { TaskFacetRow, TaskRow, TaskScopeRow } from "../domains/tasks/schema.ts";

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
}

export interface ClockRow {
  profile: string;
  clock: number;
}

/** A migration: receives the dialect because some DDL differs. */
export type Up = (db: Kysely<unknown>, dialect: DialectName) => Promise<void>;

/**
 * The whole SHAMPOO database, as types only: each module declares its tables in its own
 * schema.ts, and the migrations are gathered by modules.ts (no runtime import from here, so the
 * shared schema never depends on a domain). A new module adds `& <Area>DB` here.
 */
export type ShampooDB = PlatformDB & TasksDB & LinksDB & SessionsDB & GraphDB & GovernanceDB & ReflectionDB;

import { type DialectName, type Kysely, sql } from "kernel";
import type { CreateTableBuilder } from "kysely";
import { defineStateMachine, type Moved, type StateMachine } from "./state-machine.ts";
import type { WriteScope } from "./write.ts";

/**
 * The one never-delete vocabulary. Nothing is physically deleted: a row is
 * - live: in use;
 * - void: withdrawn (a mistake, a duplicate, an unlink, a delete_* tool); hidden from ordinary
 *   reads, kept, and revivable by identity (the same id comes back, with its history);
 * - retired: finished with for good (superseded, stale, discarded); kept, terminal.
 *
 * Every table that rows can leave carries the column `lifecycle` and the audit columns of each
 * move: voided_at / voided_by / void_reason, revived_at / revived_by, retired_at / retired_by /
 * retire_reason. A move stamps its own columns only, so a revived row keeps its void stamps as
 * last-void evidence (the catalog's rule for the graph); the whole story is in the history events.
 *
 * Workflow states a tool sets on purpose are not this vocabulary and stay the domain's own
 * column: a task's `status` (done / archived / cancelled are update_task values), a fact's truth
 * status, a reflection run's `status` and its `archived_at` listing flag (an archived run is
 * still read by id).
 */
export const LIFECYCLE_STATES = ["live", "void", "retired"] as const;
export type LifecycleState = (typeof LIFECYCLE_STATES)[number];
export type LifecycleMove = "void" | "revive" | "retire";

/** The lifecycle columns as a row type carries them; `S`: the states its table uses. */
export interface LifecycleColumns<S extends LifecycleState = LifecycleState> {
  lifecycle: S;
  voided_at: string | null;
  voided_by: string | null;
  void_reason: string | null;
  revived_at: string | null;
  revived_by: string | null;
  retired_at: string | null;
  retired_by: string | null;
  retire_reason: string | null;
}

/** The audit columns, in the order lifecycleColumns adds them. */
export const LIFECYCLE_AUDIT_COLUMNS = [
  "voided_at",
  "voided_by",
  "void_reason",
  "revived_at",
  "revived_by",
  "retired_at",
  "retired_by",
  "retire_reason",
] as const;

/** The lifecycle columns, for a module's migration: `lifecycleColumns(db.schema.createTable(…))`. */
export function lifecycleColumns<T extends string, C extends string>(t: CreateTableBuilder<T, C>) {
  let out = t.addColumn("lifecycle", "text", (c) => c.notNull().defaultTo("live"));
  for (const col of LIFECYCLE_AUDIT_COLUMNS) out = out.addColumn(col, "text");
  return out;
}

/** Who moves a row, when, and why. */
export interface Stamp {
  at: string;
  by: string;
  reason?: string | null;
}

/** The stamp of a move inside a write: its time and its caller. */
export function stampOf(w: Pick<WriteScope, "now" | "ctx">, reason?: string | null): Stamp {
  return { at: new Date(w.now).toISOString(), by: w.ctx.caller.principal, reason: reason ?? null };
}

/** The columns each move sets: its state and its own audit columns. */
export interface VoidSet {
  lifecycle: "void";
  voided_at: string;
  voided_by: string;
  void_reason: string | null;
}
export interface ReviveSet {
  lifecycle: "live";
  revived_at: string;
  revived_by: string;
}
export interface RetireSet {
  lifecycle: "retired";
  retired_at: string;
  retired_by: string;
  retire_reason: string | null;
}

/**
 * The columns one move sets (for `.set(…)`): its state and its own audit columns. A revive
 * leaves the void stamps in place (last-void evidence).
 */
export function lifecycleSet(move: "void", s: Stamp): VoidSet;
export function lifecycleSet(move: "revive", s: Stamp): ReviveSet;
export function lifecycleSet(move: "retire", s: Stamp): RetireSet;
export function lifecycleSet(move: LifecycleMove, s: Stamp): VoidSet | ReviveSet | RetireSet;
export function lifecycleSet(move: LifecycleMove, s: Stamp): VoidSet | ReviveSet | RetireSet {
  const reason = s.reason ?? null;
  switch (move) {
    case "void":
      return { lifecycle: "void", voided_at: s.at, voided_by: s.by, void_reason: reason };
    case "revive":
      return { lifecycle: "live", revived_at: s.at, revived_by: s.by };
    case "retire":
      return { lifecycle: "retired", retired_at: s.at, retired_by: s.by, retire_reason: reason };
  }
}

/** A new row's lifecycle columns: live, never moved (spread into an insert's values). */
export const NEW_LIFECYCLE = {
  lifecycle: "live",
  voided_at: null,
  voided_by: null,
  void_reason: null,
  revived_at: null,
  revived_by: null,
  retired_at: null,
  retired_by: null,
  retire_reason: null,
} as const satisfies LifecycleColumns;

/** `<alias>.lifecycle = 'live'` for raw SQL (Kysely builders: `.where("x.lifecycle", "=", "live")`). */
export function isLive(alias?: string) {
  return sql<boolean>`${sql.ref(alias ? `${alias}.lifecycle` : "lifecycle")} = 'live'`;
}

export interface Lifecycle {
  machine: StateMachine<LifecycleState, LifecycleMove>;
  void(w: WriteScope, id: string, expectedVersion: number, reason: string): Promise<Moved<LifecycleState>>;
  revive(w: WriteScope, id: string, expectedVersion: number, reason?: string): Promise<Moved<LifecycleState>>;
  retire(w: WriteScope, id: string, expectedVersion: number, reason: string): Promise<Moved<LifecycleState>>;
}

/**
 * The versioned lifecycle of the rows of `table` (lifecycleColumns plus id, profile and an integer
 * `version`): each move is a compare-and-swap on the version the caller read.
 */
export function lifecycleOf(name: string, table: string): Lifecycle {
  const machine = defineStateMachine<LifecycleState, LifecycleMove>({
    name,
    table,
    stateColumn: "lifecycle",
    states: LIFECYCLE_STATES,
    initial: "live",
    moves: {
      void: { from: ["live"], to: "void" },
      revive: { from: ["void"], to: "live" },
      retire: { from: ["live", "void"], to: "retired" },
    },
  });
  const go = (move: LifecycleMove) => (w: WriteScope, id: string, expectedVersion: number, reason?: string) => {
    const { lifecycle: _state, ...set } = lifecycleSet(move, stampOf(w, reason));
    return machine.move(w, {
      id,
      move,
      expectedVersion,
      set,
      ...(reason ? { payload: { reason } } : {}),
    });
  };
  return { machine, void: go("void"), revive: go("revive"), retire: go("retire") };
}

/**
 * Moves an existing table onto the vocabulary, for a module's migration (both engines):
 * - `state.column` holds the old state; `state.map` names the lifecycle of each old value (values
 *   not named are live). With `state.keep` the old column stays (it is a workflow status that
 *   also marked the lifecycle, e.g. a run's `discarded`) and `lifecycle` is added beside it;
 *   otherwise the column is renamed to `lifecycle` (its indexes follow the rename).
 * - `rename` renames old audit columns to the vocabulary's (e.g. removed_at → voided_at);
 * - every audit column still missing is added.
 * Partial indexes or SQL that name the old values must be recreated by the migration itself.
 */
export async function adoptLifecycle(
  db: Kysely<unknown>,
  dialect: DialectName,
  opts: {
    table: string;
    state?: { column: string; map: Record<string, LifecycleState>; keep?: boolean };
    rename?: Record<string, (typeof LIFECYCLE_AUDIT_COLUMNS)[number]>;
  },
): Promise<void> {
  const table = sql.table(opts.table);
  const state = opts.state;
  if (state && !state.keep) {
    await sql`ALTER TABLE ${table} RENAME COLUMN ${sql.ref(state.column)} TO lifecycle`.execute(db);
  } else {
    await sql`ALTER TABLE ${table} ADD COLUMN lifecycle text NOT NULL DEFAULT 'live'`.execute(db);
  }
  for (const [from, to] of Object.entries(opts.rename ?? {})) {
    await sql`ALTER TABLE ${table} RENAME COLUMN ${sql.ref(from)} TO ${sql.ref(to)}`.execute(db);
  }
  if (state) {
    const source = sql.ref(state.keep ? state.column : "lifecycle");
    const whens = Object.entries(state.map).map(([old, next]) => sql`WHEN ${old} THEN ${next}`);
    await sql`UPDATE ${table} SET lifecycle = CASE ${source} ${sql.join(whens, sql` `)} ELSE 'live' END`.execute(db);
  }
  const columns =
    dialect === "postgres"
      ? sql<{ name: string }>`SELECT column_name AS name FROM information_schema.columns
          WHERE table_schema = current_schema() AND table_name = ${opts.table}`
      : sql<{ name: string }>`SELECT name FROM pragma_table_info(${opts.table})`;
  const have = new Set((await columns.execute(db)).rows.map((r) => r.name));
  for (const col of LIFECYCLE_AUDIT_COLUMNS) {
    if (!have.has(col)) await sql`ALTER TABLE ${table} ADD COLUMN ${sql.ref(col)} text`.execute(db);
  }
}

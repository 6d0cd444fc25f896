import type { CreateTableBuilder } from "kysely";
import { defineStateMachine, type Moved, type StateMachine } from "./state-machine.ts";
import type { WriteScope } from "./write.ts";

/**
 * The one never-delete vocabulary. Nothing is physically deleted: a row is
 * - live: in use;
 * - void: withdrawn (a mistake, a duplicate); hidden from ordinary reads, kept, and revivable by
 *   identity (the same id comes back, with its history);
 * - retired: finished with for good (superseded, obsolete); kept, terminal.
 * Every move stamps the audit columns: when, by whom, why.
 */
export const LIFECYCLE_STATES = ["live", "void", "retired"] as const;
export type LifecycleState = (typeof LIFECYCLE_STATES)[number];
export type LifecycleMove = "void" | "revive" | "retire";

/** The lifecycle columns, for a module's migration: `lifecycleColumns(db.schema.createTable(…))`. */
export function lifecycleColumns<T extends string, C extends string>(t: CreateTableBuilder<T, C>) {
  return t
    .addColumn("lifecycle", "text", (c) => c.notNull().defaultTo("live"))
    .addColumn("version", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("lifecycle_at", "text")
    .addColumn("lifecycle_by", "text")
    .addColumn("lifecycle_reason", "text");
}

export interface Lifecycle {
  machine: StateMachine<LifecycleState, LifecycleMove>;
  void(w: WriteScope, id: string, expectedVersion: number, reason: string): Promise<Moved<LifecycleState>>;
  revive(w: WriteScope, id: string, expectedVersion: number, reason?: string): Promise<Moved<LifecycleState>>;
  retire(w: WriteScope, id: string, expectedVersion: number, reason: string): Promise<Moved<LifecycleState>>;
}

/** The lifecycle of the rows of `table` (columns from lifecycleColumns, plus id and profile). */
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
  const go = (move: LifecycleMove) => (w: WriteScope, id: string, expectedVersion: number, reason?: string) =>
    machine.move(w, {
      id,
      move,
      expectedVersion,
      set: {
        lifecycle_at: new Date(w.now).toISOString(),
        lifecycle_by: w.ctx.caller.principal,
        lifecycle_reason: reason ?? null,
      },
      ...(reason ? { payload: { reason } } : {}),
    });
  return { machine, void: go("void"), revive: go("revive"), retire: go("retire") };
}

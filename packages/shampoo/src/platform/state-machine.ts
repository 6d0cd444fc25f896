import { type DomainError, sql } from "kernel";
import { fail, notFound } from "./errors.ts";
import type { WriteScope } from "./write.ts";

export interface Move<S extends string> {
  from: readonly S[];
  to: S;
}

export interface MachineSpec<S extends string, M extends string> {
  /** The entity kind its history events carry. */
  name: string;
  /** The table and its columns: the row's id, profile, state and version (an integer). */
  table: string;
  idColumn?: string;
  stateColumn?: string;
  versionColumn?: string;
  states: readonly S[];
  initial: S;
  moves: Readonly<Record<M, Move<S>>>;
}

export interface MoveRequest<M extends string> {
  id: string;
  move: M;
  /** The version the caller read; the move happens only if the row is still at it. */
  expectedVersion: number;
  /** Other columns the same UPDATE sets (e.g. audit columns); trusted column names only. */
  set?: Record<string, unknown>;
  /** Extra payload for the history event. */
  payload?: unknown;
}

export interface Moved<S extends string> {
  id: string;
  state: S;
  version: number;
}

export interface StateMachine<S extends string, M extends string> {
  spec: MachineSpec<S, M>;
  /** The moves allowed from a state, in declaration order. */
  allowedMoves(state: S): M[];
  /**
   * Compare-and-swap: one UPDATE that checks the expected version and an allowed source state
   * in its WHERE and raises the version; a lost race (or a move not allowed from the current
   * state) changes nothing and answers state_conflict naming the current state, its version and
   * the moves allowed from it. A missing row answers not_found (the module checks scope first).
   */
  move(w: WriteScope, req: MoveRequest<M>): Promise<Moved<S>>;
}

const IDENT = /^[a-z_][a-z0-9_]*$/;

export function defineStateMachine<S extends string, M extends string>(spec: MachineSpec<S, M>): StateMachine<S, M> {
  const col = {
    id: spec.idColumn ?? "id",
    state: spec.stateColumn ?? "state",
    version: spec.versionColumn ?? "version",
  };
  for (const ident of [spec.table, col.id, col.state, col.version]) {
    if (!IDENT.test(ident)) throw new Error(`${spec.name}: bad identifier ${ident}`);
  }
  if (!spec.states.includes(spec.initial))
    throw new Error(`${spec.name}: initial state ${spec.initial} is not declared`);
  const moveNames = Object.keys(spec.moves) as M[];
  for (const m of moveNames) {
    const mv = spec.moves[m];
    for (const s of [...mv.from, mv.to]) {
      if (!spec.states.includes(s)) throw new Error(`${spec.name}: move ${m} names undeclared state ${s}`);
    }
  }
  const allowedMoves = (state: S) => moveNames.filter((m) => spec.moves[m].from.includes(state));
  const table = sql.table(spec.table);
  const ref = (c: string) => sql.ref(c);

  return {
    spec,
    allowedMoves,
    async move(w, req) {
      const mv = spec.moves[req.move];
      if (!mv) throw fail("validation", `${spec.name}: unknown move ${String(req.move)}`);
      const profile = w.ctx.caller.profile;
      const sets = [sql`${ref(col.state)} = ${mv.to}`, sql`${ref(col.version)} = ${ref(col.version)} + 1`];
      for (const [k, v] of Object.entries(req.set ?? {})) {
        if (!IDENT.test(k) || k === col.state || k === col.version) throw new Error(`${spec.name}: cannot set ${k}`);
        sets.push(sql`${ref(k)} = ${v}`);
      }
      const from = mv.from as readonly string[];
      // The one statement of the move: state and version checked where they are changed.
      const r = await sql<{ state: string; version: number | string }>`UPDATE ${table} SET ${sql.join(sets)}
        WHERE ${ref(col.id)} = ${req.id} AND profile = ${profile}
          AND ${ref(col.version)} = ${req.expectedVersion} AND ${ref(col.state)} IN (${sql.join(from)})
        RETURNING ${ref(col.version)} AS version`.execute(w.trx);
      const row = r.rows[0];
      if (row) {
        await w.event({
          entityKind: spec.name,
          entityId: req.id,
          action: req.move,
          old: { version: req.expectedVersion },
          new: { state: mv.to, version: Number(row.version) },
          ...(req.payload === undefined ? {} : { payload: req.payload }),
        });
        return { id: req.id, state: mv.to, version: Number(row.version) };
      }
      const cur = await sql<{
        state: string;
        version: number | string;
      }>`SELECT ${ref(col.state)} AS state, ${ref(col.version)} AS version
        FROM ${table} WHERE ${ref(col.id)} = ${req.id} AND profile = ${profile}`.execute(w.trx);
      const c = cur.rows[0];
      if (!c) throw notFound(spec.name);
      throw stateConflict(spec.name, req.move, c.state as S, Number(c.version), allowedMoves(c.state as S));
    },
  };
}

export function stateConflict(
  name: string,
  move: string,
  state: string,
  version: number,
  allowed: string[],
): DomainError {
  return fail(
    "state_conflict",
    `${name} is ${state} (version ${version}): ${move} is not possible now; allowed: ${allowed.join(", ") || "none"}`,
    { current_state: state, current_version: version, allowed_moves: allowed },
  );
}

/**
 * The contract between the attempt lifecycle and a suite (a family of rooms).
 *
 * A suite is pure: no I/O, no clock, no Math.random. Everything follows from
 * (suite id, generation, seed) and the list of actions taken so far, so the same
 * seed builds the same room on every machine for as long as the generation is kept
 * (docs/chamber-rooms.md, shared/spec/chamber-rooms.md).
 *
 * The lifecycle (attempts/) owns action counting, the 64-action budget, expected_action_index,
 * TTL and sealing. The suite owns the room: what objects exist, what `look`, `inspect` and
 * `hint` reveal, which ops are allowed at each stage, and whether a submission is right.
 */

/** Every op a room may ever allow (seed 000, `action_ops`). */
export const ACTION_OPS = [
  "look",
  "inspect",
  "hint",
  "submit_sequence",
  "submit_placement",
  "submit_number",
  "submit_master",
  "submit_order",
  "submit_bins",
  "submit_time",
  "submit_bolt",
] as const;
export type ActionOp = (typeof ACTION_OPS)[number];

/** One action as the agent sent it (already schema-validated by the tool layer). */
export interface RoomAction {
  op: ActionOp;
  object?: string;
  /** string, or array of at most 16 strings of at most 64 chars (seed 000 schema). */
  value?: string | string[];
}

/**
 * Mutable-by-replacement room progress. Must be plain JSON (it is stored in the database
 * between calls). Suites put whatever they need in here; the lifecycle never reads it except
 * through the Suite methods.
 */
export type RoomState = Record<string, unknown>;

/** What the agent sees. Plain JSON. Must never contain oracle values. */
export interface Observation {
  /** Short human-readable sentence(s). */
  text: string;
  /** Optional structured payload the agent can parse (lists, tables...). */
  data?: unknown;
}

/** Outcome of one action, as seen by the lifecycle. */
export type ActionOutcome =
  | {
      kind: "ok";
      state: RoomState;
      observation: Observation;
      /** Submissions only: was it right. Undefined for look/inspect/hint. */
      correct?: boolean;
      /** True when this action completed the final stage. */
      solved?: boolean;
      /**
       * Private facts for the replay/oracle ledger (e.g. the expected answer the submission
       * was compared against). Never returned to the agent; the public replay redacts it
       * to a salted digest.
       */
      private?: Record<string, unknown>;
    }
  | {
      /** The action is refused and costs nothing: the state is unchanged. */
      kind: "refused";
      code: "op_not_allowed" | "object_not_available" | "value_format_invalid";
      message: string;
    };

/** The public manifest of a suite, hashed and bound into every card. Plain JSON. */
export interface SuiteManifest {
  suite_id: string;
  generation: string;
  engine: string;
  title: string;
  summary: string;
  /** Every op the suite uses, with the value format it expects. */
  ops: Array<{ op: ActionOp; value: string; description: string }>;
  /** Object kinds that may appear in a room and what they are for. */
  objects: Array<{ kind: string; description: string }>;
  /** Stages in order: name, the op that clears it, the rule in words. */
  stages: Array<{ name: string; op: ActionOp; rule: string }>;
  /** How the attempt is judged: the verdict and the counted quantities. */
  scoring: {
    /** Every verdict a card of this suite may record, with its meaning (suites/verdicts.ts). */
    verdicts: Array<{ verdict: string; when: string }>;
    counted: string[];
    hint_cost: string;
    rule: string;
  };
  limits: { max_actions: number; max_hints: number };
}

export interface Suite {
  readonly id: string;
  readonly generation: string;
  readonly engine: string;
  readonly manifest: SuiteManifest;
  /** Fresh state for a seed. Deterministic. */
  init(seed: string): RoomState;
  /** Object identifiers visible now (returned at entry and by `look`). */
  objects(seed: string, state: RoomState): string[];
  /** Ops allowed now (truthful: exactly what act() would not refuse as op_not_allowed). */
  allowedOps(seed: string, state: RoomState): ActionOp[];
  /** Free observation used by observe_chamber: the surface of one object, or null if unknown. */
  observe(seed: string, state: RoomState, object: string): Observation | null;
  /** Apply one action. Deterministic. */
  act(seed: string, state: RoomState, action: RoomAction): ActionOutcome;
  /** True once every stage is cleared. */
  solved(state: RoomState): boolean;
  /**
   * True when the room itself has ended without being solved (for example a lock that jams
   * after too many wrong tries, if the suite has such a rule). The lifecycle also ends an
   * attempt when the 64-action budget is spent; that is not the suite's business.
   */
  failed(state: RoomState): boolean;
  /** Counters the card records (hints used, wrong submissions, stages cleared). */
  tally(state: RoomState): {
    stages_total: number;
    stages_cleared: number;
    hints_used: number;
    wrong_submissions: number;
  };
}

/**
 * What an agent sees of one chamber_action call, reduced to what a solver may use. The
 * reference solvers in the tests drive rooms only through this port, so the same solver runs
 * against a Suite directly (fast, 1,000 seeds) and through a real MCP client (end to end).
 */
export interface ActResult {
  ok: boolean;
  /** Error code when ok is false (op_not_allowed, object_not_available, value_format_invalid, ...). */
  code?: string;
  observation?: Observation;
  /** Submissions only. */
  correct?: boolean;
  allowed_ops: string[];
  objects: string[];
  terminal: boolean;
  remaining_actions: number;
}

export interface AgentPort {
  /** Objects and ops as returned at entry. */
  readonly entry: { objects: string[]; allowed_ops: string[]; remaining_actions: number };
  act(action: RoomAction): Promise<ActResult>;
}

/** Runs a Suite in memory behind an AgentPort, counting actions like the lifecycle does. */
export function localPort(
  suite: Suite,
  seed: string,
  maxActions = 64,
): AgentPort & { state(): RoomState; used(): number } {
  let state = suite.init(seed);
  let used = 0;
  const terminal = () => suite.solved(state) || suite.failed(state) || used >= maxActions;
  return {
    entry: {
      objects: suite.objects(seed, state),
      allowed_ops: suite.allowedOps(seed, state),
      remaining_actions: maxActions,
    },
    state: () => state,
    used: () => used,
    async act(action) {
      if (terminal()) {
        return {
          ok: false,
          code: "action_limit_reached",
          allowed_ops: [],
          objects: suite.objects(seed, state),
          terminal: true,
          remaining_actions: maxActions - used,
        };
      }
      const out = suite.act(seed, state, action);
      if (out.kind === "refused") {
        return {
          ok: false,
          code: out.code,
          observation: { text: out.message },
          allowed_ops: suite.allowedOps(seed, state),
          objects: suite.objects(seed, state),
          terminal: terminal(),
          remaining_actions: maxActions - used,
        };
      }
      state = out.state;
      used++;
      const t = terminal();
      return {
        ok: true,
        observation: out.observation,
        ...(out.correct === undefined ? {} : { correct: out.correct }),
        allowed_ops: t ? [] : suite.allowedOps(seed, state),
        objects: suite.objects(seed, state),
        terminal: t,
        remaining_actions: maxActions - used,
      };
    },
  };
}

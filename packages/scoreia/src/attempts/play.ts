import { randomBytes } from "node:crypto";
import { DomainError, iso } from "kernel";
import type { RoomAction } from "../suites/types.ts";
import type { ChamberCore } from "./core.ts";
import type { AttemptRow } from "./schema.ts";
import * as store from "./store.ts";
import type { CallContext, Envelope } from "./types.ts";
import { write } from "./write.ts";

/** observe_chamber: what an object of the room shows now. Reads only; changes nothing. */
export async function observe(core: ChamberCore, args: Record<string, unknown>, ctx: CallContext): Promise<Envelope> {
  const row = await core.load(core.database.db, args.challenge_handle as string);
  core.checkPin(ctx, row.toolset_id);
  const now = core.clock.now();
  const state = core.effectiveState(row, now);
  if (state === "expired") throw core.expiredError(row, now);
  const suite = core.suite(row);
  const room = JSON.parse(row.room_json);
  const object = args.object as string;
  const view = suite.observe(row.seed, room, object);
  if (!view) {
    throw new DomainError(
      "object_not_available",
      `no object ${JSON.stringify(object).slice(0, 60)} in this room; objects: ${suite.objects(row.seed, room).join(", ")}`.slice(
        0,
        240,
      ),
      core.status(row, suite, now),
    );
  }
  return {
    ...core.envelope(row, suite, now),
    object,
    observation: view,
    objects: suite.objects(row.seed, room),
  };
}

/**
 * chamber_action: one bounded action on the room. The row is locked for the write, so the
 * expected_action_index check cannot race; the new state and its event commit together.
 */
export async function act(core: ChamberCore, args: Record<string, unknown>, ctx: CallContext): Promise<Envelope> {
  const handle = args.challenge_handle as string;
  const now = core.clock.now();
  return write(core.database, async ({ trx, engine }) => {
    const row = await core.load(trx, handle, engine);
    core.checkPin(ctx, row.toolset_id);
    const { maxActions } = core.config;
    const suite = core.suite(row);
    const state = core.effectiveState(row, now);
    // The status fields every refusal carries; built only when refusing.
    const base = () => core.status(row, suite, now);
    if (state === "sealed" || state === "pending_signature") {
      throw new DomainError(
        "attempt_already_sealed",
        "this attempt is sealed; enter_open_challenge starts a new one",
        base(),
      );
    }
    if (state === "expired") throw core.expiredError(row, now);
    if (state === "quarantined") {
      throw new DomainError("op_not_allowed", "this attempt is quarantined for review; no op is allowed", base());
    }
    if (state === "terminal_unsealed") {
      if (row.action_index >= maxActions) {
        throw new DomainError("action_limit_reached", `all ${maxActions} actions are used; call seal_attempt`, base());
      }
      throw new DomainError("op_not_allowed", "the room is finished; call seal_attempt", base());
    }
    core.checkIndex(row, args.expected_action_index, base);
    const room = JSON.parse(row.room_json);
    const action: RoomAction = {
      op: args.op as RoomAction["op"],
      ...(args.object !== undefined ? { object: args.object as string } : {}),
      ...(args.value !== undefined ? { value: args.value as string | string[] } : {}),
    };
    const outcome = suite.act(row.seed, room, action);
    if (outcome.kind === "refused") {
      throw new DomainError(outcome.code, outcome.message.slice(0, 240), {
        ...base(),
        objects: suite.objects(row.seed, room),
      });
    }
    const index = row.action_index + 1;
    const ended = suite.solved(outcome.state) || suite.failed(outcome.state) || index >= maxActions;
    const next: AttemptRow = {
      ...row,
      state: ended ? "terminal_unsealed" : "active",
      action_index: index,
      room_json: JSON.stringify(outcome.state),
      updated_at: iso(now),
      terminal_at: ended ? iso(now) : null,
      event_count: row.event_count + 1,
    };
    const out: Envelope = {
      ...core.envelope(next, suite, now),
      op: action.op,
      observation: outcome.observation,
      ...(outcome.correct === undefined ? {} : { result: outcome.correct ? "correct" : "wrong" }),
      objects: suite.objects(row.seed, outcome.state),
      progress: suite.tally(outcome.state),
    };
    const event = core.eventRow(row, row.event_count, "action", index, args, out, outcome.private ?? null, now);
    await store.updateAfterAction.run(trx, { ...next, chain_head: event.hash });
    await store.insertEvent.run(trx, event);
    return out;
  });
}

/** call_for_help: names an ally and issues it a seed of its own; the attempt continues alone. */
export async function callForHelp(
  core: ChamberCore,
  args: Record<string, unknown>,
  ctx: CallContext,
): Promise<Envelope> {
  const now = core.clock.now();
  return write(core.database, async ({ trx, engine }) => {
    const row = await core.load(trx, args.challenge_handle as string, engine);
    core.checkPin(ctx, row.toolset_id);
    const state = core.effectiveState(row, now);
    if (state === "sealed" || state === "pending_signature") {
      throw new DomainError(
        "attempt_already_sealed",
        "this attempt is sealed; an ally is named while the attempt is open",
        core.status(row, core.suite(row), now),
      );
    }
    if (state === "expired") throw core.expiredError(row, now);
    const suite = core.suite(row);
    // The ally gets a fresh seed of its own and a separate future attempt: it never joins this room.
    // An ally seed (a- + 16 hex) is a capability: the caller alone learns it (the public replay
    // commits it) and only call_for_help issues one, so nobody enters it before the ally.
    let allySeed = `a-${randomBytes(8).toString("hex")}`;
    while (allySeed === row.seed) allySeed = `a-${randomBytes(8).toString("hex")}`;
    const help = {
      id: `help-${randomBytes(8).toString("hex")}`,
      from_handle: row.handle,
      ally: args.ally as string,
      seed: allySeed,
      suite_id: suite.id,
      created_at: iso(now),
    };
    await trx.insertInto("chamber_help").values(help).execute();
    const out: Envelope = {
      ...core.envelope({ ...row, event_count: row.event_count + 1 }, suite, now),
      help_id: help.id,
      ally: help.ally,
      ally_suite: suite.id,
      ally_seed: allySeed,
      ally_instructions: `${help.ally} may later enter its own attempt with enter_open_challenge (suite=${suite.id}, seed=${allySeed}). It never joins this room and this attempt continues alone.`,
    };
    const event = core.eventRow(row, row.event_count, "call_for_help", null, args, out, null, now);
    await trx
      .updateTable("chamber_attempts")
      .set({ event_count: row.event_count + 1, updated_at: iso(now), chain_head: event.hash })
      .where("handle", "=", row.handle)
      .execute();
    await store.insertEvent.run(trx, event);
    return out;
  });
}

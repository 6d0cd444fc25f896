import { ChamberCore } from "./core.ts";
import { enter, PURGE_BATCH, purgeUnsealed } from "./enter.ts";
import { quarantine, reveal } from "./operate.ts";
import { act, callForHelp, observe } from "./play.ts";
import { seal } from "./seal.ts";
import { publishKeys, signPending } from "./sign.ts";
import * as store from "./store.ts";
import type { CallContext, Envelope } from "./types.ts";

export {
  type AttemptState,
  type CallContext,
  type ChamberConfig,
  defaultConfig,
  type Envelope,
  type Verdict,
} from "./types.ts";

/**
 * The attempt lifecycle: enter, observe, act, call for help, seal. Every change and its event
 * commit in one write (write.ts); the attempt row is locked (FOR UPDATE on PostgreSQL; SQLite
 * serialises writers) so expected_action_index checks cannot race. Each step lives in its own
 * file (enter.ts, play.ts, seal.ts, sign.ts, operate.ts) over what they share (core.ts).
 */
export class ChamberService extends ChamberCore {
  enter(args: Record<string, unknown>, ctx: CallContext): Promise<Envelope> {
    return enter(this, args, ctx);
  }

  observe(args: Record<string, unknown>, ctx: CallContext): Promise<Envelope> {
    return observe(this, args, ctx);
  }

  act(args: Record<string, unknown>, ctx: CallContext): Promise<Envelope> {
    return act(this, args, ctx);
  }

  callForHelp(args: Record<string, unknown>, ctx: CallContext): Promise<Envelope> {
    return callForHelp(this, args, ctx);
  }

  seal(args: Record<string, unknown>, ctx: CallContext): Promise<Envelope> {
    return seal(this, args, ctx);
  }

  /** Deletes unsealed attempts past expiry + retention (enter.ts; enter runs it now and then). */
  purgeUnsealed(now = this.clock.now(), limit = PURGE_BATCH): Promise<number> {
    return purgeUnsealed(this, now, limit);
  }

  /** Signs a pending card. Returns false when no signer is reachable (the card stays pending). */
  async trySign(cardId: string, now = this.clock.now()): Promise<boolean> {
    const card = await store.selectCard.first(this.database.db, { card_id: cardId });
    if (!card) throw new Error(`no card ${cardId}`);
    return (await signPending(this, card, now)) !== null;
  }

  /** Copies the signer's public key records into chamber_keys (sign.ts). */
  publishKeys(ensureKeyId?: string): Promise<void> {
    return publishKeys(this, ensureKeyId);
  }

  /** Operators set an attempt aside for review; it can still be sealed, to a quarantined card. */
  quarantine(handle: string, reason: string): Promise<void> {
    return quarantine(this, handle, reason);
  }

  /** Retires a generation and publishes its secret (operate.ts). */
  reveal(suiteId: string, generation: string): Promise<{ secret: string; revealed_at: string }> {
    return reveal(this, suiteId, generation);
  }
}

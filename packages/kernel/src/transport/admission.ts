import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";

/**
 * Admission limits for a public HTTP door (issue 16 §6: one client looping on entries must not
 * crowd out the others): at most `perAddress` requests per `windowSeconds` from one client
 * address and `global` from all together. Counters live in this process (each instance admits
 * its own share; docs/deploy.md). Refusals are 429 with Retry-After.
 */
export interface AdmissionLimits {
  perAddress: number;
  global: number;
  windowSeconds: number;
}

export type Admission = { ok: true } | { ok: false; retryAfterSeconds: number; message: string };

/** Two counters (one per client address, one for everyone) checked in that order. */
export class Admitter {
  readonly #perAddress: RateLimiterMemory;
  readonly #global: RateLimiterMemory;

  constructor(
    readonly limits: AdmissionLimits,
    readonly what: string,
  ) {
    for (const k of ["perAddress", "global", "windowSeconds"] as const) {
      if (!Number.isInteger(limits[k]) || limits[k] < 1)
        throw new Error(`${what} limit ${k} must be a positive integer`);
    }
    this.#perAddress = new RateLimiterMemory({ points: limits.perAddress, duration: limits.windowSeconds });
    this.#global = new RateLimiterMemory({ points: limits.global, duration: limits.windowSeconds });
  }

  async admit(address: string): Promise<Admission> {
    const { perAddress, global, windowSeconds } = this.limits;
    const refused = (e: unknown, message: string): Admission => {
      if (!(e instanceof RateLimiterRes)) throw e;
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(e.msBeforeNext / 1000)), message };
    };
    try {
      await this.#perAddress.consume(address);
    } catch (e) {
      return refused(e, `too many ${this.what} from this address: at most ${perAddress} per ${windowSeconds} s`);
    }
    try {
      await this.#global.consume("all");
    } catch (e) {
      return refused(e, `too many ${this.what} on this server: at most ${global} per ${windowSeconds} s in all`);
    }
    return { ok: true };
  }
}

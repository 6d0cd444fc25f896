/**
 * Injected time. Everything that expires, orders or stamps reads a Clock, so TTLs and cut-off
 * dates are tested by moving a ManualClock, never by sleeping.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export class ManualClock implements Clock {
  private t: number;
  constructor(start: string | number = "2026-11-30T12:00:00.000Z") {
    this.t = typeof start === "number" ? start : Date.parse(start);
    if (!Number.isFinite(this.t)) throw new RangeError(`bad clock start: ${start}`);
  }
  now(): number {
    return this.t;
  }
  set(at: string | number): void {
    const t = typeof at === "number" ? at : Date.parse(at);
    if (!Number.isFinite(t)) throw new RangeError(`bad clock time: ${at}`);
    this.t = t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}

import { describe, expect, it } from "vitest";
import { canArchive, move, moveTable, type RunEvent } from "./lifecycle.ts";
import { RUN_STATUSES, type RunStatus } from "./vocabulary.ts";

const EVENTS: RunEvent[] = ["run", "complete", "fail", "cancel", "discard"];

describe("run state machine", () => {
  it("allows exactly the documented moves (every status × every event)", () => {
    const allowed = new Map(moveTable().map(([f, e, t]) => [`${f}/${e}`, t]));
    expect(Object.fromEntries(allowed)).toEqual({
      "pending/run": "running",
      "running/complete": "completed",
      "pending/fail": "failed",
      "running/fail": "failed",
      "pending/cancel": "canceled",
      "running/cancel": "canceled",
      "completed/discard": "discarded",
      "failed/discard": "discarded",
      "canceled/discard": "discarded",
    });
    for (const from of RUN_STATUSES) {
      for (const e of EVENTS) {
        const m = move(from, e);
        const want = allowed.get(`${from}/${e}`);
        expect(m).toEqual(want ? { ok: true, to: want } : { ok: false, code: expect.any(String) });
      }
    }
  });

  it("refuses with the catalog's codes", () => {
    for (const s of ["completed", "failed", "canceled", "discarded"] as RunStatus[]) {
      expect(move(s, "cancel")).toEqual({ ok: false, code: "cannot_cancel_terminal_run" });
    }
    for (const s of ["pending", "running"] as RunStatus[]) {
      expect(move(s, "discard")).toEqual({ ok: false, code: "cannot_discard_active_run" });
    }
    expect(move("discarded", "discard")).toEqual({ ok: false, code: "cannot_discard_active_run" });
  });

  it("discarded is final and only terminal runs archive", () => {
    for (const e of EVENTS) expect(move("discarded", e).ok).toBe(false);
    expect(RUN_STATUSES.filter(canArchive)).toEqual(["completed", "failed", "canceled"]);
  });
});

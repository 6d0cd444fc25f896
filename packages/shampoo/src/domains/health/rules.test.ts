import { describe, expect, it } from "vitest";
import {
  factIntervalFaults,
  fenceFaults,
  judgeLicence,
  type LeaseLike,
  leaseFaults,
  sameProject,
  selectSections,
  staleLeases,
  worst,
} from "./rules.ts";

const lease = (o: Partial<LeaseLike>): LeaseLike => ({
  kind: "job",
  resource_id: "r1",
  state: "held",
  holder: "w1",
  fence: 1,
  expires_ms: 1000,
  ...o,
});

describe("health rules", () => {
  it("the aggregate is the worst status; unknown outranks warn and is never ok; nothing observed is unknown", () => {
    expect(worst(["ok", "ok"])).toBe("ok");
    expect(worst(["ok", "warn"])).toBe("warn");
    expect(worst(["warn", "unknown", "ok"])).toBe("unknown");
    expect(worst(["unknown", "fail"])).toBe("fail");
    expect(worst([])).toBe("unknown");
  });

  it("sections: exact names in catalog order, empty runs all, unknown names skipped", () => {
    expect(selectSections(undefined)).toHaveLength(9);
    expect(selectSections(" ")).toHaveLength(9);
    expect(selectSections("invariants, config,bogus")).toEqual(["config", "invariants"]);
    expect(selectSections("bogus")).toEqual([]);
    expect(selectSections("Config")).toEqual([]);
  });

  it("leases: held needs a holder and an expiry; open and done hold nothing; no other state", () => {
    expect(leaseFaults([lease({}), lease({ state: "open", holder: null, expires_ms: null, fence: 0 })])).toEqual([]);
    expect(leaseFaults([lease({ holder: null })])).toHaveLength(1);
    expect(leaseFaults([lease({ expires_ms: null })])).toHaveLength(1);
    expect(leaseFaults([lease({ state: "open" })])).toHaveLength(1);
    expect(leaseFaults([lease({ state: "done", expires_ms: 5 })])).toHaveLength(1);
    expect(leaseFaults([lease({ state: "lost" })])).toHaveLength(1);
    expect(staleLeases([lease({ expires_ms: 1000 }), lease({ expires_ms: 3000 })], 2000)).toBe(1);
  });

  it("fences only increase, and the row keeps the last one handed out", () => {
    const claims = [
      { kind: "job", resourceId: "r1", fence: 1 },
      { kind: "job", resourceId: "r2", fence: 1 },
      { kind: "job", resourceId: "r1", fence: 2 },
    ];
    expect(fenceFaults([lease({ fence: 2 })], claims)).toEqual([]);
    expect(fenceFaults([lease({ fence: 1 })], claims)).toHaveLength(1);
    expect(fenceFaults([], [...claims, { kind: "job", resourceId: "r1", fence: 2 }])).toHaveLength(1);
    expect(fenceFaults([], [{ kind: "job", resourceId: "r1", fence: Number.NaN }])).toHaveLength(1);
  });

  it("fact versions never overlap, whatever order they come in; a version closed and replaced at one instant is fine", () => {
    const v = (known_from: string, known_to: string | null, valid_to: string | null = null) => ({
      fact_id: "f",
      valid_from: "2026-01-01",
      valid_to,
      known_from,
      known_to,
    });
    expect(factIntervalFaults([v("2026-02-01", null), v("2026-02-01", "2026-02-01")])).toEqual([]);
    expect(factIntervalFaults([v("2026-01-01", "2026-02-01"), v("2026-02-01", null)])).toEqual([]);
    expect(factIntervalFaults([v("2026-01-01", null), v("2026-02-01", null)])).toHaveLength(1);
    expect(factIntervalFaults([v("2026-01-01", "2026-03-01"), v("2026-02-01", null)])).toHaveLength(1);
    expect(factIntervalFaults([v("2026-01-01", null, "2025-01-01")])).toHaveLength(1);
  });

  it("projects: absent, null and empty are the untagged enclave", () => {
    expect(sameProject(null, undefined)).toBe(true);
    expect(sameProject(null, "")).toBe(true);
    expect(sameProject("a", "a")).toBe(true);
    expect(sameProject("a", "b")).toBe(false);
    expect(sameProject(null, "a")).toBe(false);
  });

  it("licence: FREE without an artefact or with an invalid one; a valid artefact; a legacy preset is display only", () => {
    expect(judgeLicence(undefined)).toEqual({ licence: "FREE", artefact_present: false, legacy_preset: null });
    expect(judgeLicence("not json")).toEqual({ licence: "FREE", artefact_present: true, legacy_preset: null });
    expect(judgeLicence('{"licence":"perpetual","licensee":" "}').licence).toBe("FREE");
    expect(judgeLicence('{"licence":"perpetual","licensee":"ACME"}')).toEqual({
      licence: "VALID PERPETUAL LICENCE",
      artefact_present: true,
      legacy_preset: null,
    });
    expect(judgeLicence('{"plan":"team"}')).toEqual({ licence: "FREE", artefact_present: true, legacy_preset: "team" });
  });
});

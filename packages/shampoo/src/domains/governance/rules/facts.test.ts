import { describe, expect, it } from "vitest";
import { contradicts, type FactState, type FactVersion, govern, isRefusal, trueAt, UNKNOWN_START } from "./facts.ts";

const live = (id: string): FactState => ({
  fact_id: id,
  status: "live",
  valid_from: "2026-01-01T00:00:00.000Z",
  valid_to: null,
  superseded_by: null,
});
const AT = "2026-06-01T00:00:00.000Z";

describe("truth maintenance", () => {
  it("supersede ends validity and links the successor; the retired fact cannot be superseded again", () => {
    const r = govern("supersede", live("a"), live("b"), AT);
    expect(isRefusal(r)).toBe(false);
    if (isRefusal(r)) return;
    expect(r.fact).toEqual({ ...live("a"), status: "superseded", valid_to: AT, superseded_by: "b" });
    expect(r.links).toEqual([{ from: "b", to: "a", kind: "supersedes" }]);
    expect(govern("supersede", r.fact, live("c"), AT)).toMatchObject({ type: "invalid_state" });
  });
  it("contradict links both ways and changes neither status", () => {
    const r = govern("contradict", live("a"), live("b"), AT);
    expect(r).toEqual({
      fact: live("a"),
      links: [
        { from: "a", to: "b", kind: "contradicts" },
        { from: "b", to: "a", kind: "contradicts" },
      ],
    });
  });
  it("invalidate then revalidate", () => {
    const inv = govern("invalidate", live("a"), null, AT);
    if (isRefusal(inv)) throw new Error("refused");
    expect([inv.fact.status, inv.fact.valid_to]).toEqual(["invalidated", AT]);
    const back = govern("revalidate", inv.fact, null, AT);
    if (isRefusal(back)) throw new Error("refused");
    expect(back.fact).toEqual(live("a"));
    expect(govern("revalidate", live("a"), null, AT)).toMatchObject({ type: "invalid_state" });
  });
  it("refuses a missing target, a self-target and an effective time before validity", () => {
    expect(govern("supersede", live("a"), null, AT)).toEqual({
      message: "target_fact_id is required for supersede",
      type: "validation",
    });
    expect(govern("contradict", live("a"), live("a"), AT)).toEqual({
      message: "target_fact_id must differ from fact_id",
      type: "validation",
    });
    expect(govern("invalidate", live("a"), null, "2025-01-01T00:00:00.000Z")).toMatchObject({ type: "validation" });
  });
  it("contradiction is structural: same project, subject, predicate, scope, single-valued predicate", () => {
    const f = { project: "p", subject: "The primary DB", predicate: "is", scope: "memory", object: "PostgreSQL" };
    expect(contradicts(f, { ...f, object: "MySQL" })).toBe(true);
    expect(contradicts(f, { ...f, object: "postgresql" })).toBe(false);
    expect(contradicts(f, { ...f, subject: "The replica DB", object: "MySQL" })).toBe(false); // neighbouring entity
    expect(contradicts(f, { ...f, project: "q", object: "MySQL" })).toBe(false);
    expect(contradicts(f, { ...f, scope: "export", object: "MySQL" })).toBe(false);
    expect(contradicts({ ...f, predicate: "uses" }, { ...f, predicate: "uses", object: "Redis" })).toBe(false);
  });
});

describe("bi-temporal reads", () => {
  // Learned on 2026-03-10 that the fact held since 2026-01-01; superseded (known) on 2026-05-01.
  const versions: FactVersion[] = [
    {
      fact_id: "f",
      status: "live",
      valid_from: "2026-01-01T00:00:00.000Z",
      valid_to: null,
      known_from: "2026-03-10T00:00:00.000Z",
      known_to: "2026-05-01T00:00:00.000Z",
    },
    {
      fact_id: "f",
      status: "superseded",
      valid_from: "2026-01-01T00:00:00.000Z",
      valid_to: "2026-04-15T00:00:00.000Z",
      known_from: "2026-05-01T00:00:00.000Z",
      known_to: null,
    },
  ];
  it("answers the four questions of a late fact with an earlier validity", () => {
    expect(trueAt(versions, "2026-03-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z")).toEqual([]); // before learned
    expect(trueAt(versions, "2026-03-11T00:00:00.000Z", "2026-02-01T00:00:00.000Z")).toEqual(["f"]); // learned, back-dated
    expect(trueAt(versions, "2026-03-11T00:00:00.000Z", "2025-12-01T00:00:00.000Z")).toEqual([]); // before validity
    expect(trueAt(versions, "2026-03-11T00:00:00.000Z", "2026-04-20T00:00:00.000Z")).toEqual(["f"]); // as then known
    expect(trueAt(versions, "2026-05-02T00:00:00.000Z", "2026-04-20T00:00:00.000Z")).toEqual([]); // as now known
    expect(trueAt(versions, "2026-05-02T00:00:00.000Z", "2026-02-01T00:00:00.000Z")).toEqual(["f"]);
  });
});

describe("valid time apart from transaction time", () => {
  const f = live("f"); // valid from 2026-01-01
  const at = (undated: boolean) => ({ now: "2026-06-01T00:00:00.000Z", undated });
  it("a future effective_at ends validity then and leaves the fact live", () => {
    expect(govern("invalidate", f, null, "2026-09-01T00:00:00.000Z", at(false))).toMatchObject({
      fact: { status: "live", valid_to: "2026-09-01T00:00:00.000Z" },
    });
    expect(govern("invalidate", f, null, "2026-05-01T00:00:00.000Z", at(false))).toMatchObject({
      fact: { status: "invalidated", valid_to: "2026-05-01T00:00:00.000Z" },
    });
  });
  it("back-dating before an undated start is recorded with an unknown start; before a stated one, refused", () => {
    expect(govern("invalidate", f, null, "2025-12-01T00:00:00.000Z", at(true))).toMatchObject({
      fact: { status: "invalidated", valid_from: UNKNOWN_START, valid_to: "2025-12-01T00:00:00.000Z" },
    });
    expect(isRefusal(govern("invalidate", f, null, "2025-12-01T00:00:00.000Z", at(false)))).toBe(true);
  });
});

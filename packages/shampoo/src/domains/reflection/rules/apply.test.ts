import { describe, expect, it } from "vitest";
import { isDecision, isDecisionFilter, type PlanInput, plan } from "./apply.ts";

const T = { id: "t1", last_event_id: "e1", status: "not_started", parent_id: null };
const base: PlanInput = {
  type: "stale_overdue_tasks",
  target_kind: "task",
  fingerprint: { target: "e1" },
  applied: false,
  target: T,
  targetExists: true,
};

describe("apply plan", () => {
  it("archives an unchanged target, clears an orphan's link", () => {
    expect(plan(base)).toEqual({ set: { status: "archived" } });
    expect(plan({ ...base, type: "orphan_parent_tasks", parentVisible: false })).toEqual({ set: { parent_id: null } });
  });

  it("skips in order: applied, entity, missing, foreign, changed", () => {
    expect(plan({ ...base, applied: true, target: null })).toEqual({ skip: "already_applied" });
    expect(plan({ ...base, type: "entities_no_observations", target_kind: "entity" })).toEqual({
      skip: "no_archive_primitive",
    });
    expect(plan({ ...base, target: null, targetExists: false })).toEqual({ skip: "target_not_found" });
    expect(plan({ ...base, target: null, targetExists: true })).toEqual({ skip: "target_out_of_scope" });
    expect(plan({ ...base, target: { ...T, last_event_id: "e2" } })).toEqual({ skip: "target_changed" });
  });

  it("a duplicate is archived only while its keeper is there as the run saw it", () => {
    const dup: PlanInput = {
      ...base,
      type: "exact_duplicate_titles",
      fingerprint: { target: "e1", keeper: { id: "k", event: "ek" } },
      keeper: { ...T, id: "k", last_event_id: "ek" },
    };
    expect(plan(dup)).toEqual({ set: { status: "archived" } });
    expect(plan({ ...dup, keeper: null })).toEqual({ skip: "target_changed" });
    expect(plan({ ...dup, keeper: { ...T, id: "k", last_event_id: "ek2" } })).toEqual({ skip: "target_changed" });
  });

  it("an orphan whose parent became visible is left alone", () => {
    expect(plan({ ...base, type: "orphan_parent_tasks", parentVisible: true })).toEqual({ skip: "target_changed" });
  });

  it("knows the decisions and filters", () => {
    expect(["accept", "reject", "defer", "maybe", ""].map(isDecision)).toEqual([true, true, true, false, false]);
    expect(["", "pending", "accept", "reject", "defer", "all"].map(isDecisionFilter)).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
  });
});

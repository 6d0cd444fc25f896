import { describe, expect, it } from "vitest";
import {
  byteCompare,
  candidateId,
  canonical,
  detect,
  type EntityFact,
  findingsDigest,
  flatten,
  type TaskFact,
} from "./detect.ts";
import { type AuditParams, CATEGORIES, cutoffs } from "./vocabulary.ts";

const NOW = Date.parse("2026-11-30T12:00:00.000Z");
const P: AuditParams = { project: null, stale_days: 60, abandoned_inbox_days: 30, limit_per_category: 20 };

let n = 0;
function task(f: Partial<TaskFact>): TaskFact {
  const id = f.id ?? `t${String(++n).padStart(3, "0")}`;
  return {
    id,
    project: "p",
    title: `title ${id}`,
    title_norm: `title ${id}`,
    type: "task",
    status: "in_progress",
    priority: "medium",
    section: "next",
    description: "body",
    due_date: null,
    parent_id: null,
    created_at: "2026-11-01T00:00:00.000Z",
    updated_at: "2026-11-29T00:00:00.000Z",
    last_event_id: `ev-${id}`,
    ...f,
  };
}
function entity(f: Partial<EntityFact>): EntityFact {
  return {
    id: `e${++n}`,
    project: "p",
    name: "E",
    name_norm: "e",
    entity_type: "thing",
    visibility: "shared",
    created_by: "alice",
    updated_at: "2026-11-01T00:00:00.000Z",
    last_event_id: "ev",
    active_observations: 1,
    ...f,
  };
}

describe("the six detectors", () => {
  it("each finds exactly its rows", () => {
    const tasks = [
      task({ id: "d1", title_norm: "dup", created_at: "2026-01-02T00:00:00.000Z" }),
      task({ id: "d0", title_norm: "dup", created_at: "2026-01-01T00:00:00.000Z" }),
      task({ id: "d2", title_norm: "dup", type: "note" }), // another type: not the same thing
      task({ id: "d3", title_norm: "dup", status: "archived" }), // finished rows are not duplicates
      task({ id: "s1", status: "not_started", due_date: "2026-09-30" }), // before 2026-10-01
      task({ id: "s2", status: "not_started", due_date: "2026-10-01" }), // the cut-off day itself: not stale
      task({ id: "s3", status: "in_progress", due_date: "2026-01-01" }),
      task({ id: "n1", type: "note", description: " \n\t" }),
      task({ id: "n2", type: "note", description: null }),
      task({ id: "n3", type: "note", description: "x", status: "not_started" }),
      task({ id: "o1", parent_id: "gone" }),
      task({ id: "o2", parent_id: "d0" }),
      task({ id: "a1", section: "inbox", status: "not_started", updated_at: "2026-10-30T11:59:59.999Z" }),
      task({ id: "a2", section: "inbox", status: "not_started", updated_at: "2026-10-31T12:00:00.000Z" }),
    ];
    const entities = [entity({ id: "eb", name_norm: "b", active_observations: 0 }), entity({ id: "ea" })];
    const f = detect({ tasks, entities }, P, NOW);
    const ids = Object.fromEntries(CATEGORIES.map((c) => [c, f[c].map((x) => x.target_ref)]));
    expect(ids).toEqual({
      exact_duplicate_titles: ["d1"],
      stale_overdue_tasks: ["s1"],
      empty_description_notes: ["n1", "n2"].sort(),
      orphan_parent_tasks: ["o1"],
      abandoned_inbox_items: ["a1"],
      entities_no_observations: ["eb"],
    });
    const dup = f.exact_duplicate_titles[0];
    expect(dup?.evidence).toMatchObject({ keeper_id: "d0", duplicate_count: 2, task_ids: ["d0", "d1"] });
    expect(dup?.fingerprint).toEqual({ target: "ev-d1", keeper: { id: "d0", event: "ev-d0" } });
    expect(cutoffs(P, NOW)).toEqual({ staleBefore: "2026-10-01", abandonedBefore: "2026-10-31T12:00:00.000Z" });
  });

  it("caps each category and filters by project", () => {
    const tasks = Array.from({ length: 30 }, (_, i) =>
      task({ id: `x${String(i).padStart(2, "0")}`, type: "note", description: "", project: i % 2 ? "p" : "q" }),
    );
    const f = detect({ tasks, entities: [] }, { ...P, limit_per_category: 5 }, NOW);
    expect(f.empty_description_notes).toHaveLength(5);
    const q = detect({ tasks, entities: [] }, { ...P, project: "q" }, NOW);
    expect(q.empty_description_notes.map((x) => x.evidence_project)).toEqual(Array(15).fill("q"));
  });

  it("a private bare entity is marked for its creator only", () => {
    const f = detect(
      { tasks: [], entities: [entity({ visibility: "private", created_by: "bob", active_observations: 0 })] },
      P,
      NOW,
    );
    expect(f.entities_no_observations[0]?.private_to).toBe("bob");
  });

  it("the same memory in any row order gives byte-identical candidates", () => {
    const tasks = Array.from({ length: 200 }, (_, i) =>
      task({
        id: `r${String((i * 37) % 200).padStart(3, "0")}`,
        title_norm: `t${i % 40}`,
        type: i % 3 ? "task" : "note",
        description: i % 5 ? "x" : "",
        status: i % 7 ? "not_started" : "in_progress",
        section: i % 4 ? "next" : "inbox",
        due_date: i % 6 ? null : "2025-01-01",
        parent_id: i % 11 ? null : `ghost-${i}`,
        updated_at: `2026-0${1 + (i % 9)}-01T00:00:00.000Z`,
      }),
    );
    const a = canonical(flatten(detect({ tasks, entities: [] }, P, NOW)));
    const shuffled = [...tasks].reverse().sort((x, y) => (x.id.charCodeAt(2) % 3) - (y.id.charCodeAt(2) % 3));
    const b = canonical(flatten(detect({ tasks: shuffled, entities: [] }, P, NOW)));
    expect(b).toBe(a);
    expect(findingsDigest(flatten(detect({ tasks: shuffled, entities: [] }, P, NOW)))).toBe(
      findingsDigest(flatten(detect({ tasks, entities: [] }, P, NOW))),
    );
  });

  it("orders strings by UTF-8 bytes, as SQLite BINARY and PostgreSQL C do", () => {
    // U+FF5E sorts before U+1F600 in UTF-8 bytes, after it in UTF-16 code units.
    expect(byteCompare("\uff5e", "\u{1f600}")).toBeLessThan(0);
    expect("\uff5e" < "\u{1f600}").toBe(false);
    expect(byteCompare("a", "b")).toBeLessThan(0);
  });

  it("candidate ids are a function of run and finding", () => {
    const f = { type: "stale_overdue_tasks" as const, target_kind: "task" as const, target_ref: "t" };
    expect(candidateId("r1", f)).toBe(candidateId("r1", f));
    expect(candidateId("r1", f)).not.toBe(candidateId("r2", f));
    expect(candidateId("r1", f)).toMatch(/^rc_[0-9a-f]{32}$/);
  });
});

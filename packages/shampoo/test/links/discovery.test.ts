import { rng } from "kernel/rng.ts";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Suggestion } from "../../src/domains/links/rules.ts";
import { discoveryPicks } from "../../src/domains/links/service/discovery.ts";
import type { TaskRow } from "../../src/domains/tasks/schema.ts";
import { entities, relate, uniq } from "../support/links.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";

/**
 * Differential test of link discovery: the phrase-index path task writes run ("index": only the
 * entities the text mentions are scored) against the plain path ("scan": every visible entity
 * scored), on random graphs and tasks. They must pick the same entities, in the same order, with
 * the same scores, signals and reasons. Graphs stay small enough that the scan's observation cap
 * (MAX_OBSERVATION_ROWS) is never reached, the one place the two are allowed to differ.
 */

const WORDS = ["acme", "Café", "delta", "ops", "north", "Zürich", "plan", "budget", "alpha", "kilo", "review", "sync"];
const SEPS = [" ", "-", "_", ". ", " & "];

function pick<T>(r: () => number, xs: readonly T[]): T {
  return xs[Math.floor(r() * xs.length)] as T;
}

function name(r: () => number): string {
  const n = 1 + Math.floor(r() * 3);
  const parts = Array.from({ length: n }, () => pick(r, WORDS));
  return parts.map((p, i) => (i === 0 ? p : `${pick(r, SEPS)}${p}`)).join("");
}

function view(s: Suggestion) {
  const { rank: _rank, fts_rank: _fts, ...rest } = s;
  return rest;
}

describe.each(DIALECTS)("link discovery, index path vs scan on %s", (dialect) => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness(dialect);
  });
  afterAll(async () => {
    await h.close();
  });

  it("picks the same links on random graphs", async () => {
    for (const seed of [1, 2]) {
      const r = rng(seed);
      const profile = uniq("disc");
      const [p1, p2, p3] = [uniq("p"), uniq("p"), uniq("p")];
      const alice = await h.as({ principal: uniq("alice"), grants: [p1, p2, ""], profile });
      const bob = await h.as({ principal: uniq("bob"), grants: [p1, p3], profile });
      const agents: Agent[] = [alice, bob];
      const projects = [
        [p1, p2, undefined],
        [p1, p3],
      ] as const;
      const names = new Set<string>();
      // Tasks first (some written before the entities they mention, some after).
      const tasks: string[] = [];
      const mkTask = async (who: Agent, i: number) => {
        const mentioned = [...names];
        const text = Array.from({ length: 2 + Math.floor(r() * 6) }, () =>
          mentioned.length > 0 && r() < 0.5 ? pick(r, mentioned) : pick(r, WORDS),
        ).join(r() < 0.5 ? " " : ", ");
        const res = await who.call("create_task_or_note", {
          title: `${text} ${i}`,
          description: r() < 0.5 ? `${pick(r, WORDS)} ${pick(r, [...mentioned, "x"])} notes` : undefined,
          project: pick(r, projects[agents.indexOf(who)] as readonly (string | undefined)[]),
        });
        if (!res.isError) tasks.push((res.structuredContent as { task_id: string }).task_id);
      };
      for (let i = 0; i < 6; i++) await mkTask(pick(r, agents), i);
      for (let i = 0; i < 30; i++) {
        const who = pick(r, agents);
        const n = name(r);
        if (names.has(n.toLowerCase())) continue;
        names.add(n.toLowerCase());
        await entities(h, who, [
          {
            name: n,
            entityType: pick(r, ["company", "team", "city"]),
            project: pick(r, projects[agents.indexOf(who)] as readonly (string | undefined)[]),
            visibility: r() < 0.2 ? "private" : "shared",
            aliases: r() < 0.3 ? [name(r)] : [],
            observations: Array.from({ length: Math.floor(r() * 3) }, () => `${pick(r, WORDS)} ${pick(r, WORDS)}`),
          },
        ]).catch(() => undefined); // an alias colliding with a name, a denied project: skipped
      }
      const all = [...names];
      for (let i = 0; i < 10; i++) {
        await relate(h, pick(r, agents), pick(r, all), pick(r, all), "works_with").catch(() => undefined);
      }
      for (let i = 6; i < 14; i++) await mkTask(pick(r, agents), i);
      // A few manual links and removals, so graph paths and taken pairs count too.
      for (let i = 0; i < 6; i++) {
        const who = pick(r, agents);
        const t = pick(r, tasks);
        const e = pick(r, all);
        await who.call("link_task_entity", { task_id: t, entity_name: e });
        if (r() < 0.3) await who.call("unlink_task_entity", { task_id: t, entity_name: e });
      }

      let compared = 0;
      let picked = 0;
      for (const t of tasks) {
        const row = (await h.db.db
          .selectFrom("shampoo_tasks")
          .selectAll()
          .where("id", "=", t)
          .executeTakeFirstOrThrow()) as TaskRow;
        for (const who of agents) {
          const scan = await discoveryPicks(h.db.db, who.caller, row, "scan");
          const index = await discoveryPicks(h.db.db, who.caller, row, "index");
          expect(index.map(view)).toEqual(scan.map(view));
          compared++;
          picked += scan.length;
        }
      }
      expect(compared).toBeGreaterThan(15);
      expect(picked).toBeGreaterThan(0); // the comparison is not vacuous
    }
  });
});

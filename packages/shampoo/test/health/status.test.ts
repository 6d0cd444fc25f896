/**
 * status and licence: counts filtered to the caller's visibility (a foreign project's rows never
 * count; star is global and says so; the untagged enclave needs its grant; private entities are
 * their creator's; sessions their owner's), and a licence answer that never changes what the
 * software does. Both engines.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LICENCE_ENV } from "../../src/domains/health/service/status.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";
import type { Sc } from "./support.ts";

for (const dialect of DIALECTS) {
  describe(`status and licence (${dialect})`, () => {
    let h: Harness;
    let alice: Agent;
    let bob: Agent;
    let star: Agent;
    let enclave: Agent;
    beforeAll(async () => {
      h = await harness(dialect);
      alice = await h.as({ principal: "alice", grants: ["alpha"] });
      bob = await h.as({ principal: "bob", grants: ["beta"] });
      star = await h.as({ principal: "root", role: "conductor", grants: ["*"] });
      enclave = await h.as({ principal: "eve", grants: [""] });
      for (const title of ["a1", "a2"]) await alice.sc("create_task_or_note", { title, project: "alpha" });
      await alice.sc("create_task_or_note", { title: "a note", type: "note", project: "alpha" });
      await alice.sc("create_entities", {
        entities: [
          { name: "Alpha Shared", entityType: "thing", project: "alpha" },
          { name: "Alpha Private", entityType: "thing", project: "alpha", visibility: "private" },
        ],
      });
      await alice.sc("session_save", { summary: "alpha work", project: "alpha" });
      await bob.sc("create_task_or_note", { title: "b1", project: "beta" });
      await bob.sc("session_save", { summary: "beta work", project: "beta" });
      await enclave.sc("create_task_or_note", { title: "untagged one" });
    }, 60_000);
    afterAll(() => h?.close());

    const counts = async (a: Agent) => ((await a.sc("status", {})) as Sc).counts;

    it("counts only what the caller can see; a foreign project's rows never count", async () => {
      expect(await counts(alice)).toEqual({ tasks: 2, notes: 1, entities: 2, sessions: 1, facts: 0 });
      expect(await counts(bob)).toEqual({ tasks: 1, notes: 0, entities: 0, sessions: 1, facts: 0 });
      expect(await counts(enclave)).toEqual({ tasks: 1, notes: 0, entities: 0, sessions: 0, facts: 0 });
      const other = await h.as({ principal: "alice", grants: ["alpha"], profile: "elsewhere" });
      expect(await counts(other)).toEqual({ tasks: 0, notes: 0, entities: 0, sessions: 0, facts: 0 });
    });

    it("a private entity counts for its creator only; star sees every named project (not the enclave), marked global", async () => {
      const colleague = await h.as({ principal: "carol", grants: ["alpha"] });
      expect(((await counts(colleague)) as Sc).entities).toBe(1);
      const s = (await star.sc("status", {})) as Sc;
      expect(s.visibility).toBe("global");
      expect(s.counts).toEqual({ tasks: 3, notes: 1, entities: 1, sessions: 2, facts: 0 });
      expect(((await alice.sc("status", {})) as Sc).visibility).toBe("self");
    });

    it("says who and where: product, version, backend, database, profile, caller, role, tools", async () => {
      const s = (await alice.sc("status", {})) as Sc;
      expect(s).toMatchObject({
        product: "shampoo",
        backend: dialect,
        database: h.db.location,
        profile: "default",
        caller: "alice",
        role: "agent",
      });
      expect(s.version).toMatch(/^\d+\.\d+\.\d+/);
      const listed = (await alice.client.listTools()).tools.map((t) => t.name);
      expect(s.tools_total).toBe(listed.length);
      expect(s.tools_debate).toBe(listed.filter((n) => n.startsWith("debate_")).length);
    });

    it("licence: FREE without an artefact, VALID with a valid one; either way the tools do the same", async () => {
      const dir = mkdtempSync(join(tmpdir(), "shampoo-licence-"));
      const saved = process.env[LICENCE_ENV];
      try {
        delete process.env[LICENCE_ENV];
        expect(await alice.sc("licence", {})).toEqual({
          licence: "FREE",
          artefact_present: false,
          legacy_preset: null,
        });
        const free = await alice.call("create_task_or_note", { title: "under FREE", project: "alpha" });
        const file = join(dir, "licence.json");
        writeFileSync(file, JSON.stringify({ licence: "perpetual", licensee: "ACME", preset: "team" }));
        process.env[LICENCE_ENV] = file;
        expect(await alice.sc("licence", {})).toEqual({
          licence: "VALID PERPETUAL LICENCE",
          artefact_present: true,
          legacy_preset: "team",
        });
        const paid = await alice.call("create_task_or_note", { title: "under a licence", project: "alpha" });
        expect([free.isError, paid.isError]).toEqual([undefined, undefined]);
        expect(Object.keys(paid.structuredContent ?? {})).toEqual(Object.keys(free.structuredContent ?? {}));
        process.env[LICENCE_ENV] = join(dir, "missing.json");
        expect(await alice.sc("licence", {})).toEqual({
          licence: "FREE",
          artefact_present: false,
          legacy_preset: null,
        });
        const refused = await alice.call("licence", { anything: 1 });
        expect(refused.isError).toBe(true);
      } finally {
        if (saved === undefined) delete process.env[LICENCE_ENV];
        else process.env[LICENCE_ENV] = saved;
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}

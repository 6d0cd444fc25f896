import { DIALECTS } from "kernel/store/testing.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOOLS } from "../../src/app.ts";
import { FIXTURE_KEYS, FIXTURE_STEPS } from "../../src/modules.ts";
import { fillExample } from "../../src/tooling.ts";
import { answeredAsExpected } from "../e2e/support.ts";
import { type Agent, type Harness, harness } from "../support/shampoo.ts";

const PROJECT = "examples-ops";

/**
 * What the e2e suites do for every tool, in process, for this module's tools: the fixture steps
 * of every module, then each coordination and inbound example, as a conductor with an explicit
 * grant on the fixture project (the caller origination needs: star never originates).
 */
describe.each(DIALECTS)("coordination and inbound examples on %s", (dialect) => {
  let h: Harness;
  let cora: Agent;
  beforeAll(async () => {
    h = await harness(dialect);
    cora = await h.as({ principal: "cora", role: "conductor", grants: [PROJECT, ""] });
  });
  afterAll(async () => {
    await h.close();
  });

  it("every example answers as the e2e suite expects after the fixture steps", async () => {
    const f: Record<string, string | undefined> = { taskId: "", project: PROJECT };
    for (const step of FIXTURE_STEPS) Object.assign(f, await step.run(f, (tool, args) => cora.sc(tool, args)));
    const names = TOOLS.map((t) => t.name).filter((n) => /^(quorum|job|lane|inbound)_/.test(n));
    expect(names).toHaveLength(17);
    for (const t of TOOLS.filter((x) => names.includes(x.name))) {
      for (const e of t.examples ?? []) {
        const r = await cora.call(t.name, fillExample(e.input, f, FIXTURE_KEYS));
        expect(
          answeredAsExpected(t.name, r.isError, r.structuredContent),
          `${t.name}: ${JSON.stringify(r.structuredContent)}`,
        ).toBe(true);
      }
    }
  });
});

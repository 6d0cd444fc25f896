import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { TOOLS } from "../src/app.ts";

/**
 * Every registered tool against the SHAMPOO catalog (testdata/shampoo-tools.json, provenance in
 * testdata/README.md): its parameters, required fields, read/write kind and conductor-only access.
 * Catalog tools not built yet are listed (the report below), not failed; a registered tool the
 * catalog does not know fails.
 */
interface CatalogTool {
  name: string;
  category: string;
  access: string;
  required: string[];
  optional: string[];
  /** The catalog's section lost part of its text (e.g. the parameter list). */
  incomplete: boolean;
}
const catalog = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "..", "..", "testdata", "shampoo-tools.json"), "utf8"),
) as { tools: CatalogTool[] };
const byName = new Map(catalog.tools.map((t) => [t.name, t]));

/**
 * Tools the catalog refers to without giving them a section ("referenced_but_no_section"), each
 * with the reference: built from what refers to them, so they are registered but not in `tools`.
 */
const NAMED_WITHOUT_SECTION: Record<string, string> = {
  reflect_history: "reflect_archive Lifecycle: history stays listed until include_archived filtering hides it",
  list_memory_issues: "audit_memory: 'then read list_memory_issues for what remains open'",
  revoke_session: "auth category blurb: 'Enrolment, handshakes, revocation and session administration' (issue 26)",
  revoke_principal: "auth category blurb: 'Enrolment, handshakes, revocation and session administration' (issue 26)",
};

/** Parameters we accept beyond the catalog, each with its reason. */
const ADDITIONS: Record<string, string[]> = {
  // Issue 17: the owner hands a session to a named principal (recorded in history).
  session_save: ["handoff_to"],
  // Issue 14: query_tasks gains an assignee filter, so an agent can find what was assigned to it.
  query_tasks: ["assignee"],
  // Issue 25: the fencing token a holder names (a stale holder of the same principal is refused).
  job_complete: ["fence"],
  // Issue 25: the commit digest under review; an approval binds to it and lane_merge checks it.
  lane_review: ["commit"],
};

describe("the tools against the SHAMPOO catalog", () => {
  it("every registered tool is in the catalog; the ones not built yet are listed", () => {
    const unknown = TOOLS.map((t) => t.name).filter((n) => !byName.has(n) && !(n in NAMED_WITHOUT_SECTION));
    expect(unknown).toEqual([]);
    const built = new Set(TOOLS.map((t) => t.name).filter((n) => byName.has(n)));
    const missing = catalog.tools.filter((t) => !built.has(t.name));
    // The report a reader of the test output sees; the count only moves down as categories land.
    console.info(
      `catalog: ${built.size} of ${catalog.tools.length} tools built; not built yet:\n` +
        missing.map((t) => `  ${t.category}: ${t.name}`).join("\n"),
    );
    const partial = TOOLS.filter((t) => byName.get(t.name)?.incomplete).map((t) => t.name);
    if (partial.length > 0)
      console.info(`catalog sections incomplete, checked as far as they go: ${partial.join(", ")}`);
    expect(built.size + missing.length).toBe(catalog.tools.length);
  });

  for (const tool of TOOLS) {
    it(`${tool.name}: parameters, required fields, read/write and access follow the catalog`, () => {
      const c = byName.get(tool.name);
      if (!c) return; // reported by the test above
      const schema = tool.inputSchema as {
        properties?: Record<string, unknown>;
        required?: string[];
        additionalProperties?: boolean;
      };
      expect(schema.additionalProperties).toBe(false);
      const ours = Object.keys(schema.properties ?? {}).sort();
      const theirs = [...c.required, ...c.optional, ...(ADDITIONS[tool.name] ?? [])].sort();
      const required = [...(schema.required ?? [])].sort();
      if (c.incomplete) {
        // What survived of an incomplete section must hold; the rest cannot be checked here.
        expect(ours).toEqual(expect.arrayContaining(theirs));
        expect(required).toEqual(expect.arrayContaining(c.required));
      } else {
        expect(ours).toEqual(theirs);
        expect(required).toEqual([...c.required].sort());
      }
      expect(tool.kind === "read" ? "Read" : "Write").toBe(c.access.split(" ")[0]);
      expect(tool.annotations?.readOnlyHint).toBe(c.access.startsWith("Read"));
      const conductorOnly = c.access.includes("Conductor only");
      expect(tool.access?.includes("conductor") === true && !tool.access.includes("agent")).toBe(conductorOnly);
    });
  }
});

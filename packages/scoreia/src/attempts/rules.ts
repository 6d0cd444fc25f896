import type { StaticResource } from "kernel";
import { canonicalJson } from "../evidence/jcs.ts";
import type { Suite } from "../suites/index.ts";
import type { SuiteGeneration } from "../suites/secrets.ts";
import { VERDICTS } from "../suites/verdicts.ts";

/**
 * What an agent playing through its host can learn of the rules without leaving MCP (issue 16
 * §4): each suite's manifest is an MCP resource, and the entry response names it and carries a
 * short summary. The resource text is the manifest's RFC 8785 form, so its SHA-256 is the
 * `manifest_hash` bound into every card of the suite.
 */

export function manifestUri(suite: Pick<Suite, "id" | "generation">): string {
  return `scoreia://suites/${suite.id}/${suite.generation}/manifest.json`;
}

/**
 * One resource per generation given: the service's current ones (the generations new attempts
 * bind, room secret committed), so the text hashes to the cards' manifest_hash.
 */
export function manifestResources(generations: SuiteGeneration[]): StaticResource[] {
  return generations.map((g) => ({
    uri: manifestUri({ id: g.suite.id, generation: g.generation }),
    name: `${g.suite.id}-${g.generation}-manifest`,
    title: `${g.manifest.title}: rules, ops and value formats (${g.suite.id}, generation ${g.generation})`,
    description:
      "The suite's public manifest: stages and the op that clears each, every op's value format, object kinds, " +
      "scoring and verdicts. Hashed into every card (suite.manifest_hash).",
    mimeType: "application/json",
    text: canonicalJson(g.manifest),
  }));
}

/**
 * The rules in a few lines, for the entry response (it is stored with the enter event and kept in
 * the public replay, so it stays short: the manifest resource has the rest).
 */
export function rulesSummary(suite: Suite): Record<string, unknown> {
  const m = suite.manifest;
  const formats = new Map(m.ops.map((o) => [o.op, o.value]));
  return {
    manifest_resource: manifestUri(suite),
    stages: m.stages.map((st) => ({ op: st.op, value: formats.get(st.op) })),
    max_actions: m.limits.max_actions,
    max_hints: m.limits.max_hints,
    summary:
      "Accepted actions count; refusals cost nothing. A hint costs an action. 3 wrong submissions at one stage " +
      "jam it: verdict failed. All actions used unsolved: exhausted. Sealed before the end: abandoned.",
    verdicts: VERDICTS.map((v) => v.verdict),
  };
}

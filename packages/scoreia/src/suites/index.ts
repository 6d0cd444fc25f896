import { canonicalJson, sha256Tagged } from "../contract/index.ts";
import { atelierSuite } from "./atelier/index.ts";
import { chronoSuite } from "./chrono/index.ts";
import type { Suite } from "./types.ts";

/** Every suite the Chamber serves, by id. The default door is chambre-chrono-v0 (seed 000). */
export const SUITES: Record<string, Suite> = {
  [chronoSuite.id]: chronoSuite,
  [atelierSuite.id]: atelierSuite,
};
export const DEFAULT_SUITE_ID = chronoSuite.id;

const hashes = new Map<string, string>();

/** `sha256:` over the RFC 8785 form of the suite's public manifest; bound into every card. */
export function manifestHash(suite: Suite): string {
  let h = hashes.get(suite.id);
  if (!h) {
    h = sha256Tagged(canonicalJson(suite.manifest));
    hashes.set(suite.id, h);
  }
  return h;
}

export type { Suite } from "./types.ts";

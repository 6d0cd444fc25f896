import type { Toolset } from "../contract/index.ts";
import type { VerdictName } from "../suites/verdicts.ts";

/** Attempt states (seed 000 `attempt_states`). */
export type AttemptState =
  | "created"
  | "active"
  | "terminal_unsealed"
  | "sealed"
  | "expired"
  | "quarantined"
  | "pending_signature";

export type Verdict = VerdictName;

export interface ChamberConfig {
  toolset: Toolset;
  maxActions: number;
  ttlSeconds: number;
  retentionSeconds: number;
  /** The public-card notice every entrant receives; entry fails closed without it. */
  publicationNotice: { en: string; fr: string; privacy: string; terms: string } | null;
  /**
   * Origin of the public read side (e.g. https://chamber.example): seal_attempt links the card,
   * its proof and its verify page under it. Without one the links are paths.
   */
  publicOrigin?: string;
  /**
   * Benchmarks only (bench/chamber.ts `--evidence off`): no salted commitments of values and
   * observations in the replay (§14.2) and no transparency-log leaf or tree head per card (§15),
   * to measure what they cost in the same run. Never set by the server or its CLI.
   */
  benchWithoutLogAndCommitments?: boolean;
  /**
   * Benchmarks only (`--evidence batched`): the card's log leaf is appended as always, but no
   * tree head is signed at seal; one is signed when a proof or the head is asked for, covering
   * every card sealed since (what batching heads would cost). Never set by the server.
   */
  benchDeferTreeHeads?: boolean;
}

export function defaultConfig(toolset: Toolset): ChamberConfig {
  return {
    toolset,
    maxActions: toolset.limits.max_actions,
    ttlSeconds: toolset.limits.attempt_ttl_seconds,
    retentionSeconds: toolset.limits.finished_session_retention_seconds,
    publicationNotice: toolset.identity.publication_notice,
  };
}

/** Who is calling, as the MCP layer saw it. Never merged with the declared identity. */
export interface CallContext {
  mcpSession: string;
  /** MCP clientInfo from initialize, stored as a separate observation. */
  clientInfo?: { name: string; version: string; [k: string]: unknown };
  /** Toolset the client pinned in `_meta["scoreia/toolset_id"]`, if any. */
  pinnedToolset?: string;
  /** True only for runs launched by ScoreIA itself (server option); with origin=summoned gives scoreia_controlled. */
  controlled?: boolean;
}

export type Envelope = Record<string, unknown> & { ok: boolean };

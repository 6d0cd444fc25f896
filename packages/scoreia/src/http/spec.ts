import { CURRENT_TOOLSET, TOOLSETS, toolsetHash } from "../contract/index.ts";
import { CHANNELS } from "../evidence/registry.ts";
import { GENESIS } from "../evidence/replay.ts";
import { SIGNATURE_TYPE } from "../evidence/signer.ts";
import { PROOF_VERSION, VERIFICATION_STEPS } from "../evidence/verify.ts";
import { SUITES } from "../suites/index.ts";

/**
 * `GET /spec/0.2`: a machine-readable summary of ScoreIA open protocol 0.2 (shared/spec,
 * "Read and verify" and the sections before it) as this build implements it. The French seed
 * stands where the two differ; this is a summary, not the text.
 */

export const CARD_ID_PATTERNS = {
  native: "^(sia|oly)-[0-9a-f]{32}$",
  historical: "^(sia|oly)-[0-9a-f]{16}$",
};

export const TOOLSET_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}\/\d{1,3}\.\d{1,3}\.\d{1,3}$/;

export interface EndpointDoc {
  path: string;
  what: string;
  kind: "json" | "html" | "json|html";
}

export const ENDPOINTS: EndpointDoc[] = [
  { path: "/spec/0.2", what: "this summary of protocol 0.2", kind: "json" },
  {
    path: "/spec/toolsets/{toolset_id}.json",
    what: "a toolset contract's schema bundle and its hash",
    kind: "json",
  },
  {
    path: "/cards",
    what: "registry: cards newest first, filters and cursor pagination; never ranked",
    kind: "json",
  },
  {
    path: "/cards/{card_id}",
    what: "canonical card (RFC 8785 bytes) of native sia-32/oly-32 and historical sia-16 cards",
    kind: "json|html",
  },
  { path: "/cards/{card_id}.json", what: "the canonical card, always JSON", kind: "json" },
  { path: "/verify/{card_id}.json", what: "machine verification by the server", kind: "json" },
  { path: "/proofs/{card_id}.json", what: "native 0.2 proof bundle (signed cards only)", kind: "json" },
  { path: "/replays/public/{card_id}.json", what: "redacted public replay (native cards only)", kind: "json" },
  { path: "/.well-known/scoreia-keys.json", what: "ScoreIA public keys with validity windows", kind: "json" },
  { path: "/open-labyrinth/cards/{card_id}.json", what: "historical Labyrinth oly-16 cards, unsigned", kind: "json" },
  {
    path: "/codex",
    what: "the Codex: coverage subjects × suites × channels, not a grade",
    kind: "json|html",
  },
  { path: "/codex.json", what: "the Codex, always JSON", kind: "json" },
  { path: "/", what: "registry page", kind: "html" },
  { path: "/verify", what: "Verify a proof: local verification in the browser", kind: "html" },
  { path: "/let-my-ai-in", what: "Let my AI in: connect an MCP host", kind: "html" },
];

/** Toolsets cards may be bound to (protocol 0.2 "The Chamber"), and whether this build defines them. */
const BOUND_TOOLSETS = [
  "scoreia-chamber-tools/0.2.0",
  "scoreia-chamber-tools/0.3.0",
  "scoreia-chamber-tools/0.3.1",
  "scoreia-chamber-tools/0.3.2",
];

export function specSummary(): Record<string, unknown> {
  return {
    protocol: "scoreia-open-protocol",
    version: "0.2",
    principle:
      "ScoreIA publishes contextualised observations, not a universal score. A card binds a declared subject, a channel, a versioned suite, a seed and a verdict. No run: no figure.",
    observation: {
      unit: "1 trial × 1 subject × 1 channel × 1 seed",
      channels: [...CHANNELS],
      channels_merged: false,
      empty_cell: "not measured",
      overall_rank: false,
    },
    identity_layers: [
      {
        layer: "declared_model",
        card_field: "identity.declared_model",
        meaning: "the name given at entry; not a provider attestation",
      },
      {
        layer: "product",
        card_field: "identity.product",
        meaning: "the declared product or plan; a host product is never its API",
      },
      {
        layer: "declared_host",
        card_field: "identity.declared_host",
        meaning: "the name given at entry; not a protocol observation nor a provider attestation",
      },
      {
        layer: "assurance",
        card_field: "identity.assurance",
        meaning: "how the identity was obtained; none of the levels attests provider identity",
      },
    ],
    observed_client: {
      card_field: "observed_client",
      meaning:
        "the MCP clientInfo received at initialize, a separate observation; it attests neither the application nor the provider and is never merged with the declared host or the assurance",
    },
    assurance: {
      current: ["participant_claimed", "scoreia_controlled"],
      historical: ["host_reported", "official_host_reported", "declared"],
      synonyms: { declared: "participant_claimed" },
      proof_debt: ["provider_attested"],
      note: "Ed25519 never fills provider_attested. None of these levels attests provider identity.",
    },
    evidence_levels: {
      counted_on: "distinct seeds per comparison key",
      comparison_key: [
        "declared_model",
        "product",
        "declared_host",
        "assurance",
        "suite_id",
        "suite_generation",
        "channel",
        "parameters.toolset_id",
      ],
      levels: [
        { level: "exploratory", min_distinct_seeds: 1, max_distinct_seeds: 2 },
        { level: "provisional", min_distinct_seeds: 3, max_distinct_seeds: 4 },
        { level: "confirmed", min_distinct_seeds: 5, max_distinct_seeds: null },
      ],
      repeated_seed_raises_level: false,
    },
    card_generations: [
      {
        generation: "historical 0.1",
        card_version: "0.1",
        card_id_pattern: CARD_ID_PATTERNS.historical,
        signed: false,
        checks: "schema, identifier and content_hash when present; never signed retroactively",
        labyrinth: "oly-16 cards are local and unsigned, served at /open-labyrinth/cards/{card_id}.json",
      },
      {
        generation: "native 0.2",
        card_version: "0.2",
        card_id_pattern: CARD_ID_PATTERNS.native,
        signed: true,
        signature: {
          alg: "Ed25519",
          type: SIGNATURE_TYPE,
          covers: "UTF-8 of RFC 8785 {type, card, key_id, signed_at}",
        },
        card_hash: "sha256: + hex SHA-256 of the card's RFC 8785 form",
        proof_version: PROOF_VERSION,
        replay: { replay_version: "scoreia-replay/0.2", genesis: GENESIS, chained: true, redacted: true },
        verification_steps: [...VERIFICATION_STEPS],
        limit:
          "an Ed25519 signature proves ScoreIA issuance and artefact integrity; it is not a provider identity and attests neither model, product, host nor general performance",
      },
    ],
    chamber: {
      default_suite: "chambre-chrono-v0",
      suites: Object.values(SUITES).map((s) => ({ id: s.id, generation: s.generation, engine: s.engine })),
      tools: CURRENT_TOOLSET.canonical_tools.map((t) => t.name),
      current_toolset: CURRENT_TOOLSET.toolset_id,
      toolsets: BOUND_TOOLSETS.map((id) => {
        const t = TOOLSETS[id];
        return t
          ? { toolset_id: id, known: true, hash: toolsetHash(t), url: `/spec/toolsets/${id}.json` }
          : { toolset_id: id, known: false, note: "cards may stay bound to it; its definition is not in this build" };
      }),
      mcp_endpoint: "/mcp",
    },
    endpoints: ENDPOINTS.map((e) => ({ method: "GET", ...e })),
    guarantees: [
      "The four identity layers (declared model, product, declared host, assurance) stay separate.",
      "An Ed25519 signature is not a provider identity.",
      "A native 0.2 card can be verified without revealing the oracle.",
      "A place in a table cannot be bought and the public protocol has no paywall.",
    ],
    not_guaranteed: ["citation in an assistant", "an absolute best model", "an overall rank"],
    docs: {
      endpoints: "docs/http.md",
      evidence: "docs/evidence-0.2.md",
      chamber: "docs/chamber.md",
      verify_page: "/verify",
      let_my_ai_in: "/let-my-ai-in",
    },
  };
}

import { randomUUID } from "node:crypto";
import { iso } from "kernel";
import { scopeOf } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { fail, notFound } from "../../../platform/errors.ts";
import { recordChange } from "../../../platform/rows.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import type { ExtractCandidateClaimsInput, PromoteCandidateInput } from "../inputs.gen.ts";
import { claimView, historyView } from "../model.ts";
import {
  claimScope,
  detectScope,
  extractClaims,
  MAX_CLAIMS_PER_CHUNK,
  requiresHuman,
  type Scope,
} from "../rules/claims.ts";
import { gate, type Mode } from "../rules/promotion.ts";
import { norm } from "../rules/text.ts";
import type { ChunkRow, ClaimRow, FactRow } from "../schema/tables.ts";
import { addEvidence, candidateByIdentity, claimById, evidenceExists, evidenceOf, putClaim } from "../store/claims.ts";
import { liveFactLike } from "../store/facts.ts";
import { addProvenance } from "../store/provenance.ts";
import { bodyOf, resolveChunk } from "./chunks.ts";
import { impactLink, linkStructural, saveFact } from "./facts.ts";
import { recordRun } from "./runs.ts";

export const EXTRACTABLE = ["enrichable", "uncertain"];

async function saveClaim(w: WriteScope, old: ClaimRow | null, row: ClaimRow, action: string, payload?: unknown) {
  row.last_event_id = await recordChange(w, {
    kind: "claim",
    id: row.claim_id,
    action,
    old,
    next: row,
    view: historyView,
    payload,
  });
  await putClaim(w.trx, row, old === null);
  return row;
}

export interface Staged {
  subject: string;
  predicate: string;
  object: string;
  confidence: number;
  excerpt: string;
  valid_from: string | null;
}

/**
 * Stages one claim from a chunk: an identical candidate (same project, subject, predicate,
 * object, scope) gains this chunk revision as evidence (confidence: the higher), otherwise a new
 * candidate is written. Each evidence entry is one (chunk, source hash): the same text counted
 * twice is still one entry.
 */
export async function stageClaim(w: WriteScope, chunk: ChunkRow, scope: Scope, s: Staged): Promise<ClaimRow> {
  const at = iso(w.now);
  const probe: ClaimRow = {
    claim_id: randomUUID(),
    profile: chunk.profile,
    project: chunk.project,
    chunk_id: chunk.chunk_id,
    subject: s.subject,
    subject_norm: norm(s.subject),
    predicate: s.predicate,
    object: s.object,
    object_norm: norm(s.object),
    scope,
    confidence: s.confidence,
    requires_human: requiresHuman(scope, s.confidence, chunk.state === "uncertain") ? 1 : 0,
    valid_from: s.valid_from ?? at,
    evidence_count: 1,
    status: "candidate",
    fact_id: null,
    validation_mode: null,
    created_at: at,
    updated_at: at,
    last_event_id: "",
  };
  const existing = await candidateByIdentity(w.trx, probe);
  let claim: ClaimRow;
  if (existing) {
    if (await evidenceExists(w.trx, existing.claim_id, chunk.chunk_id, chunk.source_hash)) return existing;
    const confidence = Math.max(existing.confidence, s.confidence);
    claim = await saveClaim(
      w,
      existing,
      {
        ...existing,
        confidence,
        evidence_count: existing.evidence_count + 1,
        requires_human: requiresHuman(scope, confidence, chunk.state === "uncertain") ? 1 : 0,
        updated_at: at,
      },
      "evidence",
      { chunk_id: chunk.chunk_id, source_hash: chunk.source_hash },
    );
  } else {
    claim = await saveClaim(w, null, probe, "create", { chunk_id: chunk.chunk_id });
  }
  await addEvidence(w.trx, {
    evidence_id: randomUUID(),
    profile: chunk.profile,
    claim_id: claim.claim_id,
    chunk_id: chunk.chunk_id,
    source_hash: chunk.source_hash,
    excerpt: s.excerpt,
    confidence: s.confidence,
    created_at: at,
  });
  await addProvenance(w.trx, {
    provenance_id: randomUUID(),
    profile: chunk.profile,
    target_kind: "claim",
    target_id: claim.claim_id,
    source_kind: "chunk",
    source_ref: chunk.chunk_id,
    detail_json: JSON.stringify({ source_hash: chunk.source_hash, excerpt: s.excerpt }),
    created_at: at,
  });
  await impactLink(w, "chunk", chunk.chunk_id, "claim", claim.claim_id, s.confidence, "extracted from");
  return claim;
}

/** extract_candidate_claims: extracts (extractFromChunk) and records the run. */
export function extractCandidateClaims(ctx: ShampooCtx, a: ExtractCandidateClaimsInput) {
  return write(ctx, async (w) => {
    const r = await extractFromChunk(w, a.chunk_ref, a.scope_hint, MAX_CLAIMS_PER_CHUNK);
    await recordRun(w, "extract_candidate_claims", a, { ...r, claims: r.claims.map((c) => c.claim_id) });
    return r;
  });
}

/**
 * Stages the claims of one chunk: only enrichable or uncertain chunks (invalid-state otherwise).
 * At most `max` (≤ MAX_CLAIMS_PER_CHUNK) claims, the first in reading order: `claims_found` says
 * how many the body holds and `truncated` whether some were left. Without a scope_hint each claim
 * takes the scope its own subject and object name (claimScope); `scope` is the hint, else the
 * body's first sensitive area (as before).
 */
export async function extractFromChunk(w: WriteScope, ref: string, scopeHint: Scope | undefined, max: number) {
  const chunk = await resolveChunk(w, ref);
  if (!EXTRACTABLE.includes(chunk.state))
    throw fail("invalid_state", `chunk is ${chunk.state}; only enrichable or uncertain chunks can be extracted`);
  const body = bodyOf(chunk);
  const found = extractClaims(body);
  const kept = found.slice(0, Math.max(0, Math.min(max, MAX_CLAIMS_PER_CHUNK)));
  const out: ClaimRow[] = [];
  for (const c of kept) out.push(await stageClaim(w, chunk, scopeHint ?? claimScope(c), c));
  return {
    chunk_id: chunk.chunk_id,
    claims_extracted: out.length,
    claims_found: found.length,
    truncated: kept.length < found.length,
    scope: scopeHint ?? detectScope(body),
    claims: out.map(claimView),
  };
}

/** promote_candidate (human modes; auto_layer1 is refused here): promotes and records the run. */
export function promoteCandidate(ctx: ShampooCtx, a: PromoteCandidateInput) {
  return write(ctx, async (w) => {
    const r = await promoteClaim(w, a.claim_id, a.mode ?? "human_confirmed", false);
    await recordRun(w, "promote_candidate", a, r);
    return r;
  });
}

/**
 * Promotes one candidate claim (`internal`: enrich_context's auto_layer1). A blocked promotion is data (promoted false with its reason). Otherwise
 * the claim becomes canonical: an identical live fact (same project, subject, predicate, object,
 * scope) is reinforced — never duplicated — else a new fact is written, valid from the claim's
 * validity start and known from now; its evidence is copied into provenance and structural
 * contradictions are linked with counts refreshed.
 */
export async function promoteClaim(w: WriteScope, claimId: string, mode: Mode, internal: boolean) {
  const at = iso(w.now);
  const claim = await claimById(w.trx, scopeOf(w.ctx.caller), claimId, w.engine.caps.rowLock);
  if (!claim) throw notFound("claim");
  if (claim.status !== "candidate")
    throw fail("invalid_state", `claim is ${claim.status}; only candidate claims can be promoted`);
  const reason = gate({
    mode,
    scope: claim.scope as Scope,
    confidence: claim.confidence,
    evidence: claim.evidence_count,
    requiresHuman: claim.requires_human === 1,
    internal,
  });
  if (reason !== null) return { claim_id: claim.claim_id, promoted: false, reason };

  const same = await liveFactLike(w.trx, claim);
  let fact: FactRow;
  if (same) {
    fact = await saveFact(
      w,
      same,
      {
        ...same,
        confidence: Math.max(same.confidence, claim.confidence),
        evidence_count: same.evidence_count + claim.evidence_count,
        reinforced_count: same.reinforced_count + 1,
        updated_at: at,
      },
      "reinforce",
      { claim_id: claim.claim_id, mode },
    );
  } else {
    fact = await saveFact(
      w,
      null,
      {
        fact_id: randomUUID(),
        profile: claim.profile,
        project: claim.project,
        subject: claim.subject,
        subject_norm: claim.subject_norm,
        predicate: claim.predicate,
        object: claim.object,
        object_norm: claim.object_norm,
        scope: claim.scope,
        confidence: claim.confidence,
        evidence_count: claim.evidence_count,
        reinforced_count: 0,
        validation_mode: mode,
        source_claim_id: claim.claim_id,
        status: "live",
        valid_from: claim.valid_from,
        valid_to: null,
        superseded_by: null,
        contradicts_json: "[]",
        contradiction_count: 0,
        recorded_at: at,
        updated_at: at,
        last_event_id: "",
      },
      "create",
      { claim_id: claim.claim_id, mode },
    );
    fact = (await linkStructural(w, fact)).fact;
  }
  for (const e of await evidenceOf(w.trx, claim.claim_id)) {
    await addProvenance(w.trx, {
      provenance_id: randomUUID(),
      profile: claim.profile,
      target_kind: "fact",
      target_id: fact.fact_id,
      source_kind: "evidence",
      source_ref: e.chunk_id,
      detail_json: JSON.stringify({ claim_id: claim.claim_id, source_hash: e.source_hash, excerpt: e.excerpt }),
      created_at: at,
    });
  }
  await impactLink(w, "claim", claim.claim_id, "fact", fact.fact_id, 1, "promoted to");
  await saveClaim(
    w,
    claim,
    { ...claim, status: "promoted", fact_id: fact.fact_id, validation_mode: mode, updated_at: at },
    "promote",
    {
      fact_id: fact.fact_id,
      reused_existing_fact: same !== undefined,
    },
  );
  return {
    claim_id: claim.claim_id,
    promoted: true,
    fact_id: fact.fact_id,
    subject: fact.subject,
    predicate: fact.predicate,
    object: fact.object,
    scope: fact.scope,
    validation_mode: mode,
    reused_existing_fact: same !== undefined,
  };
}

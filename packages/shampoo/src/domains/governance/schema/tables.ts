/**
 * Context governance rows. Timestamps are ISO-8601 UTC text, JSON columns JSON text, booleans
 * 0/1 integers, on both engines. Entity rows (chunks, questions, claims, facts, issues) are
 * never deleted and each change records a history event whose `new` is the whole row (less
 * profile and last_event_id), so folding the history rebuilds them (replay_memory).
 */
export interface ChunkRow {
  chunk_id: string;
  profile: string;
  project: string | null;
  /** Where the chunk is materialized from: a task or note (source_ref = its id). */
  source_kind: string;
  source_ref: string;
  title: string;
  /** The source's text when last materialized (title, description, notes). */
  source_text: string;
  /** Human answers appended by record_human_answer. */
  answers_text: string;
  /** sha256 of source_text + answers_text. */
  source_hash: string;
  state: string;
  /** The source hash when the chunk entered its current state (awaiting_human skips on it). */
  state_hash: string | null;
  policy: string | null;
  materiality: number;
  uncertainty: number;
  signals_json: string;
  created_at: string;
  updated_at: string;
  assessed_at: string | null;
  last_event_id: string;
}

export interface AnnotationRow {
  annotation_id: string;
  profile: string;
  chunk_id: string;
  /** signal:<kind> | awaiting_human */
  kind: string;
  body: string;
  source_hash: string;
  created_at: string;
}

export interface QuestionRow {
  question_id: string;
  profile: string;
  project: string | null;
  chunk_id: string;
  type: string;
  text: string;
  priority: string;
  status: string;
  answer_text: string | null;
  answered_by: string | null;
  answered_at: string | null;
  created_at: string;
  last_event_id: string;
}

export interface ClaimRow {
  claim_id: string;
  profile: string;
  project: string | null;
  chunk_id: string;
  subject: string;
  subject_norm: string;
  predicate: string;
  object: string;
  object_norm: string;
  scope: string;
  confidence: number;
  requires_human: number;
  valid_from: string;
  evidence_count: number;
  /** candidate | promoted */
  status: string;
  fact_id: string | null;
  validation_mode: string | null;
  created_at: string;
  updated_at: string;
  last_event_id: string;
}

export interface EvidenceRow {
  evidence_id: string;
  profile: string;
  claim_id: string;
  chunk_id: string;
  source_hash: string;
  excerpt: string;
  confidence: number;
  created_at: string;
}

export interface FactRow {
  fact_id: string;
  profile: string;
  project: string | null;
  subject: string;
  subject_norm: string;
  predicate: string;
  object: string;
  object_norm: string;
  scope: string;
  confidence: number;
  evidence_count: number;
  reinforced_count: number;
  validation_mode: string;
  source_claim_id: string;
  /** live | superseded | invalidated */
  status: string;
  valid_from: string;
  valid_to: string | null;
  superseded_by: string | null;
  /** JSON array of fact ids this fact contradicts, sorted; contradiction_count is its length. */
  contradicts_json: string;
  contradiction_count: number;
  /** When memory learned the fact (transaction time). */
  recorded_at: string;
  updated_at: string;
  last_event_id: string;
}

export interface FactVersionRow {
  version_id: string;
  profile: string;
  fact_id: string;
  status: string;
  valid_from: string;
  valid_to: string | null;
  known_from: string;
  known_to: string | null;
  event_id: string;
}

export interface DecisionRow {
  decision_id: string;
  profile: string;
  fact_id: string;
  action: string;
  target_fact_id: string | null;
  rationale: string | null;
  effective_at: string;
  decided_by: string;
  decided_at: string;
  event_id: string;
}

export interface ProvenanceRow {
  provenance_id: string;
  profile: string;
  target_kind: string;
  target_id: string;
  source_kind: string;
  source_ref: string;
  detail_json: string;
  created_at: string;
}

export interface ImpactLinkRow {
  profile: string;
  from_kind: string;
  from_id: string;
  to_kind: string;
  to_id: string;
  weight: number;
  rationale: string;
  created_at: string;
}

export interface PackSummaryRow {
  pack_id: string;
  profile: string;
  pack_type: string;
  target_ref: string | null;
  session_id: string | null;
  relevance_score: number;
  quality_score: number;
  items_included: number;
  sections_json: string;
  summary: string;
  created_at: string;
}

export interface IssueRow {
  issue_id: string;
  profile: string;
  project: string | null;
  kind: string;
  target_kind: string;
  target_id: string;
  detail: string;
  /** open | resolved */
  status: string;
  first_seen_at: string;
  last_seen_at: string;
  resolved_at: string | null;
  last_event_id: string;
}

export interface GovernanceDB {
  governance_chunks: ChunkRow;
  governance_annotations: AnnotationRow;
  governance_questions: QuestionRow;
  governance_claims: ClaimRow;
  governance_evidence: EvidenceRow;
  governance_facts: FactRow;
  governance_fact_versions: FactVersionRow;
  governance_decisions: DecisionRow;
  governance_provenance: ProvenanceRow;
  governance_impact_links: ImpactLinkRow;
  governance_pack_summaries: PackSummaryRow;
  governance_issues: IssueRow;
}

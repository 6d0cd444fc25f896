import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import type { TaskRow } from "../../tasks/schema.ts";
import { type AuditParams, CATEGORIES, CATEGORY_RULES, type Category, cutoffs, type TargetKind } from "./vocabulary.ts";

/**
 * The six audit detectors over plain rows: no database, no clock (the cut-offs come in as
 * values). The store reads each category's rows already narrowed and ordered by the same rules
 * (store.ts); these functions are the rules themselves, and the differential test checks that
 * the SQL path and this one give the same candidates for the same memory.
 *
 * Determinism: every order is total (ties broken by id) and compares strings byte by byte in
 * UTF-8, the order of SQLite's BINARY collation and PostgreSQL's "C", so both engines and this
 * code agree; evidence holds row fields only (never "days ago"), so the same memory under the
 * same thresholds gives byte-identical candidates.
 */

/** A task as the audit sees it (visible to the caller): the task row's columns it reads. */
export type TaskFact = Pick<
  TaskRow,
  | "id"
  | "project"
  | "title"
  | "title_norm"
  | "type"
  | "status"
  | "priority"
  | "section"
  | "description"
  | "due_date"
  | "parent_id"
  | "created_at"
  | "updated_at"
  | "last_event_id"
> & {
  /** Whether parent_id names a task the caller can see (missing and foreign read alike). */
  parent_visible?: boolean;
};

/** A live entity visible to the caller, with its number of live observations. */
export interface EntityFact {
  id: string;
  project: string | null;
  name: string;
  name_norm: string;
  entity_type: string;
  visibility: string;
  created_by: string;
  updated_at: string;
  last_event_id: string;
  active_observations: number;
}

export interface Fingerprint {
  /** The target's last history event when the run saw it. */
  target: string;
  /** exact_duplicate_titles: the copy that stays, and its last event. */
  keeper?: { id: string; event: string };
}

export interface Finding {
  type: Category;
  target_kind: TargetKind;
  target_ref: string;
  suggested_action: string;
  confidence: number;
  evidence: Record<string, unknown>;
  /** The project of the evidence (reads of the candidate need its grant). */
  evidence_project: string | null;
  /** A private entity's creator: only they may read the candidate. */
  private_to: string | null;
  fingerprint: Fingerprint;
}

const LIVE = new Set(["not_started", "in_progress"]);
const BLANK = /^[ \t\n\r]*$/;

/** UTF-8 byte order (SQLite BINARY, PostgreSQL COLLATE "C"); ASCII strings compare directly. */
export function byteCompare(a: string, b: string): number {
  if (a === b) return 0;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range, on purpose
  if (/^[\x00-\x7f]*$/.test(a) && /^[\x00-\x7f]*$/.test(b)) return a < b ? -1 : 1;
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function byKeys<T>(keys: Array<(r: T) => string>): (x: T, y: T) => number {
  return (x, y) => {
    for (const k of keys) {
      const c = byteCompare(k(x), k(y));
      if (c !== 0) return c;
    }
    return 0;
  };
}

function finding(
  type: Category,
  ref: string,
  evidence: Record<string, unknown>,
  project: string | null,
  fingerprint: Fingerprint,
  privateTo: string | null = null,
): Finding {
  const rule = CATEGORY_RULES[type];
  return {
    type,
    target_kind: rule.target,
    target_ref: ref,
    suggested_action: rule.action,
    confidence: rule.confidence,
    evidence,
    evidence_project: project,
    private_to: privateTo,
    fingerprint,
  };
}

const inProject = (p: AuditParams) => (r: { project: string | null }) => p.project === null || r.project === p.project;

/** Live rows sharing (normalized title, project, type): every copy but the oldest is a candidate. */
export function duplicateTitles(tasks: TaskFact[], p: AuditParams): Finding[] {
  const groups = new Map<string, TaskFact[]>();
  for (const t of tasks.filter(inProject(p))) {
    if (!LIVE.has(t.status)) continue;
    const key = JSON.stringify([t.title_norm, t.project ?? "", t.type]);
    const g = groups.get(key);
    if (g) g.push(t);
    else groups.set(key, [t]);
  }
  const sorted = [...groups.values()]
    .filter((g) => g.length > 1)
    .sort(byKeys<TaskFact[]>([(g) => g[0]?.title_norm ?? "", (g) => g[0]?.project ?? "", (g) => g[0]?.type ?? ""]));
  const out: Finding[] = [];
  for (const g of sorted) {
    g.sort(byKeys<TaskFact>([(t) => t.created_at, (t) => t.id]));
    const [keeper, ...copies] = g as [TaskFact, ...TaskFact[]];
    for (const t of copies) {
      if (out.length >= p.limit_per_category) return out;
      out.push(
        finding(
          "exact_duplicate_titles",
          t.id,
          {
            title: t.title,
            title_norm: t.title_norm,
            project: t.project,
            type: t.type,
            status: t.status,
            duplicate_count: g.length,
            task_ids: g.map((x) => x.id),
            keeper_id: keeper.id,
            created_at: t.created_at,
            updated_at: t.updated_at,
          },
          t.project,
          { target: t.last_event_id, keeper: { id: keeper.id, event: keeper.last_event_id } },
        ),
      );
    }
  }
  return out;
}

export function staleOverdue(tasks: TaskFact[], p: AuditParams, staleBefore: string): Finding[] {
  return tasks
    .filter(inProject(p))
    .filter((t) => t.type === "task" && t.status === "not_started" && t.due_date !== null && t.due_date < staleBefore)
    .sort(byKeys<TaskFact>([(t) => t.due_date ?? "", (t) => t.created_at, (t) => t.id]))
    .slice(0, p.limit_per_category)
    .map((t) =>
      finding(
        "stale_overdue_tasks",
        t.id,
        {
          title: t.title,
          project: t.project,
          due_date: t.due_date,
          priority: t.priority,
          section: t.section,
          status: t.status,
          updated_at: t.updated_at,
        },
        t.project,
        { target: t.last_event_id },
      ),
    );
}

export function emptyNotes(tasks: TaskFact[], p: AuditParams): Finding[] {
  return tasks
    .filter(inProject(p))
    .filter((t) => t.type === "note" && LIVE.has(t.status) && (t.description === null || BLANK.test(t.description)))
    .sort(byKeys<TaskFact>([(t) => t.updated_at, (t) => t.id]))
    .slice(0, p.limit_per_category)
    .map((t) =>
      finding(
        "empty_description_notes",
        t.id,
        { title: t.title, project: t.project, section: t.section, status: t.status, updated_at: t.updated_at },
        t.project,
        { target: t.last_event_id },
      ),
    );
}

export function orphanParents(tasks: TaskFact[], p: AuditParams): Finding[] {
  return tasks
    .filter(inProject(p))
    .filter((t) => LIVE.has(t.status) && t.parent_id !== null && t.parent_visible === false)
    .sort(byKeys<TaskFact>([(t) => t.updated_at, (t) => t.id]))
    .slice(0, p.limit_per_category)
    .map((t) =>
      finding(
        "orphan_parent_tasks",
        t.id,
        {
          title: t.title,
          project: t.project,
          type: t.type,
          status: t.status,
          missing_parent_id: t.parent_id,
          updated_at: t.updated_at,
        },
        t.project,
        { target: t.last_event_id },
      ),
    );
}

export function abandonedInbox(tasks: TaskFact[], p: AuditParams, abandonedBefore: string): Finding[] {
  return tasks
    .filter(inProject(p))
    .filter((t) => t.section === "inbox" && t.status === "not_started" && t.updated_at < abandonedBefore)
    .sort(byKeys<TaskFact>([(t) => t.updated_at, (t) => t.id]))
    .slice(0, p.limit_per_category)
    .map((t) =>
      finding(
        "abandoned_inbox_items",
        t.id,
        {
          title: t.title,
          project: t.project,
          type: t.type,
          priority: t.priority,
          status: t.status,
          created_at: t.created_at,
          updated_at: t.updated_at,
        },
        t.project,
        { target: t.last_event_id },
      ),
    );
}

export function bareEntities(entities: EntityFact[], p: AuditParams): Finding[] {
  return entities
    .filter(inProject(p))
    .filter((e) => e.active_observations === 0)
    .sort(byKeys<EntityFact>([(e) => e.name_norm, (e) => e.id]))
    .slice(0, p.limit_per_category)
    .map((e) =>
      finding(
        "entities_no_observations",
        e.id,
        { name: e.name, entity_type: e.entity_type, project: e.project, updated_at: e.updated_at },
        e.project,
        { target: e.last_event_id },
        e.visibility === "private" ? e.created_by : null,
      ),
    );
}

/** Fills parent_visible from the rows themselves (for callers holding every visible task). */
export function withParents(tasks: TaskFact[]): TaskFact[] {
  const ids = new Set(tasks.map((t) => t.id));
  return tasks.map((t) => ({ ...t, parent_visible: t.parent_id === null ? true : ids.has(t.parent_id) }));
}

export type Findings = Record<Category, Finding[]>;

/** One category's detector over its rows. */
export function detectCategory(
  category: Category,
  rows: { tasks: TaskFact[]; entities: EntityFact[] },
  p: AuditParams,
  now: number,
): Finding[] {
  const c = cutoffs(p, now);
  switch (category) {
    case "exact_duplicate_titles":
      return duplicateTitles(rows.tasks, p);
    case "stale_overdue_tasks":
      return staleOverdue(rows.tasks, p, c.staleBefore);
    case "empty_description_notes":
      return emptyNotes(rows.tasks, p);
    case "orphan_parent_tasks":
      return orphanParents(rows.tasks, p);
    case "abandoned_inbox_items":
      return abandonedInbox(rows.tasks, p, c.abandonedBefore);
    case "entities_no_observations":
      return bareEntities(rows.entities, p);
  }
}

/** The whole audit over a memory: every task and live entity the caller can see. */
export function detect(memory: { tasks: TaskFact[]; entities: EntityFact[] }, p: AuditParams, now: number): Findings {
  const rows = { tasks: withParents(memory.tasks), entities: memory.entities };
  const out = {} as Findings;
  for (const c of CATEGORIES) out[c] = detectCategory(c, rows, p, now);
  return out;
}

/** Findings in run order: category order, then each category's own order. */
export function flatten(f: Findings): Finding[] {
  return CATEGORIES.flatMap((c) => f[c]);
}

/** A candidate's id: a digest of its run and finding, so a run's ids are a function of its content. */
export function candidateId(runId: string, f: Pick<Finding, "type" | "target_kind" | "target_ref">): string {
  const h = createHash("sha256").update(`${runId}\n${f.type}\n${f.target_kind}\n${f.target_ref}`).digest("hex");
  return `rc_${h.slice(0, 32)}`;
}

/** Canonical JSON (RFC 8785): the stored and hashed form of evidence. */
export function canonical(v: unknown): string {
  const s = canonicalize(v);
  if (s === undefined) throw new Error("cannot canonicalize");
  return s;
}

/** The digest of a run's candidates in order (recorded with the run's completion event). */
export function findingsDigest(list: Finding[]): string {
  const h = createHash("sha256");
  for (const f of list) h.update(canonical([f.type, f.target_kind, f.target_ref, f.evidence])).update("\n");
  return h.digest("hex");
}

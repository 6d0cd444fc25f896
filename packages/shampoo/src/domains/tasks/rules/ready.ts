import { fail } from "../../../platform/errors.ts";
import { FINISHED, taskView, today } from "../model.ts";
import type { TaskRow } from "../schema.ts";

/**
 * ready_context (contract ready_context.v1): deterministic "what next" records built from
 * structure only — status, section, priority, due date, reminder, parent/subtask links and
 * timestamps — never from keywords in the text, so a task is never blocked or buried because
 * its notes happen to mention a word. Same rows and same clock → same bytes.
 *
 * Ready states, in rank order:
 * - ready_now: live, unblocked, and in progress, in today, past due or due today, or critical;
 * - suggested_ready: live and unblocked otherwise (inbox, next; someday with a due date);
 * - blocked: has open subtasks the caller can see (the subtasks are the actionable leaves);
 * - waiting: parked in the waiting section (follow-up due once its reminder time passes);
 * - cleanup_candidate: its parent is finished while it is still open, or an untouched inbox
 *   item (not started, no due date, not updated for 30 days);
 * - reading: a live note, only with include_readings (notes are reading, not work);
 * - deferred: in someday without a due date.
 * Within a state: score (higher first), due date (soonest first, none last), created_at, id.
 */

export const READY_CONTRACT_VERSION = "ready_context.v1";
export const READY_MODES = ["ready", "suggested", "prime"] as const;
export type ReadyMode = (typeof READY_MODES)[number];
export const READY_LIMIT = { min: 1, max: 100, default: 12 };

export const READY_STATES = [
  "ready_now",
  "suggested_ready",
  "blocked",
  "waiting",
  "cleanup_candidate",
  "reading",
  "deferred",
] as const;
export type ReadyState = (typeof READY_STATES)[number];
const STATE_RANK = Object.fromEntries(READY_STATES.map((s, i) => [s, i])) as Record<ReadyState, number>;

/** Reason codes in precedence order: reason_primary is the first one present. */
export const REASONS = [
  "past_due",
  "due_today",
  "in_progress",
  "section_today",
  "critical_priority",
  "followup_due",
  "open_subtasks",
  "waiting",
  "parent_finished",
  "stale_inbox",
  "due_soon",
  "high_priority",
  "someday",
  "reading",
  "backlog",
] as const;
type Reason = (typeof REASONS)[number];

export const DUE_SOON_DAYS = 3;
export const STALE_DAYS = 30;
const DAY_MS = 86_400_000;

export const MANDATE =
  "Consult ready_context before broad memory search, and work from top_ready_items first. Never invent work.";
export const GUIDANCE =
  "Start with top_ready_items (ready_now before suggested_ready); resolve blocked_or_waiting next. cleanup_candidates and explicit_exclusions are review-only: change them only on clear evidence. When the pack is empty, query or ask for real work instead of inventing tasks.";

/** "" or absent → ready; anything else outside the three modes → validation error with valid_modes. */
export function checkMode(v: unknown): ReadyMode {
  if (v === undefined || v === "") return "ready";
  if ((READY_MODES as readonly unknown[]).includes(v)) return v as ReadyMode;
  throw fail("invalid_mode", `Invalid mode: ${JSON.stringify(v)}; valid modes are ${READY_MODES.join(", ")}`, {
    valid_modes: [...READY_MODES],
    contract_version: READY_CONTRACT_VERSION,
  });
}

/** What scoring reads of a row: everything but the long bodies (never loaded in bulk). */
export type ReadyRow = Omit<TaskRow, "description" | "notes">;

export interface ReadyInput {
  now: number;
  includeReadings: boolean;
  limit: number;
  /** Live rows in scope (notes only with include_readings). */
  live: ReadyRow[];
  /** parent id → ids of its live subtasks (visible ones only). */
  openSubtasks: Map<string, string[]>;
  /** id → status of visible parents. */
  parentStatus: Map<string, string>;
  /** Recently finished tasks (prime only). */
  finished: ReadyRow[];
  /**
   * Full rows of the records shown (read.ts reads the live rows from an index without their
   * text; the shown ones are then read whole): suggested items are these rows.
   */
  full?: Map<string, TaskRow>;
}

interface Blocker {
  kind: "waiting" | "open_subtasks";
  detail: string;
  refs: string[];
}

export interface ReadyRecord {
  id: string;
  type: string;
  title: string;
  status: string;
  section: string;
  priority: string;
  due_date: string | null;
  project: string | null;
  parent_id: string | null;
  ready_state: ReadyState;
  score: number;
  urgency: "critical" | "high" | "medium" | "low";
  urgency_reason: string;
  reasons: Reason[];
  reason_primary: Reason;
  blockers: Blocker[];
  next_action: string;
  provenance: Record<string, unknown>;
  sort_position: number;
}

function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS).toISOString().slice(0, 10);
}

/** reminder_at without an offset is read as UTC (the server's only timezone). */
function instant(v: string): number {
  return Date.parse(/(Z|[+-]\d{2}:\d{2})$/.test(v) ? v : `${v}Z`);
}

const PRIORITY_POINTS: Record<string, number> = { critical: 40, high: 30, medium: 20, low: 10 };
const SECTION_POINTS: Record<string, number> = { today: 20, next: 6, inbox: 3 };

function provenance(t: ReadyRow): Record<string, unknown> {
  return {
    source_kind: t.type === "note" ? "note" : "task",
    source_id: t.id,
    project: t.project,
    created_at: t.created_at,
    updated_at: t.updated_at,
    last_event_id: t.last_event_id,
    rule_version: READY_CONTRACT_VERSION,
  };
}

/** The dates every record is judged against, computed once per call. */
interface Clockwork {
  day: string;
  soon: string;
  staleBefore: number;
}

function nextAction(state: ReadyState, inProgress: boolean, followupDue: boolean, parentFinished: boolean): string {
  switch (state) {
    case "ready_now":
      return inProgress ? "Continue it" : "Start it now";
    case "suggested_ready":
      return "Pick it up once ready_now work is done";
    case "blocked":
      return "Work the open subtasks first";
    case "waiting":
      return followupDue ? "Follow up: the reminder time has passed" : "Check whether the wait is over";
    case "cleanup_candidate":
      return parentFinished
        ? "Its parent is finished: close it or move it under live work"
        : "Triage: schedule it, park it in someday, or cancel it";
    case "reading":
      return "Read when relevant to the work at hand";
    default:
      return "Leave it parked until it is scheduled";
  }
}

/** A row's state, score and urgency with the facts behind them: what ordering needs. */
interface Judgement {
  state: ReadyState;
  score: number;
  urgency: ReadyRecord["urgency"];
  urgencyReason: string;
  /** null for a note (reading). */
  flags: Record<Reason, boolean> | null;
  inProgress: boolean;
  followupDue: boolean;
  parentFinished: boolean;
}

function judge(t: ReadyRow, input: ReadyInput, clk: Clockwork): Judgement {
  const { day } = clk;
  if (t.type === "note") {
    return {
      state: "reading",
      score: PRIORITY_POINTS[t.priority] ?? 0,
      urgency: "low",
      urgencyReason: "reading material, not work",
      flags: null,
      inProgress: false,
      followupDue: false,
      parentFinished: false,
    };
  }
  const due = t.due_date;
  const pastDue = due !== null && due < day;
  const dueToday = due === day;
  const dueSoon = due !== null && due > day && due <= clk.soon;
  const inProgress = t.status === "in_progress";
  const critical = t.priority === "critical";
  const high = t.priority === "high";
  const waiting = t.section === "waiting";
  const followupDue = waiting && t.reminder_at !== null && instant(t.reminder_at) <= input.now;
  const kidCount = input.openSubtasks.get(t.id)?.length ?? 0;
  const parentState = t.parent_id === null ? undefined : input.parentStatus.get(t.parent_id);
  const parentFinished = parentState !== undefined && FINISHED.has(parentState);
  const staleInbox =
    t.section === "inbox" && t.status === "not_started" && due === null && Date.parse(t.updated_at) < clk.staleBefore;

  const flags: Record<Reason, boolean> = {
    past_due: pastDue,
    due_today: dueToday,
    in_progress: inProgress,
    section_today: t.section === "today",
    critical_priority: critical,
    followup_due: followupDue,
    open_subtasks: kidCount > 0,
    waiting,
    parent_finished: parentFinished,
    stale_inbox: staleInbox,
    due_soon: dueSoon,
    high_priority: high,
    someday: t.section === "someday",
    reading: false,
    backlog: false,
  };

  let state: ReadyState;
  if (waiting) state = "waiting";
  else if (kidCount > 0) state = "blocked";
  else if (parentFinished) state = "cleanup_candidate";
  else if (inProgress || t.section === "today" || pastDue || dueToday || critical) state = "ready_now";
  else if (staleInbox) state = "cleanup_candidate";
  else if (t.section === "someday" && due === null) state = "deferred";
  else state = "suggested_ready";

  let score = (PRIORITY_POINTS[t.priority] ?? 0) + (SECTION_POINTS[t.section] ?? 0);
  if (pastDue) score += 30 + Math.min(10, Math.round((Date.parse(day) - Date.parse(due as string)) / DAY_MS));
  if (dueToday) score += 25;
  if (dueSoon) score += 12;
  if (inProgress) score += 15;
  if (followupDue) score += 10;

  let urgency: ReadyRecord["urgency"];
  let urgencyReason: string;
  if (pastDue && (critical || high))
    [urgency, urgencyReason] = ["critical", `past due since ${due} at ${t.priority} priority`];
  else if (pastDue) [urgency, urgencyReason] = ["high", `past due since ${due}`];
  else if (dueToday) [urgency, urgencyReason] = ["high", "due today"];
  else if (critical) [urgency, urgencyReason] = ["high", "critical priority"];
  else if (followupDue) [urgency, urgencyReason] = ["high", "waiting follow-up is due"];
  else if (dueSoon) [urgency, urgencyReason] = ["medium", `due ${due}`];
  else if (high) [urgency, urgencyReason] = ["medium", "high priority"];
  else if (inProgress) [urgency, urgencyReason] = ["medium", "in progress"];
  else if (t.section === "today") [urgency, urgencyReason] = ["medium", "planned for today"];
  else [urgency, urgencyReason] = ["low", "no time pressure"];

  return { state, score, urgency, urgencyReason, flags, inProgress, followupDue, parentFinished };
}

function buildRecord(t: ReadyRow, input: ReadyInput, j: Judgement, sortPosition: number): ReadyRecord {
  const base = {
    id: t.id,
    type: t.type,
    title: t.title,
    status: t.status,
    section: t.section,
    priority: t.priority,
    due_date: t.due_date,
    project: t.project,
    parent_id: t.parent_id,
    provenance: provenance(t),
  };
  const { flags } = j;
  const reasons: Reason[] = flags === null ? ["reading"] : REASONS.filter((r) => flags[r]);
  if (reasons.length === 0) reasons.push("backlog");
  const blockers: Blocker[] = [];
  if (flags !== null) {
    const kids = [...(input.openSubtasks.get(t.id) ?? [])].sort();
    if (flags.waiting) blockers.push({ kind: "waiting", detail: "parked in the waiting section", refs: [] });
    if (kids.length > 0) {
      blockers.push({
        kind: "open_subtasks",
        detail: `${kids.length} open subtask${kids.length === 1 ? "" : "s"}`,
        refs: kids,
      });
    }
  }
  return {
    ...base,
    ready_state: j.state,
    score: j.score,
    urgency: j.urgency,
    urgency_reason: j.urgencyReason,
    reasons,
    reason_primary: reasons[0] as Reason,
    blockers,
    next_action: nextAction(j.state, j.inProgress, j.followupDue, j.parentFinished),
    sort_position: sortPosition,
  };
}

/**
 * One live row in the ready order: judged for every row, its record (reasons, blockers,
 * provenance) built only when a result shows it.
 */
export interface Ranked {
  /** The scored row; read.ts swaps in the whole row for the records it shows. */
  row: ReadyRow;
  ready_state: ReadyState;
  score: number;
  urgency: ReadyRecord["urgency"];
  judgement: Judgement;
  sort_position: number;
}

function compare(a: Ranked, b: Ranked) {
  const ca = a.row.created_at;
  const cb = b.row.created_at;
  const da = a.row.due_date ?? "9999-99-99";
  const db = b.row.due_date ?? "9999-99-99";
  const ia = a.row.id;
  const ib = b.row.id;
  return (
    STATE_RANK[a.ready_state] - STATE_RANK[b.ready_state] ||
    b.score - a.score ||
    (da < db ? -1 : da > db ? 1 : 0) ||
    (ca < cb ? -1 : ca > cb ? 1 : 0) ||
    (ia < ib ? -1 : ia > ib ? 1 : 0)
  );
}

function clockwork(now: number): Clockwork {
  const day = today(now);
  return { day, soon: addDays(day, DUE_SOON_DAYS), staleBefore: now - STALE_DAYS * DAY_MS };
}

/** Every live row judged and ordered, sort_position stamped (0-based). */
export function rankLive(input: ReadyInput): Ranked[] {
  const clk = clockwork(input.now);
  const ranked = input.live
    .filter((t) => !FINISHED.has(t.status) && (t.type === "task" || input.includeReadings))
    .map((row) => judgeRow(row, input, clk))
    .sort(compare);
  ranked.forEach((r, i) => {
    r.sort_position = i;
  });
  return ranked;
}

/** One row judged for the ready order (sort_position is set once the list is sorted). */
function judgeRow(row: ReadyRow, input: ReadyInput, clk: ReturnType<typeof clockwork>): Ranked {
  const judgement = judge(row, input, clk);
  return {
    row,
    ready_state: judgement.state,
    score: judgement.score,
    urgency: judgement.urgency,
    judgement,
    sort_position: 0,
  };
}

/**
 * Mode ready from the top of the list alone (read.ts readyTop): `candidates` are the first
 * `limit` rows of the window in the ready order, found without scoring the window: ready_now
 * ranks first, so when the window holds at least `limit` ready_now rows they are the best
 * ready_now rows by score (read.ts topKeys computed each one's score as `scores` gives it).
 * `total` is the window's size. The same bytes as buildReadyContext("ready", …) over the whole
 * window; undefined when a candidate's judgement disagrees with what the selection assumed (not
 * ready_now, another score), and the caller then scores the whole window.
 */
export function readyTopPage(
  input: ReadyInput,
  candidates: ReadyRow[],
  scores: Map<string, number>,
  total: number,
): Record<string, unknown> | undefined {
  const clk = clockwork(input.now);
  const limit = input.limit;
  if (candidates.length !== limit || total < candidates.length) return undefined;
  const ranked = candidates.map((row) => judgeRow(row, input, clk));
  if (ranked.some((r) => r.ready_state !== "ready_now" || scores.get(r.row.id) !== r.score)) return undefined;
  ranked.sort(compare);
  const items = ranked.slice(0, limit).map((r, i) => buildRecord(r.row, input, r.judgement, i));
  return {
    contract_version: READY_CONTRACT_VERSION,
    mode: "ready",
    today_used: clk.day,
    count: items.length,
    total,
    truncated: total > limit,
    items,
  };
}

/** Due-date points bands relative to today (ready.ts judge): [first day, last day, points]; null = open end. */
export function dueBands(now: number): { day: string; soonEnd: string; oldEnd: string; days: Array<[string, number]> } {
  const clk = clockwork(now);
  const days: Array<[string, number]> = [];
  // Past due by k days (1..9): 30 + k; today: 25; the next DUE_SOON_DAYS days: 12.
  for (let k = 9; k >= 1; k--) days.push([addDays(clk.day, -k), 30 + k]);
  days.push([clk.day, 25]);
  for (let k = 1; k <= DUE_SOON_DAYS; k++) days.push([addDays(clk.day, k), 12]);
  return { day: clk.day, soonEnd: clk.soon, oldEnd: addDays(clk.day, -9), days };
}

const ACTIONABLE = new Set<ReadyState>(["ready_now", "suggested_ready"]);

/**
 * A shown record's row, whole (read.ts reads it in the same snapshot as the scored row, so the
 * two agree); the scored row with empty bodies if it was not read.
 */
function fullRow(row: ReadyRow, input: ReadyInput): TaskRow {
  const full = input.full?.get(row.id);
  return full ?? { ...row, description: null, notes: null };
}

/** The rows a mode's result shows (the rest only count): read.ts reads them whole. */
export function shownRanked(mode: ReadyMode, input: ReadyInput, ranked: Ranked[]): Ranked[] {
  const limit = input.limit;
  if (mode === "ready") return ranked.slice(0, limit);
  const lists = [ranked.filter((r) => ACTIONABLE.has(r.ready_state)).slice(0, limit)];
  if (mode === "prime") {
    lists.push(
      ranked.filter((r) => r.ready_state === "blocked" || r.ready_state === "waiting").slice(0, limit),
      ranked.filter((r) => r.ready_state === "cleanup_candidate").slice(0, limit),
      ranked.filter((r) => r.urgency === "critical" || r.urgency === "high").slice(0, limit),
    );
    if (input.includeReadings) lists.push(ranked.filter((r) => r.ready_state === "reading").slice(0, limit));
  }
  return [...new Set(lists.flat())];
}

export function buildReadyContext(
  mode: ReadyMode,
  input: ReadyInput,
  ranked: Ranked[] = rankLive(input),
): Record<string, unknown> {
  const day = today(input.now);
  const head = { contract_version: READY_CONTRACT_VERSION, mode, today_used: day };
  const limit = input.limit;
  // Records are built for the rows shown only, once each (a row in two lists is one object).
  const built = new Map<Ranked, ReadyRecord>();
  const record = (r: Ranked): ReadyRecord => {
    let rec = built.get(r);
    if (!rec) {
      rec = buildRecord(r.row, input, r.judgement, r.sort_position);
      built.set(r, rec);
    }
    return rec;
  };
  const first = (f: (r: Ranked) => boolean) => ranked.filter(f).slice(0, limit);

  if (mode === "ready") {
    const items = ranked.slice(0, limit).map(record);
    return { ...head, count: items.length, total: ranked.length, truncated: ranked.length > limit, items };
  }

  if (mode === "suggested") {
    const candidates = ranked.filter((r) => ACTIONABLE.has(r.ready_state));
    const items = candidates.slice(0, limit).map((r) => {
      const rec = record(r);
      return {
        ...taskView(fullRow(r.row, input)),
        ready_state: rec.ready_state,
        ready_score: rec.score,
        urgency: rec.urgency,
        reason_primary: rec.reason_primary,
        next_action: rec.next_action,
        sort_position: rec.sort_position,
      };
    });
    return {
      ...head,
      count: items.length,
      total: candidates.length,
      truncated: candidates.length > limit,
      items,
    };
  }

  const top = first((r) => ACTIONABLE.has(r.ready_state)).map(record);
  const pack: Record<string, unknown> = {
    ...head,
    mandate: MANDATE,
    guidance: GUIDANCE,
    items_empty: ranked.length === 0,
    top_ready_items: top,
    blocked_or_waiting: first((r) => r.ready_state === "blocked" || r.ready_state === "waiting").map(record),
    cleanup_candidates: first((r) => r.ready_state === "cleanup_candidate").map(record),
    explicit_exclusions: input.finished.slice(0, limit).map((t) => ({
      id: t.id,
      title: t.title,
      status: t.status,
      project: t.project,
      updated_at: t.updated_at,
      reason: `finished (${t.status}): review-only, do not redo`,
      provenance: provenance(t),
    })),
    risk_or_escalation_items: first((r) => r.urgency === "critical" || r.urgency === "high").map(record),
    evidence_refs: top.map((r) => r.provenance),
  };
  if (input.includeReadings) pack.readings = first((r) => r.ready_state === "reading").map(record);
  return pack;
}

export interface TopKey {
  id: string;
  heat: number;
  due_date: string | null;
  created_at: string;
}

/**
 * The first `limit` ready_now keys of the union of the bands, in the ready order (score, due
 * date with none last, created_at, id; ready.ts compare): a score is the row's points plus its
 * band's. undefined when there are fewer than `limit`.
 */
export function topKeys(
  keys: TopKey[],
  bands: ReturnType<typeof dueBands>,
  limit: number,
): Array<TopKey & { score: number }> | undefined {
  if (keys.length < limit) return undefined;
  const points = new Map(bands.days);
  const score = (k: TopKey) =>
    k.heat + (k.due_date === null ? 0 : k.due_date < bands.oldEnd ? 40 : (points.get(k.due_date) ?? 0));
  const scored = keys.map((k) => ({ k, s: score(k), due: k.due_date ?? "9999-99-99" }));
  scored.sort(
    (a, b) =>
      b.s - a.s ||
      (a.due < b.due ? -1 : a.due > b.due ? 1 : 0) ||
      (a.k.created_at < b.k.created_at ? -1 : a.k.created_at > b.k.created_at ? 1 : 0) ||
      (a.k.id < b.k.id ? -1 : a.k.id > b.k.id ? 1 : 0),
  );
  return scored.slice(0, limit).map((x) => ({ ...x.k, score: x.s }));
}

import type { TaskRow } from "../tasks/schema.ts";
import { filesList, type PackItem, type TaskEvent } from "./model.ts";
import type { SessionRow } from "./schema.ts";

/**
 * Sessions' pure decisions (no ctx, no store; rules.test.ts beside): the session-id vocabulary,
 * session_recall's count, and the handoff pack resume_context persists: a plain-text body
 * assembled from the facts SHAMPOO holds today (the session's summary and active files, the open
 * tasks of its project, their recent history: what each event changed), greedily under a token
 * budget, then what context governance holds for a successor: open questions, chunks awaiting
 * human input, changed facts.
 */

/**
 * Parses a session id the way the predecessor's platform UUID parser (Python's uuid.UUID) reads
 * one: "urn:" and "uuid:" prefixes dropped, surrounding braces stripped, hyphens ignored, then
 * exactly 32 hex digits in any case. Returns the canonical lowercase 8-4-4-4-12 form, or null.
 * So "{6F9619FF-8B86-D011-B42D-00C04FC964FF}", "urn:uuid:6f9619ff-…" and the 32 bare digits all
 * name the same session.
 */
export function parseSessionId(raw: string): string | null {
  let hex = raw.replaceAll("urn:", "").replaceAll("uuid:", "");
  hex = hex.replace(/^[{}]+|[{}]+$/g, "").replaceAll("-", "");
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) return null;
  const h = hex.toLowerCase();
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * session_recall's last_n: integers, integral floats (JSON 5.0 arrives as 5) and booleans (true
 * = 1, false = 0, as the predecessor's int(bool)). Negative values read as 0 (nothing), values
 * above 100 are clamped to 100 so one call stays bounded.
 */
export const RECALL_DEFAULT = 5;
export const RECALL_MAX = 100;
export function recallCount(v: number | boolean | undefined): number {
  if (v === undefined) return RECALL_DEFAULT;
  const n = typeof v === "boolean" ? (v ? 1 : 0) : v;
  return Math.max(0, Math.min(RECALL_MAX, n));
}

/** Pack types share one default budget (catalog: token_budget unset/0 → 4000). */
export const HANDOFF_TOKEN_BUDGET = 4000;
/** How many open tasks and recent events a handoff considers, and how far back history goes. */
export const PACK_TASKS = 20;
export const PACK_EVENTS = 20;
export const RECENT_DAYS = 7;
/** Freshness half-life: an item this many days old counts 0.5. */
export const FRESHNESS_HALF_LIFE_DAYS = 7;
const DAY_MS = 86_400_000;
/** Tokens kept for the fixed lines (headings, blank lines, "(none)" markers). */
const STRUCTURE_TOKENS = 64;
/** How much of a task's description a handoff line carries. */
const DESCRIPTION_CHARS = 200;

/** A token estimate good enough for budgeting: 4 characters per token, rounded up. */
export function tokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export interface BuiltPack {
  body: string;
  tokenUsage: number;
  freshness: number;
  items: PackItem[];
  counts: { tasks: number; events: number; files: number };
}

/** What context governance contributes to a handoff (resume_context reads it). */
export interface GovernanceItems {
  questions: Array<{ text: string; type: string; priority: string; chunk_title: string }>;
  awaiting: Array<{ chunk_id: string; title: string; questions_open: number }>;
  facts: Array<{
    fact_id: string;
    subject: string;
    predicate: string;
    object: string;
    status: string;
    updated_at: string;
  }>;
}

export interface PackInput extends GovernanceItems {
  now: number;
  budget: number;
  session: SessionRow | null;
  tasks: TaskRow[];
  /** Open subtasks per listed task (blocked: it waits on them). */
  openChildren: Map<string, number>;
  events: TaskEvent[];
}

function taskLine(t: TaskRow, openChildren: number): string {
  const due = t.due_date ? `, due ${t.due_date}` : "";
  const project = t.project === null ? "untagged" : t.project;
  const state: string[] = [];
  if (t.assignee) state.push(`assigned to ${t.assignee}`);
  if (openChildren > 0) state.push(`blocked by ${openChildren} open subtask${openChildren === 1 ? "" : "s"}`);
  if (t.section === "waiting") state.push(`waiting${t.reminder_at ? ` until ${t.reminder_at}` : ""}`);
  const tail = state.length > 0 ? ` — ${state.join("; ")}` : "";
  const desc = t.description ? `: ${t.description.replace(/\s+/g, " ").slice(0, DESCRIPTION_CHARS)}` : "";
  return `- [${t.status} · ${t.priority}] ${t.title} (task ${t.id}, ${project}${due})${tail}${desc}`;
}

/** "field: old → new" for every field an event changed (created and archived fields alike). */
export function changes(oldJson: string | null, newJson: string | null): string {
  const o = (oldJson ? JSON.parse(oldJson) : {}) as Record<string, unknown>;
  const n = (newJson ? JSON.parse(newJson) : {}) as Record<string, unknown>;
  const skip = new Set(["updated_at", "last_event_id", "title_norm", "created_at", "created_by", "id", "profile"]);
  const fmt = (v: unknown) => (v === undefined || v === null ? "∅" : JSON.stringify(v).slice(0, 60));
  // A creation lists only the facets it set (title and text are on the task's own line).
  const created = oldJson === null;
  return [...new Set([...Object.keys(o), ...Object.keys(n)])]
    .filter((k) => !skip.has(k) && JSON.stringify(o[k]) !== JSON.stringify(n[k]))
    .filter((k) => !created || (n[k] !== null && !["title", "description", "notes", "project", "type"].includes(k)))
    .sort()
    .map((k) => (oldJson === null ? `${k} ${fmt(n[k])}` : `${k}: ${fmt(o[k])} → ${fmt(n[k])}`))
    .join(", ");
}

function eventLine(e: TaskEvent): string {
  const what = changes(e.old_json, e.new_json);
  return `- ${e.at} ${e.principal} ${e.action} "${e.title}" (task ${e.task_id})${what ? ` — ${what}` : ""}`;
}

/**
 * Builds the body section by section. Headings and the session line always go in; every other
 * line goes in only while it fits the budget (a long summary is cut to fit, marked with "…").
 * freshness_score is the mean of 0.5^(age_days / 7) over the dated items included (the session's
 * last save, each task's last update, each event), 0 when nothing dated made it in.
 */
export function buildHandoff(input: PackInput): BuiltPack {
  const lines: string[] = [];
  const items: PackItem[] = [];
  const counts = { tasks: 0, events: 0, files: 0 };
  let used = 0;
  // The closing note and the section headings always go in: their room is reserved up front.
  const reserve = STRUCTURE_TOKENS;
  const fits = (line: string) => used + tokens(`${line}\n`) + reserve <= input.budget;
  const push = (line: string) => {
    lines.push(line);
    used += tokens(`${line}\n`);
  };
  const s = input.session;

  push("# Handoff");
  if (s) {
    const project = s.project === null ? "untagged" : `project ${s.project}`;
    push(`Session ${s.session_id} (${project}, ${s.state}): started ${s.started_at}, last saved ${s.ended_at}.`);
    items.push({ kind: "session", ref: s.session_id, at: s.ended_at });
    push("");
    push("## Summary");
    const summary = s.summary ?? "(no summary saved)";
    if (fits(summary)) push(summary);
    else {
      const room = Math.max(0, (input.budget - reserve - used - 1) * 4 - 4);
      push(`${summary.slice(0, room)}…`);
    }
    const files = filesList(s.active_files) ?? [];
    push("");
    push("## Active files");
    if (files.length === 0) push("(none)");
    for (const f of files) {
      const line = `- ${f}`;
      if (!fits(line)) break;
      push(line);
      items.push({ kind: "file", ref: f });
      counts.files++;
    }
  } else {
    push("General handoff (no session): open work across every project you can see.");
  }

  push("");
  const scopeName = s ? (s.project === null ? "untagged" : `project ${s.project}`) : "all visible projects";
  push(`## Open tasks (${scopeName})`);
  if (input.tasks.length === 0) push("(none)");
  for (const t of input.tasks) {
    const line = taskLine(t, input.openChildren.get(t.id) ?? 0);
    if (!fits(line)) break;
    push(line);
    items.push({ kind: "task", ref: t.id, at: t.updated_at });
    counts.tasks++;
  }

  push("");
  push(`## Recent activity (last ${RECENT_DAYS} days)`);
  if (input.events.length === 0) push("(none)");
  for (const e of input.events) {
    const line = eventLine(e);
    if (!fits(line)) break;
    push(line);
    items.push({ kind: "event", ref: e.task_id, at: e.at });
    counts.events++;
  }

  const section = (heading: string, lines: string[]) => {
    push("");
    push(heading);
    if (lines.length === 0) push("(none)");
    for (const line of lines) {
      if (!fits(line)) break;
      push(line);
    }
  };
  section(
    "## Open questions",
    input.questions.map((q) => `- [${q.type} · ${q.priority}] ${q.text} (chunk "${q.chunk_title}")`),
  );
  section(
    "## Awaiting human input",
    input.awaiting.map(
      (c) =>
        `- ${c.title} (chunk ${c.chunk_id}, ${c.questions_open} open question${c.questions_open === 1 ? "" : "s"})`,
    ),
  );
  section(
    `## Changed facts (last ${RECENT_DAYS} days)`,
    input.facts.map(
      (f) => `- ${f.subject} ${f.predicate} ${f.object} [${f.status}, ${f.updated_at}] (fact ${f.fact_id})`,
    ),
  );

  const body = lines.join("\n");
  const dated = items.filter((i) => i.at !== undefined);
  const freshness =
    dated.length === 0
      ? 0
      : dated.reduce((sum, i) => {
          const ageDays = Math.max(0, input.now - Date.parse(i.at as string)) / DAY_MS;
          return sum + 0.5 ** (ageDays / FRESHNESS_HALF_LIFE_DAYS);
        }, 0) / dated.length;
  return { body, tokenUsage: tokens(body), freshness: Math.round(freshness * 1e6) / 1e6, items, counts };
}

/** "1 open task", "2 open tasks". */
function count(k: number, one: string, many: string): string {
  return `${k} ${k === 1 ? one : many}`;
}

/** resume_context's one-paragraph summary of the pack it built and the continuity it found. */
export function resumeSummary(r: {
  session: SessionRow | null;
  packId: string;
  built: BuiltPack;
  /** Null: the open-question scan was skipped on request. */
  questions: number | null;
  awaiting: number;
  facts: number;
}): string {
  const { session: s, built } = r;
  const what = `${count(built.counts.tasks, "open task", "open tasks")}, ${count(built.counts.events, "recent event", "recent events")}`;
  const head = s
    ? `Resumed session ${s.session_id} (${s.project === null ? "untagged" : `project ${s.project}`}): handoff pack ${r.packId} with the session summary, ${count(built.counts.files, "active file", "active files")}, ${what}`
    : `General handoff (no session): pack ${r.packId} with ${what} across your visible projects`;
  const questions =
    r.questions === null
      ? "open-question scan skipped on request"
      : count(r.questions, "open question", "open questions");
  const pending = `Context: ${questions}, ${count(r.awaiting, "chunk", "chunks")} awaiting human input, ${count(r.facts, "fact", "facts")} changed in the last ${RECENT_DAYS} days.`;
  return `${head} (${built.tokenUsage} of ${HANDOFF_TOKEN_BUDGET} tokens). ${pending}`;
}

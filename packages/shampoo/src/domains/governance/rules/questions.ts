import type { Signal } from "./chunks.ts";

/**
 * Clarification questions: up to five typed questions per chunk (catalog question types scope,
 * time, semantics, action, downstream_use), generated from the chunk's signals by fixed
 * templates. A type already open for the chunk is not asked again.
 */
export const QUESTION_TYPES = ["scope", "time", "semantics", "action", "downstream_use"] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];
export const MAX_QUESTIONS = 5;

export interface Draft {
  type: QuestionType;
  text: string;
  /** high when a signal of the chunk asked for it, else medium. */
  priority: "high" | "medium";
}

const has = (signals: Signal[], kind: Signal["kind"]) => signals.some((s) => s.kind === kind);

export function draftQuestions(
  title: string,
  project: string | null,
  signals: Signal[],
  alreadyOpen: ReadonlySet<string>,
  max: number,
): Draft[] {
  const hedge = signals.find((s) => s.kind === "hedge")?.markers[0];
  const t = title.length > 80 ? `${title.slice(0, 79)}…` : title;
  const all: Draft[] = [
    {
      type: "scope",
      text: `Which ${project === null ? "project" : `part of ${project}`} and which components does "${t}" apply to?`,
      priority: project === null ? "high" : "medium",
    },
    {
      type: "time",
      text: `From when does "${t}" hold, and until when (or until what event)?`,
      priority: has(signals, "time") ? "medium" : "high",
    },
    {
      type: "semantics",
      text: hedge
        ? `"${t}" says "${hedge}": what exactly is settled and what is not?`
        : `What exactly does "${t}" mean, in terms another agent could check?`,
      priority: hedge || has(signals, "question") ? "high" : "medium",
    },
    {
      type: "action",
      text: `What should be done about "${t}", and who owns it?`,
      priority: has(signals, "todo") ? "high" : "medium",
    },
    {
      type: "downstream_use",
      text: `Who or what will rely on "${t}", and may it become shared memory?`,
      priority: "medium",
    },
  ];
  return all.filter((d) => !alreadyOpen.has(d.type)).slice(0, Math.max(0, Math.min(MAX_QUESTIONS, max)));
}

/** The AWAITING_HUMAN annotation block written into the chunk's annotations. */
export function awaitingBlock(questions: Array<{ id: string; type: string; text: string; priority: string }>): string {
  const lines = questions.map((q, i) => `${i + 1}. [${q.type} · ${q.priority}] ${q.text} (question ${q.id})`);
  return ["[AWAITING_HUMAN]", ...lines, "[/AWAITING_HUMAN]"].join("\n");
}

/**
 * One vocabulary of verdicts (issue 16 §3): the names a card records, with what each means, used
 * by both manifests, the MCP rules summary, the docs and the pages. A verdict is an outcome, never
 * a rank: no verdict is "higher" than another.
 */
export const VERDICTS = [
  { verdict: "solved", when: "every stage was cleared" },
  {
    verdict: "failed",
    when: "a stage's mechanism jammed after 3 wrong submissions at that stage: the room ended unsolved",
  },
  { verdict: "exhausted", when: "all 64 actions were used before the room was solved" },
  { verdict: "abandoned", when: "sealed by the participant before the room ended" },
  {
    verdict: "expired",
    when: "not sealed within the attempt's TTL (its expires_at); sealed later, within the retention",
  },
  { verdict: "quarantined", when: "set aside by an operator for review before it was sealed" },
] as const;

export type VerdictName = (typeof VERDICTS)[number]["verdict"];

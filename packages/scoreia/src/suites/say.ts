/**
 * The words both suites use for the same situation (issue 16 §4: the two suites once worded the
 * same refusal differently). A refusal costs nothing; each message says so where an agent could
 * doubt it.
 */

export const say = {
  /** An op outside allowed_ops. */
  opNotAllowed(op: string, ops: readonly string[]): string {
    return ops.length > 0
      ? `${op} is not allowed now. Allowed ops: ${ops.join(", ")}. Nothing was counted.`
      : `${op} is not allowed now: the room is over. Call seal_attempt. Nothing was counted.`;
  },
  /** `hint` when no hint is left (it is then absent from allowed_ops). */
  noHintLeft(where: string, ops: readonly string[]): string {
    return `No hint is left ${where}, so hint is not allowed now. Allowed ops: ${ops.join(", ")}. Nothing was counted.`;
  },
  noObject(object: string, objects: readonly string[]): string {
    return `No object "${object}" here. Objects: ${objects.join(", ")}. Nothing was counted.`;
  },
  inspectNeedsObject(objects: readonly string[]): string {
    return `inspect needs an object. Objects: ${objects.join(", ")}. Nothing was counted.`;
  },
  /** How many hints are left, as `look` shows it in both suites. */
  hintsLeft(left: number, rule: string): string {
    return `Hints left: ${left} (${rule}; each costs an action and is recorded on the card).`;
  },
};

/** "1 minute", "2 minutes". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

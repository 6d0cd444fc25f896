/**
 * The servers' log: one JSON object per line on stderr (pino), never on stdout, which the stdio
 * transport owns. Levels: fatal, error, warn, info, debug, trace; `LOG_LEVEL` picks the lowest
 * written (default info; `silent` writes nothing). Each line carries `name` (the program: the
 * bin's name, `shampoo` or `scoreia`) and `component` (the part of the server that speaks).
 *
 * Written synchronously (process.stderr on a pipe or file): a line logged just before the process
 * exits (a fatal start error, a signal) is not lost.
 */
import { basename } from "node:path";
import { pino } from "pino";

const LEVELS = new Set(["fatal", "error", "warn", "info", "debug", "trace", "silent"]);
const wanted = process.env.LOG_LEVEL?.toLowerCase();

export const log = pino(
  {
    level: wanted && LEVELS.has(wanted) ? wanted : "info",
    base: { name: basename(process.argv[1] ?? "node").replace(/\.[cm]?[jt]s$/, "") },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  },
  // process.stderr, not a file descriptor of its own: writes to a pipe or a file are synchronous
  // there on Linux, and tests that capture process.stderr.write see the lines.
  process.stderr,
);

if (wanted && !LEVELS.has(wanted)) {
  log.warn({ LOG_LEVEL: process.env.LOG_LEVEL }, `LOG_LEVEL must be one of ${[...LEVELS].join(", ")}; using info`);
}

/** A logger for one part of the server: every line carries `component`. */
export function logger(component: string): typeof log {
  return log.child({ component });
}

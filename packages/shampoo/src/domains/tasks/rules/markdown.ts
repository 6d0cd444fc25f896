/**
 * Markdown rendering shared by the read tools. Cells and list lines hold user text, so they are
 * made inert for their context: newlines collapse to one space (a row or bullet stays one line)
 * and `|` is escaped (a cell never splits). Empty values render as an em dash.
 */

export const EMPTY = "—";

/** One line of text: control characters and runs of whitespace become one space. */
export function oneLine(v: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
  return v.replace(/[\u0000-\u001f\u007f\s]+/g, " ").trim();
}

/** Shortens to at most `max` characters (code points), marking the cut with an ellipsis. */
export function truncate(v: string, max: number): string {
  const chars = [...v];
  return chars.length <= max ? v : `${chars.slice(0, max - 1).join("")}…`;
}

/** A table cell: one line, pipes escaped, optionally shortened; null/blank → em dash. */
export function cell(v: string | null | undefined, max?: number): string {
  if (v === null || v === undefined) return EMPTY;
  let s = oneLine(v);
  if (s === "") return EMPTY;
  if (max !== undefined) s = truncate(s, max);
  return s.replaceAll("\\", "\\\\").replaceAll("|", "\\|");
}

/** A GitHub-flavoured table. */
export function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

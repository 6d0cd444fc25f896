/**
 * Server-rendered HTML with escaping by construction: every value interpolated into `html`…``
 * is escaped unless it is already Html (built by `html` itself). Cards carry participant-supplied
 * strings (declared model, host, seed, route key…), so there is no other way to put text in a page.
 */

export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes text for element content and quoted attribute values alike. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

export type Interpolation = Html | string | number | boolean | null | undefined | Interpolation[];

function render(v: Interpolation): string {
  if (v === null || v === undefined || v === false) return "";
  if (v instanceof Html) return v.value;
  if (Array.isArray(v)) return v.map(render).join("");
  return escapeHtml(String(v));
}

export function html(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
  let out = strings[0] ?? "";
  values.forEach((v, i) => {
    out += render(v) + (strings[i + 1] ?? "");
  });
  return new Html(out);
}

/** A value from a card for display: strings as they are, anything else as compact JSON. */
export function show(v: unknown, empty = "—"): string {
  if (v === null || v === undefined || v === "") return empty;
  if (typeof v === "string") return v;
  return JSON.stringify(v);
}

/** Query string for links built from user input: encoded, never concatenated raw. */
export function query(params: Record<string, string | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : "";
}

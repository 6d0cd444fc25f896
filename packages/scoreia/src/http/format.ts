/**
 * Readable forms of a card's values for the pages. Always UTC and always English, so a page reads
 * the same on every server and in every test; the exact ISO value stays in `<time datetime>`.
 */
import { type Html, html } from "./html.ts";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "1 Dec 2026, 20:15 UTC" inside a <time> carrying the ISO value; the raw value when not a date. */
export function when(iso: unknown): Html | string {
  if (typeof iso !== "string") return "—";
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const d = new Date(t);
  const hh = String(d.getUTCHours()).padStart(2, "0");
  const mm = String(d.getUTCMinutes()).padStart(2, "0");
  const text = `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}, ${hh}:${mm} UTC`;
  return html`<time datetime="${iso}" title="${iso}">${text}</time>`;
}

/** 1234 → "1.2 s", 192000 → "3 min 12 s", 7322000 → "2 h 2 min". */
export function duration(ms: unknown): string {
  if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) return "—";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
}

/** "+1:05" from the attempt's first event. */
export function offset(at: unknown, start: number): string {
  const t = typeof at === "string" ? Date.parse(at) : Number.NaN;
  if (Number.isNaN(t) || Number.isNaN(start)) return "";
  const s = Math.max(0, Math.round((t - start) / 1000));
  return `+${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

/** "sha256:3fa2…c9d1" for a long hash, as the pages show a commitment or a redacted value. */
export function shortHash(h: string): string {
  const m = /^([a-z0-9-]+:)?([0-9a-f]{16,})$/i.exec(h);
  if (!m) return h;
  const hex = m[2] as string;
  return `${m[1] ?? ""}${hex.slice(0, 8)}…${hex.slice(-4)}`;
}

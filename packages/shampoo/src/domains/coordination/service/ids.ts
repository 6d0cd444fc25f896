/** Ids coordination accepts: the canonical lowercase UUID form its rows are written with. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The id as stored, or null when it cannot name a row (it then reads as unknown, no oracle). */
export function idOf(v: string | undefined | null): string | null {
  if (typeof v !== "string") return null;
  const s = v.trim().toLowerCase();
  return UUID.test(s) ? s : null;
}

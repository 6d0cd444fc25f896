import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { Database } from "kernel";
import type { ChamberDB } from "../attempts/schema.ts";
import { canonicalJson } from "../evidence/jcs.ts";
import { DuplicateMemberError, parseStrictJson } from "../evidence/strict-json.ts";
import { verifyHistorical } from "../evidence/verify.ts";
import { defaultDb, EXIT, ensureDataDir, IoError, progress, UsageError, type Values } from "./common.ts";

interface Parsed {
  cards: unknown[];
  /** Where each card was in the file, for error messages ("line 3", "item 2"). */
  where: string[];
}

function readCards(file: string): Parsed {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new IoError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const trimmed = text.trim();
  if (trimmed === "") return { cards: [], where: [] };
  // Strict JSON (docs/evidence-0.2.md §1.1): a duplicated member name refuses the file, since
  // another reader could take the other value of the card it imports.
  try {
    const doc = parseStrictJson(trimmed);
    if (Array.isArray(doc)) return { cards: doc, where: doc.map((_, i) => `item ${i + 1}`) };
    return { cards: [doc], where: ["the file"] };
  } catch (e) {
    if (e instanceof DuplicateMemberError) throw new RefusedFile([`the file: ${e.message}`]);
    // not one JSON document: JSON Lines
  }
  const cards: unknown[] = [];
  const where: string[] = [];
  const lines = text.split("\n");
  for (const [i, raw] of lines.entries()) {
    if (raw.trim() === "") continue;
    try {
      cards.push(parseStrictJson(raw));
    } catch (e) {
      if (e instanceof DuplicateMemberError) throw new RefusedFile([`line ${i + 1}: ${e.message}`]);
      throw new RefusedFile([`line ${i + 1}: not JSON (${(e as Error).message})`]);
    }
    where.push(`line ${i + 1}`);
  }
  return { cards, where };
}

class RefusedFile extends Error {
  constructor(readonly problems: string[]) {
    super(problems[0]);
  }
}

/** Imports 0.1 / oly-16 cards, unsigned: every card is checked before anything is written. */
export async function importHistorical(values: Values, args: string[]): Promise<number> {
  const file = args[0];
  if (!file || args.length > 1) throw new UsageError("needs one FILE (a JSON array or JSON Lines of cards)");
  const bar = progress("scoreia import-historical");
  let parsed: Parsed;
  try {
    parsed = readCards(file);
  } catch (e) {
    if (!(e instanceof RefusedFile)) throw e;
    return refuse(file, e.problems);
  }
  const { cards, where } = parsed;
  bar.update(`read ${cards.length} cards from ${file}; checking`);

  // Every card is checked before anything is written: one bad card refuses the whole file.
  const problems: string[] = [];
  const seen = new Map<string, string>();
  for (const [i, c] of cards.entries()) {
    const at = where[i] as string;
    const check = verifyHistorical(c);
    if (check.verdict !== "unsigned_historical") {
      problems.push(`${at}: ${check.card_id ?? "not a card"}: ${check.message.replace(/^invalid: /, "")}`);
      continue;
    }
    const card = c as Record<string, unknown>;
    if (card.card_version === "0.2") {
      problems.push(`${at}: ${card.card_id}: says card_version 0.2, but native cards are never imported`);
      continue;
    }
    const text = canonicalJson(card);
    const before = seen.get(card.card_id as string);
    if (before !== undefined && before !== text) {
      problems.push(`${at}: ${card.card_id} appears earlier in the file with other content`);
    }
    seen.set(card.card_id as string, text);
  }
  if (problems.length > 0) {
    bar.done();
    return refuse(file, problems);
  }

  const target = values.db ?? defaultDb(ensureDataDir(values));
  let database: Database<ChamberDB>;
  const { openDatabase } = await import("kernel");
  const { migrateChamber } = await import("../app.ts");
  const { CardRegistry } = await import("../evidence/registry.ts");
  try {
    database = await openDatabase<ChamberDB>(target);
    await migrateChamber(database);
  } catch (e) {
    throw new IoError(`cannot open ${target}: ${(e as Error).message}`);
  }
  try {
    const registry = new CardRegistry(database);
    // A card already present with other content is a conflict, not a skip.
    let checked = 0;
    for (const [id, text] of seen) {
      const existing = await registry.get(id);
      if (existing && canonicalJson(existing.card) !== text) {
        problems.push(`${id} is already in ${database.location} with other content`);
      }
      if (++checked % 500 === 0) bar.update(`checked ${checked}/${seen.size} against ${database.location}`);
    }
    if (problems.length > 0) {
      bar.done();
      return refuse(file, problems);
    }
    const importedAt = new Date().toISOString();
    const BATCH = 500;
    let imported = 0;
    let skipped = 0;
    for (let i = 0; i < cards.length; i += BATCH) {
      const r = await registry.importHistorical(cards.slice(i, i + BATCH), importedAt);
      imported += r.imported;
      skipped += r.skipped;
      bar.update(
        `${Math.min(i + BATCH, cards.length)}/${cards.length} cards (${imported} imported, ${skipped} skipped)`,
      );
    }
    bar.done(`${cards.length}/${cards.length} cards done`);
    process.stdout.write(
      `imported ${imported}, skipped ${skipped} (already present), ${cards.length} in ${file} → ${database.location}\n`,
    );
    return 0;
  } catch (e) {
    bar.done();
    throw new IoError(`import into ${database.location} failed: ${(e as Error).message}`);
  } finally {
    await database.close();
  }
}

function refuse(file: string, problems: string[]): number {
  const shown = problems.slice(0, 20).map((p) => `  ${p}\n`);
  const more = problems.length > 20 ? `  … and ${problems.length - 20} more\n` : "";
  process.stderr.write(
    `scoreia import-historical: refused ${resolve(file)}, nothing imported (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n${shown.join("")}${more}`,
  );
  return EXIT.invalid;
}

/**
 * `scoreia import-historical` as a real process: JSON Lines and JSON arrays of 0.1 / oly-16
 * cards, counts, idempotence, and a file with one bad card refused whole (nothing imported).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import BetterSqlite3 from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { canonicalJson, sha256Tagged } from "../../src/evidence/jcs.ts";
import { tempDir } from "../e2e/support.ts";
import { oneLine, run } from "./support.ts";

const tmp = tempDir("cli-import");
const dbFile = join(tmp.dir, "c.db");
const file = (name: string) => join(tmp.dir, name);

afterAll(() => tmp.remove());

function card(n: number, opts: { labyrinth?: boolean; hashed?: boolean } = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    card_version: "0.1",
    card_id: `${opts.labyrinth ? "oly" : "sia"}-${n.toString(16).padStart(16, "0")}`,
    issued_at: `2025-0${1 + (n % 9)}-01T10:00:00.000Z`,
    verdict: n % 2 ? "solved" : "failed",
    declared_model: `model-${n}`,
  };
  return opts.hashed ? { ...body, content_hash: sha256Tagged(canonicalJson(body)) } : body;
}

function idsIn(db: string): string[] {
  const raw = new BetterSqlite3(db, { readonly: true, fileMustExist: true });
  try {
    return (
      raw.prepare("SELECT card_id FROM chamber_cards WHERE evidence_status = 'unsigned_historical'").all() as Array<{
        card_id: string;
      }>
    )
      .map((r) => r.card_id)
      .sort();
  } finally {
    raw.close();
  }
}

describe("scoreia import-historical", () => {
  const first = [card(1, { hashed: true }), card(2), card(3, { labyrinth: true }), card(4, { labyrinth: true })];

  it("imports a JSON Lines file and prints the counts; a second run skips every card", async () => {
    writeFileSync(file("first.jsonl"), `${first.map((c) => JSON.stringify(c)).join("\n")}\n\n`);
    const r = await run(["import-historical", file("first.jsonl"), "--db", dbFile]);
    expect(r.code, r.stderr).toBe(0);
    expect(oneLine(r)).toMatch(/^imported 4, skipped 0 \(already present\), 4 in .*first\.jsonl → .*c\.db$/);
    expect(r.stderr).toMatch(/scoreia import-historical: .*4\/4 cards/);
    expect(idsIn(dbFile)).toEqual(first.map((c) => c.card_id).sort());

    const again = await run(["import-historical", file("first.jsonl"), "--db", dbFile]);
    expect(again.code, again.stderr).toBe(0);
    expect(oneLine(again)).toMatch(/^imported 0, skipped 4 /);
  });

  it("imports a JSON array (new and already present cards); the cards verify as unsigned historical", async () => {
    writeFileSync(file("array.json"), JSON.stringify([first[0], card(5, { hashed: true })], null, 2));
    const r = await run(["import-historical", file("array.json"), "--db", dbFile]);
    expect(r.code, r.stderr).toBe(0);
    expect(oneLine(r)).toMatch(/^imported 1, skipped 1 /);
    const v = await run(["verify", card(5).card_id as string, "--db", dbFile]);
    expect(v.code).toBe(4);
    expect(oneLine(v)).toMatch(/^unsigned historical: /);
  });

  it("one invalid card refuses the whole file: non-zero, a clear message, nothing imported", async () => {
    const before = idsIn(dbFile);
    const tampered = { ...card(7, { hashed: true }), verdict: "solved-ish" };
    const lines = [card(6), tampered, { card_id: "sia_not_an_id" }, card(8, { labyrinth: true })];
    writeFileSync(file("bad.jsonl"), lines.map((c) => JSON.stringify(c)).join("\n"));
    const r = await run(["import-historical", file("bad.jsonl"), "--db", dbFile]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/refused .*bad\.jsonl, nothing imported \(2 problems\)/);
    expect(r.stderr).toMatch(/line 2: sia-0000000000000007: content_hash does not match/);
    expect(r.stderr).toMatch(/line 3: sia_not_an_id: historical ids are/);
    expect(idsIn(dbFile)).toEqual(before);
  });

  it("refuses native cards, same id with other content, broken JSON Lines and a missing file", async () => {
    const before = idsIn(dbFile);
    writeFileSync(file("native.json"), JSON.stringify([card(9), { ...card(10), card_version: "0.2" }]));
    writeFileSync(file("conflict.json"), JSON.stringify([card(11), { ...first[1], verdict: "solved" }]));
    writeFileSync(file("broken.jsonl"), `${JSON.stringify(card(12))}\n{"card_id": \n`);
    const [native, conflict, broken, missing] = await Promise.all([
      run(["import-historical", file("native.json"), "--db", dbFile]),
      run(["import-historical", file("conflict.json"), "--db", dbFile]),
      run(["import-historical", file("broken.jsonl"), "--db", dbFile]),
      run(["import-historical", file("missing.json"), "--db", dbFile]),
    ]);
    expect([native.code, conflict.code, broken.code, missing.code]).toEqual([1, 1, 1, 6]);
    expect(native.stderr).toMatch(/item 2: sia-000000000000000a: .*0\.1/);
    expect(conflict.stderr).toMatch(/sia-0000000000000002 is already in .* with other content/);
    expect(broken.stderr).toMatch(/line 2: not JSON/);
    expect(idsIn(dbFile)).toEqual(before);
  });

  it("refuses a card with a duplicated member name, as a JSON array and as JSON Lines (strict JSON, §1.1)", async () => {
    const before = idsIn(dbFile);
    const c = JSON.stringify(card(13));
    // JSON.parse would keep the second verdict; another reader may keep the first.
    const dup = `${c.slice(0, -1)},"verdict":"solved"}`;
    writeFileSync(file("dup.json"), `[${JSON.stringify(card(14))},${dup}]`);
    writeFileSync(file("dup.jsonl"), `${JSON.stringify(card(15))}\n${dup}\n`);
    const [array, lines] = await Promise.all([
      run(["import-historical", file("dup.json"), "--db", dbFile]),
      run(["import-historical", file("dup.jsonl"), "--db", dbFile]),
    ]);
    expect([array.code, lines.code]).toEqual([1, 1]);
    expect(array.stderr.replace(/\n/g, " ")).toMatch(
      /dup\.json, nothing imported .*the file: duplicate member name "verdict"/,
    );
    expect(lines.stderr.replace(/\n/g, " ")).toMatch(
      /dup\.jsonl, nothing imported .*line 2: duplicate member name "verdict"/,
    );
    expect(idsIn(dbFile)).toEqual(before);
  });
});

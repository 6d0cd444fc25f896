import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, ROOT, tempDir } from "./support.ts";

const run = promisify(execFile);
const tmp = tempDir("transfer");
afterAll(() => tmp.remove());

async function shampoo(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const r = await run(process.execPath, [BIN, ...args], { cwd: ROOT, timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
}

describe("shampoo import / export (reference memory-server JSONL)", () => {
  const db = join(tmp.dir, "s.db");
  const lines = [
    { type: "entity", name: "Alice", entityType: "person", observations: ["likes tea", "works remotely"] },
    { type: "entity", name: "Acme", entityType: "org", observations: [] },
    { type: "relation", from: "Alice", to: "Acme", relationType: "works_at" },
  ];
  const file = join(tmp.dir, "memory.jsonl");
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);

  it("imports with a progress bar, is idempotent, and exports the same graph back", async () => {
    const first = await shampoo(["import", file, "--project", "demo", "--db", db]);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ entities: 2, entities_created: 2, relations_created: 1 });
    expect(first.stderr).toMatch(/import \[#+\] 100% entities 2\/2/);
    const again = await shampoo(["import", file, "--project", "demo", "--db", db]);
    expect(JSON.parse(again.stdout)).toMatchObject({
      entities_created: 0,
      relations_created: 0,
      observations_added: 0,
    });
    const out = await shampoo(["export", "--project", "demo", "--db", db]);
    expect(out.code).toBe(0);
    const exported = out.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const byName = (a: { name?: string }, b: { name?: string }) => String(a.name).localeCompare(String(b.name));
    expect(exported.filter((l) => l.type === "entity").sort(byName)).toEqual(
      lines.filter((l) => l.type === "entity").sort(byName),
    );
    expect(exported.filter((l) => l.type === "relation")).toEqual([lines[2]]);
    expect(out.stderr).toMatch(/exported 2 entities and 1 relations/);
  });

  it("refuses without a project, a missing file, and a caller without the grant", async () => {
    expect((await shampoo(["import", file, "--db", db])).code).toBe(2);
    expect((await shampoo(["import", join(tmp.dir, "nope.jsonl"), "--project", "demo", "--db", db])).code).toBe(1);
    const denied = await shampoo([
      "import",
      file,
      "--project",
      "demo",
      "--db",
      db,
      "--principal",
      "eve",
      "--grants",
      "other",
    ]);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toMatch(/Project not in scope/);
    const bad = join(tmp.dir, "bad.jsonl");
    writeFileSync(bad, '{"type":"entity","name":"X"}\nnot json\n');
    const broken = await shampoo(["import", bad, "--project", "demo2", "--db", db]);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toMatch(/line \d+/);
    expect(readFileSync(file, "utf8")).toContain("Alice");
  });
});

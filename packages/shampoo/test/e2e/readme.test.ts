/**
 * The README's commands run as printed, from a folder outside the repository: every ```sh block
 * the README marks with `<!-- readme-commands: run -->` is extracted and each of its lines run
 * in a fresh empty folder, with the clone's real path in place of `/path/to/this/repo` (the one
 * thing a reader substitutes). A command that fails, or prints nothing, fails here, naming it.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "./support.ts";

const run = promisify(execFile);
const README = readFileSync(join(ROOT, "README.md"), "utf8");
const MARK = "<!-- readme-commands: run -->";

/** The marked blocks' command lines, in README order. */
function markedCommands(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(MARK).slice(1)) {
    const block = /^\s*```sh\n([\s\S]*?)\n```/.exec(part);
    if (!block) throw new Error(`${MARK} must be followed by a \`\`\`sh block`);
    for (const line of (block[1] as string).split("\n")) if (line.trim() && !line.startsWith("#")) out.push(line);
  }
  return out;
}

const dir = mkdtempSync(join(tmpdir(), "readme-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("README commands, as printed, from another folder", () => {
  const commands = markedCommands(README);

  it("the README marks the commands it promises to run", () => {
    expect(commands.length).toBeGreaterThanOrEqual(3);
  });

  for (const command of commands) {
    it(command, { timeout: 300_000 }, async () => {
      const line = command.replaceAll("/path/to/this/repo", ROOT);
      const { stdout } = await run("bash", ["-c", line], {
        cwd: dir,
        timeout: 280_000,
        maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, SHAMPOO_DATA_DIR: join(dir, "shampoo"), SCOREIA_DATA_DIR: join(dir, "scoreia") },
      });
      expect(stdout.trim(), `${command} printed nothing`).not.toBe("");
    });
  }
});

import { readFileSync } from "node:fs";
import type { RegradeRefusal, RegradeResult } from "../evidence/regrade.ts";
import { parseStrictJson } from "../evidence/strict-json.ts";
import { EXIT, fetchJson, IoError, UsageError, type Values } from "./common.ts";

/** A strict-JSON document from a file or an http(s) URL; a duplicated member refuses it (exit 7). */
async function readDocument(where: string, what: string, Refusal: typeof RegradeRefusal): Promise<unknown> {
  if (/^https?:\/\//.test(where)) {
    const got = await fetchJson(where, "scoreia regrade");
    if (got.duplicate)
      throw new Refusal(what === "reveal" ? "reveal_malformed" : "proof_malformed", `${where}: ${got.duplicate}`);
    if (got.status !== 200)
      throw new IoError(`GET ${where}: HTTP ${got.status} ${JSON.stringify(got.body).slice(0, 120)}`);
    return got.body;
  }
  let text: string;
  try {
    text = readFileSync(where, "utf8");
  } catch (e) {
    throw new IoError(`cannot read ${where}: ${(e as Error).message}`);
  }
  try {
    return parseStrictJson(text);
  } catch (e) {
    throw new Refusal(what === "reveal" ? "reveal_malformed" : "proof_malformed", `${where}: ${(e as Error).message}`);
  }
}

/**
 * Re-grades a revealed generation's cards offline (commit-reveal, docs/evidence-0.2.md §14.5):
 * rebuilds each room from the revealed secret, opens the replay's commitments and replays them.
 */
export async function regrade(values: Values, args: string[]): Promise<number> {
  // Loaded here: only this command needs the suites' code, so every other command starts without it.
  const { checkReveal, RegradeRefusal, regradeCard } = await import("../evidence/regrade.ts");
  const [revealAt, ...proofFiles] = args;
  if (!revealAt) throw new UsageError("needs a REVEAL document (a file or a URL), then PROOF files or --server URL");
  const server = values.server ?? (/^https?:\/\//.test(revealAt) ? new URL(revealAt).origin : undefined);
  if (proofFiles.length === 0 && !server) {
    throw new UsageError("without PROOF files, --server URL (or a reveal URL) says where to fetch the proofs");
  }
  const results: RegradeResult[] = [];
  let refusal: RegradeRefusal | null = null;
  try {
    const checked = checkReveal(await readDocument(revealAt, "reveal", RegradeRefusal));
    const sources =
      proofFiles.length > 0
        ? proofFiles
        : Object.keys(checked.reveal.openings).map(
            (id) => `${(server as string).replace(/\/+$/, "")}/proofs/${id}.json`,
          );
    for (const source of sources) {
      try {
        results.push(regradeCard(checked, await readDocument(source, "proof", RegradeRefusal)));
      } catch (e) {
        if (!(e instanceof RegradeRefusal)) throw e;
        results.push({ card_id: source, status: "refused", code: e.code, message: e.message });
      }
    }
  } catch (e) {
    if (!(e instanceof RegradeRefusal)) throw e;
    refusal = e;
  }
  const tally = {
    agrees: results.filter((r) => r.status === "agrees").length,
    disagrees: results.filter((r) => r.status === "disagrees").length,
    refused: results.filter((r) => r.status === "refused").length,
  };
  const code = refusal
    ? EXIT.refused
    : tally.disagrees > 0
      ? EXIT.invalid
      : tally.refused > 0
        ? EXIT.refused
        : EXIT.valid;
  if (values.json) {
    const doc = refusal
      ? { refused: { code: refusal.code, message: refusal.message }, cards: [] }
      : { cards: results, ...tally };
    process.stdout.write(`${JSON.stringify(doc)}\n`);
    return code;
  }
  if (refusal) {
    process.stdout.write(`refused (${refusal.code}): ${refusal.message}\n`);
    return code;
  }
  for (const r of results) {
    process.stdout.write(
      r.status === "agrees"
        ? `agrees ${r.card_id}: ${r.verdict}, ${r.actions} actions, ${r.opened} commitments opened\n`
        : `${r.status === "disagrees" ? "DISAGREES" : "refused"} ${r.card_id} (${r.code}): ${r.message}\n`,
    );
  }
  process.stdout.write(`${tally.agrees} agree, ${tally.disagrees} disagree, ${tally.refused} refused\n`);
  return code;
}

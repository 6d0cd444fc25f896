import { performance } from "node:perf_hooks";
import { TOOLSETS, toolsetHash } from "../contract/index.ts";
import { verifyEd25519 } from "../evidence/ed25519.ts";
import type { CardSignature, PublicKeyRecord } from "../evidence/signer.ts";
import { statementBytes } from "../evidence/signer.ts";
import { type VerificationResult, verifyHistorical, verifyProof } from "../evidence/verify.ts";
import type { LatestHead } from "../evidence/verify-log.ts";
import { EXIT, fetchJson, IoError, UsageError, type Values } from "./common.ts";
import { latestHeadFor, serverHead, serverRoot } from "./verify-head.ts";

/**
 * `scoreia verify --all --server URL`: every card of a registry, verified here. The server's keys
 * and current tree head are fetched once; each distinct bundle head's consistency proof once; a
 * tree head's signature is verified once (evidence/verify-log.ts). Prints one line per card, then a
 * summary on stderr with the per-card verification cost against a raw Ed25519 verify timed in the
 * same run. Exit: 1 if any card is invalid, else 3 if any key is unknown, else 0.
 */

interface Summary {
  card_id: string;
  card_version: string;
  evidence_status: string;
  links: { card: string };
}

export async function verifyAll(values: Values, args: string[]): Promise<number> {
  if (args.length > 0 || values.server === undefined)
    throw new UsageError("--all takes no CARD_ID or FILE and needs --server URL");
  const root = serverRoot(values.server);
  const keysDoc = await fetchJson(`${root}/.well-known/scoreia-keys.json`);
  const keys = (keysDoc.body as { keys?: PublicKeyRecord[] } | null)?.keys;
  if (keysDoc.status !== 200 || !Array.isArray(keys))
    throw new IoError(`GET ${root}/.well-known/scoreia-keys.json: HTTP ${keysDoc.status}`);
  const current = await serverHead(root).catch(() => undefined);
  const known = Object.fromEntries(Object.values(TOOLSETS).map((t) => [t.toolset_id, toolsetHash(t)]));
  const consistencyBySize = new Map<number, unknown>();
  const counts: Record<string, number> = {};
  const statements: Array<{ key: PublicKeyRecord; message: Buffer; sig: Buffer }> = [];
  let verifyMs = 0;
  let native = 0;
  let cursor: string | null = null;
  do {
    const page = await fetchJson(`${root}/cards?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    if (page.status !== 200) throw new IoError(`GET ${root}/cards: HTTP ${page.status}`);
    const body = page.body as { cards: Summary[]; next_cursor: string | null };
    for (const c of body.cards) {
      let result: VerificationResult;
      if (c.card_version !== "0.2") {
        const got = await fetchJson(`${root}${c.links.card}`);
        result = verifyHistorical((got.body as Record<string, unknown> | null)?.card ?? got.body);
      } else if (c.evidence_status === "pending_signature") {
        result = {
          verdict: "pending_signature",
          card_id: c.card_id,
          message: `pending signature: ${c.card_id}`,
          steps: [],
        };
      } else {
        const got = await fetchJson(`${root}/proofs/${c.card_id}.json`);
        if (got.status !== 200) throw new IoError(`GET ${root}/proofs/${c.card_id}.json: HTTP ${got.status}`);
        const bundle = got.body as {
          log?: { tree_head?: { tree_size?: number } };
          signature?: CardSignature;
          card_hash?: string;
        };
        const size = bundle.log?.tree_head?.tree_size ?? 0;
        let latest: LatestHead | undefined =
          current === undefined ? undefined : { tree_head: current, consistency: consistencyBySize.get(size) };
        if (current !== undefined && latest?.consistency === undefined) {
          latest = await latestHeadFor(bundle, { root, pinned: null, current });
          consistencyBySize.set(size, latest?.consistency);
        }
        const t0 = performance.now();
        result = verifyProof(bundle, keys, known, latest ? { latestHead: latest } : {});
        verifyMs += performance.now() - t0;
        native++;
        if (result.card_id !== c.card_id && result.verdict !== "invalid") {
          result = {
            verdict: "invalid",
            card_id: c.card_id,
            code: "card_id_mismatch",
            message: `invalid: the server sent the proof of ${result.card_id}`,
            steps: [],
          };
        }
        const key = keys.find((k) => k.key_id === bundle.signature?.key_id);
        if (key && bundle.signature && bundle.card_hash) {
          const { key_id, signed_at, sig } = bundle.signature;
          statements.push({
            key,
            message: statementBytes(bundle.card_hash, key_id, signed_at),
            sig: Buffer.from(sig, "base64url"),
          });
        }
      }
      counts[result.verdict] = (counts[result.verdict] ?? 0) + 1;
      const detail = result.verdict === "valid" ? "" : ` ${result.code ?? ""} ${result.message}`;
      process.stdout.write(values.json ? `${JSON.stringify(result)}\n` : `${result.verdict} ${c.card_id}${detail}\n`);
    }
    cursor = body.next_cursor;
  } while (cursor);
  process.stderr.write(`scoreia verify --all: ${summaryLine(counts, native, verifyMs, statements)}\n`);
  if (counts.invalid) return EXIT.invalid;
  if (counts.unknown_key) return EXIT.unknown_key;
  return EXIT.valid;
}

/** Counts, and the mean verification time per native card against one raw Ed25519 verify, timed now. */
function summaryLine(
  counts: Record<string, number>,
  native: number,
  verifyMs: number,
  statements: Array<{ key: PublicKeyRecord; message: Buffer; sig: Buffer }>,
): string {
  const total =
    Object.entries(counts)
      .map(([k, n]) => `${n} ${k}`)
      .join(", ") || "no cards";
  if (native === 0 || statements.length === 0) return total;
  const rounds = Math.max(1, Math.ceil(2000 / statements.length));
  const t0 = performance.now();
  for (let r = 0; r < rounds; r++) {
    for (const s of statements) verifyEd25519(Buffer.from(s.key.public_key, "base64url"), s.message, s.sig);
  }
  const rawMs = (performance.now() - t0) / (rounds * statements.length);
  const perCard = verifyMs / native;
  return `${total}; ${perCard.toFixed(3)} ms per card (${(perCard / rawMs).toFixed(2)}× a raw Ed25519 verify, ${rawMs.toFixed(3)} ms, timed in this run; network excluded)`;
}

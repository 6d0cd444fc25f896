import { readFileSync } from "node:fs";
import type { TreeHead } from "../evidence/signer.ts";
import type { LatestHead } from "../evidence/verify-log.ts";
import { fetchJson, IoError, UsageError } from "./common.ts";

/**
 * Step 10 of verification (docs/evidence-0.2.md §15.5) needs a tree head newer than — or at least
 * independent of — the bundle's own: the server's current head (--server URL), or a head the user
 * pinned earlier (--head FILE: a saved /log/tree-head.json, or {tree_head, consistency}). Without
 * either, the verifier says plainly that consistency was not checked.
 */

/** The bundle's own tree head size, when it has a usable one (else step 9 reports the problem). */
function bundleHeadSize(bundle: unknown): number | null {
  const size = (bundle as { log?: { tree_head?: { tree_size?: unknown } } } | null)?.log?.tree_head?.tree_size;
  return Number.isSafeInteger(size) && (size as number) >= 1 ? (size as number) : null;
}

export interface PinnedHead {
  tree_head: TreeHead;
  /** A consistency proof saved with the head, from the size of the bundles it is meant for. */
  consistency?: unknown;
  file: string;
}

/** Reads --head FILE: a signed tree head, or {tree_head, consistency}. */
export function readHeadFile(file: string): PinnedHead {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new IoError(`cannot read --head ${file}: ${(e as Error).message}`);
  }
  const obj = (typeof doc === "object" && doc !== null ? doc : {}) as Record<string, unknown>;
  const head = (typeof obj.tree_head === "object" && obj.tree_head !== null ? obj.tree_head : obj) as TreeHead;
  if (!Number.isSafeInteger(head.tree_size) || typeof head.root_hash !== "string") {
    throw new UsageError(
      `--head ${file} is not a signed tree head (GET /log/tree-head.json) nor {tree_head, consistency}`,
    );
  }
  return { tree_head: head, ...("consistency" in obj ? { consistency: obj.consistency } : {}), file };
}

async function consistencyBetween(root: string, a: number, b: number): Promise<unknown> {
  const [first, second] = a <= b ? [a, b] : [b, a];
  if (first === second) return [];
  const url = `${root}/log/consistency.json?first=${first}&second=${second}`;
  const proof = await fetchJson(url);
  if (proof.status === 400) return null; // a size beyond the server's log: no proof exists, step 10 fails
  if (proof.status !== 200) throw new IoError(`GET ${url}: HTTP ${proof.status}`);
  return (proof.body as { consistency?: unknown }).consistency;
}

/** The server's current signed tree head. */
export async function serverHead(root: string): Promise<unknown> {
  const head = await fetchJson(`${root}/log/tree-head.json`);
  if (head.status !== 200 || head.duplicate) throw new IoError(`GET ${root}/log/tree-head.json: HTTP ${head.status}`);
  if (!Number.isSafeInteger((head.body as { tree_size?: unknown }).tree_size)) {
    throw new IoError(`GET ${root}/log/tree-head.json: no tree_size`);
  }
  return head.body;
}

/**
 * The trusted head for step 10 and the consistency proof between it and the bundle's head, or
 * undefined when there is none to compare with (offline, no --head). `current` is the server's
 * head when already fetched (verify --all fetches it once).
 */
export async function latestHeadFor(
  bundle: unknown,
  opts: { root: string | null; pinned: PinnedHead | null; current?: unknown },
): Promise<LatestHead | undefined> {
  const size = bundleHeadSize(bundle);
  if (size === null) return undefined;
  if (opts.pinned) {
    const { tree_head, consistency } = opts.pinned;
    if (consistency !== undefined) return { tree_head, consistency };
    if (tree_head.tree_size === size) return { tree_head, consistency: [] };
    if (!opts.root) {
      throw new UsageError(
        `--head ${opts.pinned.file} (size ${tree_head.tree_size}) and the proof's head (size ${size}) need a consistency proof between them: add --server URL, or save {"tree_head":…,"consistency":[…]} in the file`,
      );
    }
    return { tree_head, consistency: (await consistencyBetween(opts.root, size, tree_head.tree_size)) ?? [] };
  }
  if (!opts.root) return undefined;
  const head = opts.current ?? (await serverHead(opts.root));
  const second = (head as { tree_size: number }).tree_size;
  return { tree_head: head, consistency: (await consistencyBetween(opts.root, size, second)) ?? [] };
}

/** An http(s) base URL without its trailing slashes. */
export function serverRoot(server: string): string {
  let base: URL;
  try {
    base = new URL(server);
    if (base.protocol !== "http:" && base.protocol !== "https:") throw new Error("not http(s)");
  } catch {
    throw new UsageError(`--server needs an http(s) URL, got ${server}`);
  }
  return base.href.replace(/\/+$/, "");
}

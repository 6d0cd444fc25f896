/**
 * Issue 28: /log/inclusion at a size that can never answer is the client's error (4xx), not
 * "503 log_head_unavailable, retry shortly", which never succeeded.
 */
import { engineOf } from "kernel";
import { expect, it } from "vitest";
import { appendLeaf, LEAF_TYPE } from "../../src/evidence/log.ts";
import * as logRoutes from "../../src/http/log.ts";
import { harness } from "../support/chamber.ts";
import { sealed } from "./support.ts";

it("tree_size ≤ the card's index or beyond the log → 400; a size no head was signed at → 404; else 200", async () => {
  const h = await harness("sqlite");
  try {
    await sealed(h, { seed: "log-1" });
    const second = (await sealed(h, { seed: "log-2" })).card_id; // leaf 1, heads of sizes 1 and 2
    // A leaf appended without a head being signed (as when the signer is away): size 3 has no head.
    await h.db.transaction((trx) =>
      appendLeaf(trx, engineOf(h.db), {
        type: LEAF_TYPE,
        card_id: `sia-${"cd".repeat(16)}`,
        card_hash: `sha256:${"0".repeat(64)}`,
        signed_at: "2026-11-30T12:00:00.000Z",
        logged_at: "2026-11-30T12:00:00.000Z",
      }),
    );
    const at = (size: string) => logRoutes.inclusion(h.chamber.registry.log, second, size);
    for (const size of ["1", "4", "99"]) {
      const r = await at(size);
      expect([r.status, r.body.error, r.cache], size).toEqual([400, "bad_tree_size", "no-store"]);
      expect(String(r.body.message)).toMatch(/^tree_size must be from 2 \(the card is leaf 1\) to 3/);
    }
    const unsigned = await at("3");
    expect([unsigned.status, unsigned.body.error]).toEqual([404, "tree_head_not_signed"]);
    const ok = await at("2");
    expect([ok.status, ok.cache, (ok.body.tree_head as { tree_size: number }).tree_size]).toEqual([
      200,
      "immutable",
      2,
    ]);
  } finally {
    await h.close();
  }
});

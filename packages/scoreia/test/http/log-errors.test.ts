/**
 * Issue 28: /log/inclusion at a size that can never answer is the client's error (4xx), not
 * "503 log_head_unavailable, retry shortly", which never succeeded. And heads only grow, so the
 * first head that covers a card (the one its proof is frozen at) never changes.
 */
import { engineOf } from "kernel";
import { DIALECTS } from "kernel/store/testing.ts";
import { describe, expect, it } from "vitest";
import { insertHeadIfNewest } from "../../src/attempts/store.ts";
import { appendLeaf, LEAF_TYPE } from "../../src/evidence/log.ts";
import * as logRoutes from "../../src/http/log.ts";
import { harness } from "../support/chamber.ts";
import { sealed } from "./support.ts";

describe.each(DIALECTS)("the log on %s", (dialect) => {
  it("tree_size ≤ the card's index or beyond the log → 400; a size no head was signed at → 404; else 200", async () => {
    const h = await harness(dialect);
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
      const log = h.chamber.registry.log;
      const at = (size: string) => logRoutes.inclusion(log, second, size);
      for (const size of ["1", "4", "99"]) {
        const r = await at(size);
        expect([r.status, r.body.error, r.cache], size).toEqual([400, "bad_tree_size", "no-store"]);
        expect(String(r.body.message)).toMatch(/^tree_size must be from 2 \(the card is leaf 1\) to 3/);
      }
      const unsigned = await at("3");
      expect([unsigned.status, unsigned.body.error]).toEqual([404, "tree_head_not_signed"]);
      const ok = await at("2");
      const size = (ok.body.tree_head as { tree_size: number }).tree_size;
      expect([ok.status, ok.cache, size]).toEqual([200, "immutable", 2]);

      // Heads only grow: once a larger head is stored, a smaller one (signed a moment earlier by
      // another instance) is not.
      expect(await insertHeadIfNewest(h.db.db, 2, "{}")).toBe(false); // exists
      const head3 = await log.head();
      expect(head3?.tree_size).toBe(3);
      expect(await insertHeadIfNewest(h.db.db, 1, "{}")).toBe(false);
      expect(await insertHeadIfNewest(h.db.db, 3, "{}")).toBe(false);
      expect(await insertHeadIfNewest(h.db.db, 4, '{"tree_size":4}')).toBe(true);
      expect(await log.headOfSize(3)).toEqual(head3);
    } finally {
      await h.close();
    }
  });
});

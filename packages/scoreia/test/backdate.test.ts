import { createPrivateKey, sign } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { engineOf } from "kernel";
import { DIALECTS } from "kernel/store/testing.ts";
import { describe, expect, it } from "vitest";
import { canonicalJson, sha256Tagged } from "../src/evidence/jcs.ts";
import { appendLeaf, LEAF_TYPE, type LogLeaf, logLeafHash } from "../src/evidence/log.ts";
import {
  LocalKeyring,
  SwitchableSigner,
  statementBytes,
  TREE_HEAD_TYPE,
  treeHeadBytes,
} from "../src/evidence/signer.ts";
import { firstDuplicate, parseStrictJson } from "../src/evidence/strict-json.ts";
import { type ProofBundle, verifyProof } from "../src/evidence/verify.ts";
import { harness, IDENTITY } from "./support/chamber.ts";

// Issue 16 §2: a leaked retired key cannot forge a card that verifies today.

describe.each(DIALECTS)("a retired key and a new, backdated card on %s", (dialect) => {
  it("rotation destroys the retired key; a card forged with a copy of it is refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scoreia-backdate-"));
    const h = await harness(dialect);
    try {
      const keyring = LocalKeyring.open(dir, h.clock);
      const { chamberOn } = await import("../src/app.ts");
      const ch = chamberOn(h.db, { clock: h.clock, signer: new SwitchableSigner(keyring) });
      const e = await ch.service.enter({ ...IDENTITY }, { mcpSession: "m" });
      const s = await ch.service.seal({ challenge_handle: e.attempt_handle }, { mcpSession: "m" });
      const real = (await ch.registry.proof(s.card_id as string)) as ProofBundle;
      const oldId = keyring.currentKeyId;
      const leaked = readFileSync(join(dir, `${oldId}.pem`)); // the copy an attacker kept
      h.clock.advance(60_000);
      keyring.rotate();
      expect(existsSync(join(dir, `${oldId}.pem`))).toBe(false);
      expect(LocalKeyring.open(dir, h.clock).currentKeyId).not.toBe(oldId);
      // The keys document lists the new key at once, before it signs anything.
      const keys = await ch.registry.keys();
      expect(keys.map((k) => k.key_id)).toContain(keyring.currentKeyId);

      // Forge: a new card, "solved", signed with the leaked key inside its old window.
      h.clock.advance(3_600_000);
      const key = createPrivateKey(leaked);
      const card = { ...real.card, card_id: `sia-${"ab".repeat(16)}`, verdict: "solved" };
      const cardHash = sha256Tagged(canonicalJson(card));
      const signedAt = real.signature.signed_at;
      const sig = sign(null, statementBytes(cardHash, oldId, signedAt), key).toString("base64url");
      const forged = {
        ...real,
        card,
        card_hash: cardHash,
        signature: { ...real.signature, sig },
        replay: { ...real.replay, card_id: card.card_id },
      };
      const known = {};
      // Without a log entry, or with the real card's entry:
      const { log: _omit, ...noLog } = forged;
      expect(verifyProof(noLog, keys, known).code).toBe("log_missing");
      expect(verifyProof(forged, keys, known).code).toBe("log_mismatch");

      // A forged one-leaf log, its head signed by the leaked key and backdated too: consistent
      // offline, but not a prefix of the real log's current head.
      const leaf: LogLeaf = {
        type: LEAF_TYPE,
        card_id: card.card_id,
        card_hash: cardHash,
        signed_at: signedAt,
        logged_at: signedAt,
      };
      const root = `sha256:${logLeafHash(leaf).toString("hex")}`;
      const head = { type: TREE_HEAD_TYPE, tree_size: 1, root_hash: root, timestamp: signedAt, key_id: oldId } as const;
      const fake = { ...head, sig: sign(null, treeHeadBytes(head), key).toString("base64url") };
      const withFakeLog = { ...forged, log: { index: 0, leaf, tree_head: fake, inclusion: [] } };
      const current = await ch.registry.log.head();
      expect(current).not.toBeNull();
      const latestHead = {
        tree_head: current,
        consistency: await ch.registry.log.consistency(1, current?.tree_size ?? 1),
      };
      expect(verifyProof(withFakeLog, keys, known, { latestHead }).code).toBe("log_inconsistent");
      // The real card still verifies against the same current head.
      const realLatest = {
        tree_head: current,
        consistency: await ch.registry.log.consistency(real.log?.tree_head.tree_size ?? 0, current?.tree_size ?? 0),
      };
      expect(verifyProof(real, keys, known, { latestHead: realLatest }).message).toMatch(/^valid/);

      // Appended to the real log later (whoever did it), the backdated card is caught by its time.
      await h.db.transaction((trx) =>
        appendLeaf(trx, engineOf(h.db), {
          type: LEAF_TYPE,
          card_id: card.card_id,
          card_hash: cardHash,
          signed_at: signedAt,
          logged_at: new Date(h.clock.now()).toISOString(),
        }),
      );
      await ch.service.log.head();
      const logged = await ch.registry.log.inclusion(card.card_id);
      expect(verifyProof({ ...forged, log: logged }, keys, known).code).toBe("log_time_mismatch");
    } finally {
      await h.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("duplicate member names (issue 16 §2)", () => {
  it("are found at any depth and refused; strings that look like members are not", () => {
    expect(firstDuplicate('{"a":1,"b":{"c":1,"c":2}}')).toBe("c");
    expect(firstDuplicate('{"card":{},"x":[{"card":1}],"card":{}}')).toBe("card");
    expect(firstDuplicate('{"a":"\\"a\\":","b":["a","a"],"c":{"a":1}}')).toBeNull();
    expect(firstDuplicate('{"\\u0061":1,"a":2}')).toBe("a");
    expect(() => parseStrictJson('{"verdict":"failed","verdict":"solved"}')).toThrow(/duplicate member name "verdict"/);
    expect(parseStrictJson('{"verdict":"failed"}')).toEqual({ verdict: "failed" });
  });
});

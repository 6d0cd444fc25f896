import { iso, logger } from "kernel";
import { canonicalJson } from "../contract/index.ts";
import { addToCodex, signatureVerifies } from "../evidence/codex.ts";
import { sha256Tagged } from "../evidence/jcs.ts";
import { appendLeaf, LEAF_TYPE } from "../evidence/log.ts";
import { type CardSignature, type PublicKeyRecord, SignerUnavailableError } from "../evidence/signer.ts";
import { CLOCK_SKEW_MS } from "../evidence/verify.ts";
import type { ChamberCore, Trx } from "./core.ts";
import type { CardRow } from "./schema.ts";
import * as store from "./store.ts";
import { write } from "./write.ts";

/**
 * Signs `card` if it is still pending and returns it as stored afterwards (signed), or null
 * when no signer is reachable (the card stays pending). The signature, the attempt's sealed
 * state, the card's transparency-log leaf and its Codex count commit in one write.
 */
export async function signPending(core: ChamberCore, card: CardRow, now: number): Promise<CardRow | null> {
  if (card.evidence_status === "signed") return card;
  let signature: CardSignature;
  try {
    signature = await core.signer.signCard(sha256Tagged(card.body_json));
  } catch (e) {
    if (e instanceof SignerUnavailableError) return null;
    throw e;
  }
  // Never store a signature that would verify as signed_before_issue (a signer clock far behind):
  // the card stays pending and the next seal retries.
  const issuedAt = Date.parse((JSON.parse(card.body_json) as { issued_at: string }).issued_at);
  if (Date.parse(signature.signed_at) < issuedAt - CLOCK_SKEW_MS) {
    logger("attempts").warn(`signer clock is behind: ${signature.signed_at} for a card issued ${iso(issuedAt)}`);
    return null;
  }
  await publishKeys(core, signature.key_id);
  const signatureJson = canonicalJson(signature);
  const stored = await write(core.database, async ({ trx, engine }) => {
    const res = await store.signCard.run(trx, {
      card_id: card.card_id,
      signature_json: signatureJson,
      signed_at: signature.signed_at,
    });
    if (Number(res.numAffectedRows) === 1) {
      await store.markSealed.run(trx, { handle: card.handle as string, updated_at: iso(now) });
      // Into the transparency log with the signature, in one transaction: a signed card is a logged card.
      if (!core.config.benchWithoutLogAndCommitments)
        await appendLeaf(trx, engine, {
          type: LEAF_TYPE,
          card_id: card.card_id,
          card_hash: sha256Tagged(card.body_json),
          signed_at: signature.signed_at,
          logged_at: iso(now),
        });
      // The Codex counts the card in the transaction that signs it, and only if it verifies.
      if (signatureVerifies(card.body_json, signature, await keyRecords(trx))) {
        await addToCodex(trx, JSON.parse(card.body_json));
      }
      return { ...card, signature_json: signatureJson, evidence_status: "signed", signed_at: signature.signed_at };
    }
    // A concurrent seal signed it first: its signature is the one stored.
    return store.selectCard.first(trx, { card_id: card.card_id });
  });
  // A signed head covering the new leaf, so its proof can be served at once (best effort: an
  // unreachable signer leaves it to the next head; CardLog.head never throws for that).
  if (!core.config.benchWithoutLogAndCommitments && !core.config.benchDeferTreeHeads) await core.log.head();
  return stored ?? null;
}

/**
 * Copies the signer's public key records into chamber_keys, so that the web process can serve
 * and verify with public keys only. Cheap when the key is already known.
 */
export async function publishKeys(core: ChamberCore, ensureKeyId?: string): Promise<void> {
  if (ensureKeyId && core.knownKeys.has(ensureKeyId)) return;
  const records = await core.signer.publicKeys();
  // Unchanged since the last copy (the keys document asks on every request): nothing to write.
  const print = JSON.stringify(records);
  if (print === core.publishedPrint) return;
  await write(core.database, async ({ trx }) => {
    for (const r of records) {
      // Upsert: concurrent seals may publish the same key at once. A window only ever closes.
      await trx
        .insertInto("chamber_keys")
        .values(r)
        .onConflict((oc) => oc.column("key_id").doUpdateSet((eb) => ({ not_after: eb.ref("excluded.not_after") })))
        .execute();
      core.knownKeys.add(r.key_id);
    }
  });
  core.publishedPrint = print;
}

/** The published key records (chamber_keys), as a verifier reads them. */
async function keyRecords(trx: Trx): Promise<PublicKeyRecord[]> {
  const rows = await trx.selectFrom("chamber_keys").selectAll().execute();
  return rows.map((r) => ({ ...r, alg: "Ed25519" }));
}

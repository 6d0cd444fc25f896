import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { verifyEd25519 } from "./ed25519.ts";
import { LocalKeyring, statementBytes } from "./signer.ts";

interface Vector {
  tcId: number;
  comment: string;
  msg: string;
  sig: string;
  result: "valid" | "invalid" | "acceptable";
}
const file = JSON.parse(
  readFileSync(new URL("../../../../testdata/ed25519/wycheproof_ed25519_test.json", import.meta.url), "utf8"),
) as { testGroups: Array<{ publicKey: { pk: string }; tests: Vector[] }> };
const cases = file.testGroups.flatMap((g) => g.tests.map((t) => ({ pk: g.publicKey.pk, ...t })));

describe("Ed25519 against Wycheproof", () => {
  it("has all 151 vectors", () => {
    expect(cases).toHaveLength(151);
  });

  it.each(cases)("tcId $tcId ($result) $comment", (t) => {
    const ok = verifyEd25519(Buffer.from(t.pk, "hex"), Buffer.from(t.msg, "hex"), Buffer.from(t.sig, "hex"));
    expect(ok).toBe(t.result === "valid");
  });

  it("verifies what the local keyring signs, and nothing else", async () => {
    const keyring = LocalKeyring.ephemeral();
    const s = await keyring.signCard("sha256:aa");
    const [key] = await keyring.publicKeys();
    const raw = Buffer.from(key?.public_key ?? "", "base64url");
    const sig = Buffer.from(s.sig, "base64url");
    expect(verifyEd25519(raw, statementBytes("sha256:aa", s.key_id, s.signed_at), sig)).toBe(true);
    expect(verifyEd25519(raw, statementBytes("sha256:ab", s.key_id, s.signed_at), sig)).toBe(false);
  });
});

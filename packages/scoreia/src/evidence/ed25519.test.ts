import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { verifyEd25519 } from "./ed25519.ts";
import { LocalEd25519Signer } from "./signer.ts";

interface Vector {
  tcId: number;
  comment: string;
  msg: string;
  sig: string;
  result: "valid" | "invalid" | "acceptable";
}
const file = JSON.parse(
  readFileSync(new URL("../../../../../shared/testdata/ed25519/wycheproof_ed25519_test.json", import.meta.url), "utf8"),
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

  it("verifies what the local signer signs, and nothing else", async () => {
    const signer = LocalEd25519Signer.generate();
    const msg = Buffer.from('{"card":1}');
    const s = await signer.sign(msg);
    const raw = Buffer.from(signer.publicKey.export({ format: "jwk" }).x as string, "base64url");
    expect(verifyEd25519(raw, msg, Buffer.from(s.sig, "base64url"))).toBe(true);
    expect(verifyEd25519(raw, Buffer.from('{"card":2}'), Buffer.from(s.sig, "base64url"))).toBe(false);
  });
});

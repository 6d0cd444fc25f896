import { describe, expect, it } from "vitest";
import { makeCaller } from "../../access/caller.ts";
import {
  digest,
  listLimit,
  parseSessionToken,
  sameDigest,
  sessionStatus,
  sessionToken,
  ticketProjects,
  ticketTtl,
} from "./rules.ts";

describe("auth rules", () => {
  it("session tokens round-trip; anything else is no token", () => {
    const id = "0b3e8f7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b";
    const secret = "A".repeat(43);
    expect(parseSessionToken(sessionToken(id, secret))).toEqual({ sessionId: id, secret });
    for (const bad of [
      `shs2.${id}.${secret}`,
      `shs1.${id}.${secret}x`,
      `shs1.${id.toUpperCase()}.${secret}`,
      "shs1..",
      "",
    ]) {
      expect(parseSessionToken(bad), bad).toBeNull();
    }
  });
  it("a ticket's grant lies within the issuer's", () => {
    const issuer = makeCaller({ principal: "c", role: "conductor", profile: "default", grants: ["a", "b"] });
    expect(ticketProjects(issuer, ["a", "a", "b"])).toEqual(["a", "b"]);
    expect(ticketProjects(issuer, ["c"])).toBeNull();
    expect(ticketProjects(issuer, [""])).toBeNull();
    expect(ticketProjects(issuer, ["*"])).toBeNull();
    expect(ticketProjects(issuer, [])).toBeNull();
    expect(ticketProjects(issuer, [" a"])).toBeNull();
    const star = makeCaller({ principal: "s", role: "conductor", profile: "default", grants: ["*", ""] });
    expect(ticketProjects(star, ["anything", "", "*"])).toEqual(["anything", "", "*"]);
  });
  it("limits, TTLs, statuses and digests", () => {
    expect([listLimit(undefined), listLimit(0), listLimit(7.9), listLimit(1e6)]).toEqual([20, 1, 7, 100]);
    expect([ticketTtl(undefined), ticketTtl(60), ticketTtl(59), ticketTtl(1.5)]).toEqual([3600, 60, null, null]);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(sessionStatus({ status: "active", expires_at: "2026-01-01T00:00:00.000Z" }, now)).toBe("expired");
    expect(sessionStatus({ status: "active", expires_at: "2026-01-01T00:00:01.000Z" }, now)).toBe("active");
    expect(sessionStatus({ status: "revoked", expires_at: "2025-01-01T00:00:00.000Z" }, now)).toBe("revoked");
    expect(sameDigest(digest("s"), "s")).toBe(true);
    expect(sameDigest(digest("s"), "t")).toBe(false);
  });
});

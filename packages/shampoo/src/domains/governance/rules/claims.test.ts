import { describe, expect, it } from "vitest";
import { detectScope, extractClaims, identityKey, requiresHuman } from "./claims.ts";
import { gate } from "./promotion.ts";

describe("claim extraction", () => {
  it("reads subject–predicate–object per sentence with the catalog's predicates", () => {
    const claims = extractClaims(
      "The gateway uses PostgreSQL. The worker depends on the queue. Is it fast? Maybe the cache is Redis. We decided the API requires tokens since 2026-02-01.",
    );
    expect(claims.map((c) => [c.subject, c.predicate, c.object, c.confidence, c.valid_from])).toEqual([
      ["The gateway", "uses", "PostgreSQL", 0.6, null],
      ["The worker", "depends_on", "the queue", 0.7, null],
      ["the cache", "is", "Redis", 0.35, null],
      ["the API", "requires", "tokens", 0.75, "2026-02-01T00:00:00.000Z"],
    ]);
  });
  it("is deterministic and deduplicates identical triples", () => {
    const body = "The gateway uses PostgreSQL. the  gateway uses postgresql.";
    expect(extractClaims(body)).toHaveLength(1);
    expect(extractClaims(body)).toEqual(extractClaims(body));
  });
  it("detects sensitive scopes, else memory; sensitive or weak claims require a human", () => {
    expect(detectScope("the export job uses S3")).toBe("export");
    expect(detectScope("the bridge maps to v2")).toBe("bridge");
    expect(detectScope("the gateway uses PostgreSQL")).toBe("memory");
    expect(requiresHuman("mapping", 0.9, false)).toBe(true);
    expect(requiresHuman("memory", 0.45, false)).toBe(true);
    expect(requiresHuman("memory", 0.9, true)).toBe(true);
    expect(requiresHuman("memory", 0.9, false)).toBe(false);
  });
  it("identity ignores case and spacing but not scope", () => {
    const a = { subject: "The Gateway", predicate: "uses", object: "PostgreSQL", scope: "memory" };
    expect(identityKey(a)).toBe(identityKey({ ...a, subject: " the  gateway " }));
    expect(identityKey(a)).not.toBe(identityKey({ ...a, scope: "export" }));
  });
});

describe("promotion gates", () => {
  const g = { mode: "multi_evidence" as const, scope: "memory" as const, requiresHuman: false, internal: false };
  it("multi_evidence: 2 entries refused, 3 at 0.69 refused, 3 at 0.70 promoted", () => {
    expect(gate({ ...g, evidence: 2, confidence: 0.95 })).toBe("insufficient_evidence");
    expect(gate({ ...g, evidence: 3, confidence: 0.69 })).toBe("low_confidence");
    expect(gate({ ...g, evidence: 3, confidence: 0.7 })).toBeNull();
    expect(gate({ ...g, evidence: 3, confidence: 0.1 + 0.6 })).toBeNull(); // 0.7000000000000001 and 0.69999… alike
  });
  it("sensitive scopes accept only human_confirmed", () => {
    for (const scope of ["mapping", "validation", "bridge", "export"] as const) {
      expect(gate({ ...g, scope, evidence: 9, confidence: 1 })).toBe("human_confirmation_required");
      expect(gate({ ...g, mode: "imported", scope, evidence: 9, confidence: 1 })).toBe("human_confirmation_required");
      expect(gate({ ...g, mode: "human_confirmed", scope, evidence: 0, confidence: 0 })).toBeNull();
    }
  });
  it("auto_layer1 is pipeline-internal; internally it needs 0.85 and no human", () => {
    expect(gate({ ...g, mode: "auto_layer1", evidence: 1, confidence: 0.9 })).toBe("pipeline_internal");
    expect(gate({ ...g, mode: "auto_layer1", internal: true, evidence: 1, confidence: 0.84 })).toBe("low_confidence");
    expect(gate({ ...g, mode: "auto_layer1", internal: true, evidence: 1, confidence: 0.85 })).toBeNull();
    expect(gate({ ...g, mode: "auto_layer1", internal: true, requiresHuman: true, evidence: 1, confidence: 0.9 })).toBe(
      "human_confirmation_required",
    );
    expect(gate({ ...g, mode: "imported", evidence: 0, confidence: 0.9 })).toBe("insufficient_evidence");
  });
});

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import canonicalize from "canonicalize";
import { describe, expect, it } from "vitest";
import {
  ALIASES,
  aliasesAllowed,
  canonicalJson,
  TOOLSET_0_3_0,
  TOOLSET_0_3_2,
  TOOLSETS,
  toolsetHash,
} from "./index.ts";

const SEED = new URL("../../../../testdata/seeds/000_40e35d97c34d900d.txt", import.meta.url);

describe("toolset contracts", () => {
  it("keeps 0.3.0 byte for byte as seed 000", () => {
    const kept = readFileSync(new URL("toolset-0.3.0.json", import.meta.url));
    expect(kept.equals(readFileSync(SEED))).toBe(true);
  });

  it("hashes exactly the schema_bundle payload: RFC 8785 over payload_fields, sha256: prefix", () => {
    // Recomputed here from the raw seed, independently of index.ts's helpers.
    const raw = JSON.parse(readFileSync(SEED, "utf8"));
    const b = raw.schema_bundle;
    const payload = Object.fromEntries(
      b.payload_fields.map((f: string) => [
        f,
        f === "canonical_tools"
          ? raw.canonical_tools.map((t: Record<string, unknown>) =>
              Object.fromEntries(b.canonical_tools_fields.map((k: string) => [k, t[k]])),
            )
          : raw[f],
      ]),
    );
    const expected = `sha256:${createHash("sha256")
      .update(canonicalize(payload) as string)
      .digest("hex")}`;
    expect(toolsetHash(TOOLSET_0_3_0)).toBe(expected);
    expect(toolsetHash(TOOLSET_0_3_2)).not.toBe(expected);
    expect(toolsetHash(TOOLSET_0_3_2)).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("derives 0.3.2 from 0.3.0 by adding only route_key and participation_class to enter_open_challenge", () => {
    expect(TOOLSET_0_3_2.toolset_id).toBe("scoreia-chamber-tools/0.3.2");
    expect(Object.keys(TOOLSETS).sort()).toEqual(["scoreia-chamber-tools/0.3.0", "scoreia-chamber-tools/0.3.2"]);
    const names = (t: typeof TOOLSET_0_3_0) => t.canonical_tools.map((c) => c.name);
    expect(names(TOOLSET_0_3_2)).toEqual(names(TOOLSET_0_3_0));
    for (const tool of TOOLSET_0_3_2.canonical_tools) {
      const old = TOOLSET_0_3_0.canonical_tools.find((c) => c.name === tool.name);
      if (!old) throw new Error(`0.3.0 lacks ${tool.name}`);
      expect(tool.outputSchema).toEqual(old.outputSchema);
      if (tool.name !== "enter_open_challenge") {
        expect(tool.inputSchema).toEqual(old.inputSchema);
        continue;
      }
      const added = Object.keys(tool.inputSchema.properties as object).filter(
        (k) => !(k in (old.inputSchema.properties as object)),
      );
      expect(added.sort()).toEqual(["participation_class", "route_key"]);
      expect(tool.inputSchema.required).toEqual(old.inputSchema.required);
      expect((tool.inputSchema.properties as Record<string, { enum?: string[] }>).participation_class?.enum).toEqual([
        "external",
        "sponsored",
      ]);
    }
    // deriving never mutates the verbatim contract
    const enter0 = TOOLSET_0_3_0.canonical_tools.find((c) => c.name === "enter_open_challenge");
    expect(Object.keys(enter0?.inputSchema.properties ?? {})).not.toContain("route_key");
  });

  it("maps the three 0.2.0 aliases and cuts them off after 2027-02-21 UTC", () => {
    expect(ALIASES).toEqual({
      start_challenge: "enter_open_challenge",
      challenge_action: "chamber_action",
      finish_challenge: "seal_attempt",
    });
    expect(aliasesAllowed(Date.parse("2027-02-21T23:59:59.999Z"))).toBe(true);
    expect(aliasesAllowed(Date.parse("2027-02-22T00:00:00.000Z"))).toBe(false);
  });

  it("canonical JSON refuses what JSON cannot carry", () => {
    expect(canonicalJson({ b: 1, a: [true, null, "é"] })).toBe('{"a":[true,null,"é"],"b":1}');
    expect(() => canonicalJson(undefined)).toThrow();
  });
});

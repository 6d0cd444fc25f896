import { describe, expect, it } from "vitest";
import { generateRoom } from "./generate.ts";
import {
  BIN_IDS,
  FINISHES,
  MATERIALS,
  type OrderRule,
  orderBits,
  orderBitsByScan,
  type PlaceRule,
  type Pred,
  placeBits,
  placeBitsByScan,
} from "./model.ts";

const SEEDS = Array.from({ length: 60 }, (_, i) => `bits-${i}`);

/** Every part test a rule can carry in this room. */
function preds(partIds: string[]): Pred[] {
  return [
    ...MATERIALS.map((m): Pred => ({ test: "material_in", arg: [m] })),
    { test: "material_in", arg: ["brass", "oak"] },
    ...MATERIALS.map((m): Pred => ({ test: "material_not", arg: m })),
    ...FINISHES.map((f): Pred => ({ test: "finish_is", arg: f })),
    ...FINISHES.map((f): Pred => ({ test: "finish_not", arg: f })),
    { test: "weight_below", arg: 45 },
    { test: "weight_at_least", arg: 60 },
    ...BIN_IDS.map((b): Pred => ({ test: "in_bin", arg: b })),
    ...partIds.map((id): Pred => ({ test: "is_part", arg: id })),
  ];
}

describe("atelier rule sets: the table-built sets equal the definition (every placement/order tested)", () => {
  it("placement rules of every kind, over many rooms", () => {
    let checked = 0;
    for (const seed of SEEDS) {
      const { env } = generateRoom(seed);
      const ids = env.parts.map((p) => p.id);
      const rules: PlaceRule[] = [];
      for (let slot = 1; slot <= 6; slot++) {
        for (const p of preds(ids)) rules.push({ kind: "slot_holds", slot, ...p }, { kind: "slot_not", slot, ...p });
        for (let than = 1; than <= 6; than++) rules.push({ kind: "heavier", slot, than });
      }
      for (const part of ids) {
        rules.push({ kind: "part_in", part, slots: [1, 4] }, { kind: "part_in", part, slots: [2, 3, 6] });
        for (const p of preds(ids)) rules.push({ kind: "touches", part, ...p }, { kind: "touches_none", part, ...p });
      }
      for (const r of rules) {
        expect(Array.from(placeBits(r, env)), JSON.stringify(r)).toEqual(Array.from(placeBitsByScan(r, env)));
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10_000);
  });

  it("order rules of every kind, naming parts and slots, over many rooms", () => {
    for (const seed of SEEDS) {
      const { env } = generateRoom(seed);
      const refs = [...env.parts.map((p) => ({ part: p.id })), ...[1, 2, 3, 4, 5, 6].map((slot) => ({ slot }))];
      const rules: OrderRule[] = [];
      for (const a of refs) {
        for (let step = 1; step <= 6; step++) rules.push({ kind: "step", a, step });
        for (const b of refs) rules.push({ kind: "before", a, b }, { kind: "right_after", a, b });
      }
      for (const bin of BIN_IDS) for (const than of BIN_IDS) rules.push({ kind: "bin_before", bin, than });
      for (let slot = 1; slot <= 6; slot++) rules.push({ kind: "leads_neighbours", slot });
      for (const r of rules) {
        expect(Array.from(orderBits(r, env)), JSON.stringify(r)).toEqual(Array.from(orderBitsByScan(r, env)));
      }
    }
  });
});

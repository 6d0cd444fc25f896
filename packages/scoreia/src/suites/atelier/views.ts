/**
 * What each object shows. `surface` is the free glance (observe_chamber, `look` at an object):
 * what the object is, never its clue. `inspect` is the paid read: the clue text plus the same
 * facts as structured `data` (formats in docs/rooms/atelier.md). Neither ever holds an answer:
 * each clue alone leaves many candidates, only their combination leaves one.
 */

import type { Observation } from "../types.ts";
import type { Room } from "./generate.ts";
import { BIN_IDS } from "./model.ts";
import { boardText, boltText, lidText, manualText, numbered, orderRuleText, partText, placeRuleText } from "./text.ts";

/** Objects that appear when a stage opens (index = stage number, 0-based). */
export const STAGE_OBJECTS: readonly (readonly string[])[] = [[], ["board", "sketch"], ["blueprint"], ["bolt"]];

export function visibleObjects(room: Room, stage: number): string[] {
  const out = ["manual", ...BIN_IDS, ...room.parts.map((p) => p.id)];
  for (let s = 1; s <= Math.min(stage, STAGE_OBJECTS.length - 1); s++) out.push(...(STAGE_OBJECTS[s] ?? []));
  return out;
}

export function surface(room: Room, object: string): Observation {
  if (Object.hasOwn(room.env.index, object)) {
    return { text: `The ${object}, lying on the tray with a paper tag. Inspect it to read the tag.` };
  }
  const fixed: Record<string, string> = {
    manual: "A workshop manual, open at the sorting chapter. Inspect it to read it.",
    board: "A board with six numbered slots and engravings beside them. Inspect it to read them.",
    sketch: "A pencil sketch pinned above the board. Inspect it to read the notes.",
    blueprint: "The assembly blueprint. Inspect it to read the assembly notes.",
    bolt: "The door's bolt, held by a dial lock. Inspect it to read the plate.",
  };
  return { text: fixed[object] ?? `${object}: a wooden bin with a painted lid. Inspect it to read the lid.` };
}

export function inspect(room: Room, object: string): Observation {
  const part = room.parts.find((p) => p.id === object);
  if (part) {
    const { id, material, finish, weight, mark } = part;
    return { text: partText(part), data: { kind: "part", id, material, finish, weight_g: weight, mark } };
  }
  const bin = room.sort.rules.find((r) => r.bin === object);
  if (bin) {
    return { text: lidText(bin), data: { kind: "bin", id: bin.bin, leftover: bin.lid === null, lid: bin.lid } };
  }
  switch (object) {
    case "manual": {
      const s = room.sort;
      return {
        text: manualText(s),
        data: {
          kind: "manual",
          check_order: s.checkOrder,
          leftover: s.leftover,
          errata: s.rules.filter((r) => r.erratum).map((r) => ({ bin: r.bin, ...r.erratum })),
          addenda: s.rules.filter((r) => r.addendum).map((r) => ({ bin: r.bin, ...r.addendum })),
        },
      };
    }
    case "board": {
      const adjacency: Record<string, number[]> = {};
      room.board.adjacency.forEach((n, i) => {
        adjacency[String(i + 1)] = n;
      });
      return {
        text: `${boardText(room.board)} Engraved beside the slots: ${numbered(room.boardRules.map(placeRuleText))}`,
        data: { kind: "board", layout: room.board.layout, slots: 6, adjacency, rules: room.boardRules },
      };
    }
    case "sketch":
      return {
        text: `A pencil sketch pinned above the board. "Touches" means sits on a neighbouring slot. Notes: ${numbered(room.sketchRules.map(placeRuleText))}`,
        data: { kind: "sketch", rules: room.sketchRules },
      };
    case "blueprint":
      return {
        text: `Assembly blueprint. The six parts are fitted one at a time, first to sixth; "the part on slot n" means the part you placed there. Notes: ${numbered(room.orderRules.map(orderRuleText))}`,
        data: { kind: "blueprint", rules: room.orderRules },
      };
    case "bolt":
      return { text: boltText(room.bolt), data: { ...room.bolt, kind: "bolt", formula: room.bolt.kind } };
    default:
      throw new Error(`atelier: inspect of unknown object ${object}`);
  }
}

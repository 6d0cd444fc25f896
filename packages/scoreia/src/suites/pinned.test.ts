import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { generateRoom } from "./atelier/generate.ts";
import { buildRoom as buildChronoRoom } from "./chrono/room.ts";

describe("rooms are pinned: a seed always yields the same room (cards bind suite generation and seed)", () => {
  // Digests of the rooms this generation produced when it shipped; any change to what a seed
  // builds must come with a new suite generation, not a silent edit.
  it("atelier: 500 rooms", () => {
    const h = createHash("sha256");
    for (let i = 0; i < 500; i++) h.update(JSON.stringify(generateRoom(`golden-${i}`)));
    expect(h.digest("hex")).toBe("c785f07cefe2a6401f107ba81302153d34a6060e32641de5843305f08530acc0");
  });

  it("chrono: 500 rooms", () => {
    const h = createHash("sha256");
    for (let i = 0; i < 500; i++) h.update(JSON.stringify(buildChronoRoom(`golden-${i}`)));
    expect(h.digest("hex")).toBe("002ec5e5c1487e5677c5aaa225d2f7faee6b43ed7092c37cccdeaace55dd2390");
  });
});

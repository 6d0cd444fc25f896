import { termHits } from "../src/domains/graph/model.ts";
const words = Array.from({ length: 3000 }, (_, i) => Math.random().toString(36).slice(2, 2 + (i % 8) + 3));
const texts = Array.from({ length: 257 }, () => Array.from({ length: 14 }, () => words[Math.floor(Math.random() * 3000)]).join(" "));
for (let k = 0; k < 5; k++) {
  const t = performance.now();
  for (const x of texts) termHits(x, ["bzs", "abc"], "abc");
  console.log((performance.now() - t).toFixed(2), "ms");
}

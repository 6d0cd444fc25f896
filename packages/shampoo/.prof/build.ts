import { randomUUID } from "node:crypto";
import { iso, type Database } from "kernel";
import { contentHash, normalizeName } from "../src/domains/graph/model.ts";
import type { ShampooDB } from "../src/store/schema.ts";
const VOCAB = 30_000;
const OBS_PER_ENTITY = 5;
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function corpus(seed: number) {
  const r = rng(seed);
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const words: string[] = [];
  const seen = new Set<string>();
  while (words.length < VOCAB) {
    const len = 3 + Math.floor(r() * 8);
    let w = "";
    for (let i = 0; i < len; i++) w += letters[Math.floor(r() * 26)];
    if (!seen.has(w)) {
      seen.add(w);
      words.push(w);
    }
  }
  // Zipf(1.0) sampling through the cumulative harmonic weights.
  const cum: number[] = [];
  let total = 0;
  for (let i = 0; i < VOCAB; i++) {
    total += 1 / (i + 1);
    cum.push(total);
  }
  const word = () => {
    const x = r() * total;
    let lo = 0;
    let hi = VOCAB - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cum[mid] as number) < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo] as string;
  };
  return { r, word, words };
}

export async function buildCorpus(db: Database<ShampooDB>, n: number) {
  const { r, word } = corpus(42);
  const now = iso(Date.parse("2026-11-30T12:00:00Z"));
  const projects = ["alpha", "beta", "gamma", "delta"];
  const batch = db.dialect === "sqlite" ? 2000 : 1000;
  const names: string[] = [];
  for (let i = 0; i < n; i += batch) {
    await db.db.transaction().execute(async (trx) => {
      const ents = [];
      const obs = [];
      for (let j = i; j < Math.min(n, i + batch); j++) {
        const name = `${word()} ${word()} ${j}`;
        names.push(name);
        const id = randomUUID();
        ents.push({
          id,
          profile: "default",
          project: projects[j % projects.length] as string,
          name,
          name_norm: normalizeName(name),
          entity_type: ["person", "org", "place", "project", "tool"][Math.floor(r() * 5)] as string,
          alias_text: "",
          visibility: "shared" as const,
          status: "active" as const,
          created_at: now,
          created_by: "bench",
          updated_at: now,
          voided_at: null,
          voided_by: null,
          last_event_id: "bench",
        });
        for (let k = 0; k < OBS_PER_ENTITY; k++) {
          const len = 8 + Math.floor(r() * 12);
          const content = Array.from({ length: len }, word).join(" ");
          obs.push({
            id: randomUUID(),
            entity_id: id,
            profile: "default",
            content,
            content_hash: contentHash(content),
            ord: k + 1,
            status: "active" as const,
            created_at: now,
            created_by: "bench",
            voided_at: null,
            voided_by: null,
            last_event_id: "bench",
          });
        }
      }
      for (let k = 0; k < ents.length; k += 500)
        await trx
          .insertInto("shampoo_entities")
          .values(ents.slice(k, k + 500))
          .execute();
      for (let k = 0; k < obs.length; k += 500)
        await trx
          .insertInto("shampoo_observations")
          .values(obs.slice(k, k + 500))
          .execute();
    });
  }
  return names;
}

export function queries(n: number): string[] {
  const { r, word } = corpus(7);
  const names: string[] = [];
  const c2 = corpus(42);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const kind = i % 4;
    if (kind === 0) out.push(`${c2.word()} ${c2.word()} ${Math.floor(r() * 100000)}`);
    else if (kind === 1) out.push(word());
    else out.push(`${word()} ${word()}${kind === 3 ? ` ${word()}` : ""}`);
  }
  void names;
  return out;
}

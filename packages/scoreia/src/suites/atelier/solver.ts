/**
 * Reference solver for chambre-atelier-v0. It sees only what an agent sees through the port (the
 * entry, observations, results) and reads the structured `data` as documented in
 * docs/rooms/atelier.md. It imports nothing from the room's generator or model on purpose: the
 * rule semantics are re-implemented here from the docs, so a solved run also checks that the
 * public description is enough to solve the room.
 *
 * Strategy: look once, inspect every object once, decide each stage by exhaustive search (the
 * placement and the order each have only 720 candidates), and submit. When a stage opens, the
 * result lists the new objects; those are inspected next.
 */

import type { ActResult, AgentPort, RoomAction } from "../types.ts";

type Data = Record<string, unknown>;
interface Tag {
  id: string;
  material: string;
  finish: string;
  weight_g: number;
  mark: number;
}
/** A part test as spread into rules: `test` + `arg`. */
interface Test {
  test: string;
  arg: unknown;
}
type Ref = { part?: string; slot?: number };
type Rule = Data & Test & { kind: string };

/** What the room has told us so far: object id -> inspect data. */
class Notebook {
  readonly data = new Map<string, Data>();
  objects: string[];
  constructor(private readonly port: AgentPort) {
    this.objects = port.entry.objects;
  }
  async act(action: RoomAction): Promise<ActResult> {
    const r = await this.port.act(action);
    if (!r.ok) throw new Error(`atelier solver: ${action.op} refused (${r.code}): ${r.observation?.text ?? ""}`);
    this.objects = r.objects;
    return r;
  }
  /** Inspect every object not read yet. */
  async readAll(): Promise<void> {
    for (const o of this.objects) {
      if (this.data.has(o)) continue;
      const r = await this.act({ op: "inspect", object: o });
      this.data.set(o, (r.observation?.data ?? {}) as Data);
    }
  }
  ofKind(kind: string): Data[] {
    return [...this.data.values()].filter((d) => d.kind === kind);
  }
  one(kind: string): Data {
    const d = this.ofKind(kind)[0];
    if (!d) throw new Error(`atelier solver: no ${kind} observed`);
    return d;
  }
  /** Submit candidates in turn until one is right (the room promises one candidate). */
  async submit(op: RoomAction["op"], candidates: Array<string | string[]>): Promise<void> {
    for (const value of candidates) {
      const r = await this.act({ op, value });
      if (r.correct) return;
      if (r.terminal) break;
    }
    throw new Error(`atelier solver: no candidate accepted for ${op}`);
  }
}

export async function solveAtelier(port: AgentPort): Promise<void> {
  const nb = new Notebook(port);
  await nb.act({ op: "look" });

  // Stage 1: the bins form a decision list; lids and manual together give each bin's rule.
  await nb.readAll();
  const parts = nb.ofKind("part") as unknown as Tag[];
  const bins = sortParts(parts, nb);
  await nb.submit("submit_bins", [parts.map((p) => `${p.id}:${bins[p.id]}`)]);

  // Stage 2: every placement of six parts on six slots, filtered by board and sketch rules.
  await nb.readAll();
  const board = nb.one("board");
  const adjacency = board.adjacency as Record<string, number[]>;
  const placeRules = [...(board.rules as Rule[]), ...(nb.one("sketch").rules as Rule[])];
  const byId = new Map(parts.map((p) => [p.id, p]));
  const placements = permutations(parts.map((p) => p.id)).filter((at) =>
    placeRules.every((r) => placeOk(r, at, adjacency, byId, bins)),
  );
  await nb.submit(
    "submit_placement",
    placements.map((at) => at.map((id, i) => `${i + 1}:${id}`)),
  );
  const placement = placements[0] as string[];

  // Stage 3: every order, filtered by the blueprint (slot references resolve via the placement).
  await nb.readAll();
  const orderRules = nb.one("blueprint").rules as Rule[];
  const orders = permutations(parts.map((p) => p.id)).filter((seq) =>
    orderRules.every((r) => orderOk(r, seq, placement, adjacency, bins)),
  );
  await nb.submit("submit_order", orders);
  const order = orders[0] as string[];

  // Stage 4: evaluate the plate's formula.
  await nb.readAll();
  await nb.submit("submit_bolt", [boltCode(nb.one("bolt"), byId, bins, placement, order)]);
}

function test(t: Test, p: Tag, bins: Record<string, string>): boolean {
  switch (t.test) {
    case "material_in":
      return (t.arg as string[]).includes(p.material);
    case "material_not":
      return p.material !== t.arg;
    case "finish_is":
      return p.finish === t.arg;
    case "finish_not":
      return p.finish !== t.arg;
    case "weight_below":
      return p.weight_g < (t.arg as number);
    case "weight_at_least":
      return p.weight_g >= (t.arg as number);
    case "is_part":
      return p.id === t.arg;
    case "in_bin":
      return bins[p.id] === t.arg;
    default:
      throw new Error(`atelier solver: unknown test ${t.test}`);
  }
}

function sortParts(parts: Tag[], nb: Notebook): Record<string, string> {
  const manual = nb.one("manual");
  const lids = new Map(nb.ofKind("bin").map((b) => [b.id as string, b]));
  const errata = manual.errata as Array<Test & { bin: string }>;
  const addenda = manual.addenda as Array<Test & { bin: string }>;
  const out: Record<string, string> = {};
  for (const p of parts) {
    out[p.id] = manual.leftover as string;
    for (const bin of manual.check_order as string[]) {
      const lid = errata.find((e) => e.bin === bin) ?? (lids.get(bin)?.lid as Test | null);
      if (!lid || !test(lid, p, {})) continue;
      const extra = addenda.find((a) => a.bin === bin);
      if (extra && !test(extra, p, {})) continue;
      out[p.id] = bin;
      break;
    }
  }
  return out;
}

function placeOk(
  r: Rule,
  at: string[],
  adjacency: Record<string, number[]>,
  byId: Map<string, Tag>,
  bins: Record<string, string>,
): boolean {
  const on = (slot: number) => byId.get(at[slot - 1] as string) as Tag;
  const slotOf = (id: string) => at.indexOf(id) + 1;
  const near = (id: string) => (adjacency[String(slotOf(id))] ?? []).map(on);
  switch (r.kind) {
    case "slot_holds":
      return test(r, on(r.slot as number), bins);
    case "slot_not":
      return !test(r, on(r.slot as number), bins);
    case "heavier":
      return on(r.slot as number).weight_g > on(r.than as number).weight_g;
    case "part_in":
      return (r.slots as number[]).includes(slotOf(r.part as string));
    case "touches":
      return near(r.part as string).some((q) => test(r, q, bins));
    case "touches_none":
      return !near(r.part as string).some((q) => test(r, q, bins));
    default:
      throw new Error(`atelier solver: unknown placement rule ${r.kind}`);
  }
}

function orderOk(
  r: Rule,
  seq: string[],
  placement: string[],
  adjacency: Record<string, number[]>,
  bins: Record<string, string>,
): boolean {
  const id = (x: Ref) => (x.part ?? placement[(x.slot as number) - 1]) as string;
  const step = (x: Ref) => seq.indexOf(id(x)) + 1;
  switch (r.kind) {
    case "before":
      return step(r.a as Ref) < step(r.b as Ref);
    case "right_after":
      return step(r.a as Ref) === step(r.b as Ref) + 1;
    case "step":
      return step(r.a as Ref) === r.step;
    case "bin_before": {
      const steps = (bin: unknown) => seq.filter((p) => bins[p] === bin).map((p) => seq.indexOf(p));
      return Math.max(...steps(r.bin)) < Math.min(...steps(r.than));
    }
    case "leads_neighbours": {
      const own = step({ slot: r.slot as number });
      return (adjacency[String(r.slot)] ?? []).every((s) => own < step({ slot: s }));
    }
    default:
      throw new Error(`atelier solver: unknown order rule ${r.kind}`);
  }
}

function boltCode(
  f: Data,
  byId: Map<string, Tag>,
  bins: Record<string, string>,
  placement: string[],
  order: string[],
): string {
  const mark = (id: string) => (byId.get(id) as Tag).mark;
  switch (f.formula) {
    case "marks_skip_bin":
      return order
        .filter((id) => bins[id] !== f.bin)
        .map(mark)
        .join("");
    case "mark_plus_slot":
      return order
        .slice(0, f.dials as number)
        .map((id) => (mark(id) + placement.indexOf(id) + 1) % 10)
        .join("");
    case "steps_of_slots":
      return (f.slots as number[]).map((s) => order.indexOf(placement[s - 1] as string) + 1).join("");
    default:
      throw new Error(`atelier solver: unknown bolt formula ${String(f.formula)}`);
  }
}

function permutations<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [items.slice()];
  const out: T[][] = [];
  items.forEach((x, i) => {
    for (const rest of permutations([...items.slice(0, i), ...items.slice(i + 1)])) out.push([x, ...rest]);
  });
  return out;
}

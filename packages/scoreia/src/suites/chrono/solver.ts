/**
 * Reference solver for chambre-chrono-v0. It sees only what an agent sees through the AgentPort
 * (entry, observations, submission results) and reasons the way an agent should:
 *   1. drifts: the noon signal fixes one clock; each clock's card chains the others to it;
 *   2. true times: reading minus drift for the two readings, then the logbook's gaps;
 *   3. order and last time follow; the drawer and bolt formulas are evaluated from them;
 *   4. the master key is the only one satisfying every constraint of the note.
 * It never imports the room generator or the oracle; it parses the documented `data` payloads.
 */
import type { ActResult, AgentPort, RoomAction } from "../types.ts";

type Data = Record<string, unknown>;

function rec(v: unknown, what: string): Data {
  if (typeof v !== "object" || v === null || Array.isArray(v)) throw new Error(`solver: ${what} is not an object`);
  return v as Data;
}
function list(v: unknown, what: string): unknown[] {
  if (!Array.isArray(v)) throw new Error(`solver: ${what} is not a list`);
  return v;
}
function str(v: unknown, what: string): string {
  if (typeof v !== "string") throw new Error(`solver: ${what} is not a string`);
  return v;
}
function num(v: unknown, what: string): number {
  if (typeof v !== "number") throw new Error(`solver: ${what} is not a number`);
  return v;
}

function toMinutes(hhmm: string): number {
  const [h, m] = hhmm.split(":").map(Number);
  return (h ?? 0) * 60 + (m ?? 0);
}
function toHHMM(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, "0")}:${String(minutes % 60).padStart(2, "0")}`;
}

export async function solveChrono(port: AgentPort): Promise<void> {
  const call = async (action: RoomAction): Promise<ActResult> => {
    const r = await port.act(action);
    if (!r.ok) throw new Error(`solver: ${action.op} ${action.object ?? ""} refused (${r.code})`);
    return r;
  };
  const inspect = async (object: string): Promise<Data> =>
    rec((await call({ op: "inspect", object })).observation?.data, object);
  const submit = async (op: RoomAction["op"], value: string | string[]): Promise<void> => {
    const r = await call({ op, value });
    if (r.correct !== true) throw new Error(`solver: ${op} ${JSON.stringify(value)} was wrong: ${r.observation?.text}`);
  };

  const room = await call({ op: "look" });
  const logbook = await inspect("logbook");
  // One call at a time: a real session numbers actions (expected_action_index).
  const cards: Data[] = [];
  for (const o of room.objects.filter((x) => x.startsWith("clock_"))) cards.push(await inspect(o));
  const calendar = await inspect("calendar");
  const drawer = await inspect("drawer");
  const rack = await inspect("key_rack");

  // 1. Clock drifts (minutes ahead of true time): the noon signal anchors one clock, cards chain the rest.
  const drift = new Map<string, number>();
  const signal = rec(calendar.noon_signal, "noon_signal");
  drift.set(str(signal.clock, "signal clock"), toMinutes(str(signal.showed, "signal reading")) - 12 * 60);
  for (let changed = true; changed; ) {
    changed = false;
    for (const card of cards) {
      const clock = str(card.clock, "clock");
      const ref = drift.get(String(card.compared_with));
      if (drift.has(clock) || ref === undefined) continue;
      const m = num(card.minutes, "card minutes");
      drift.set(clock, card.relation === "ahead" ? ref + m : ref - m);
      changed = true;
    }
  }

  // 2. True times: readings corrected by drift, then propagate the gaps both ways.
  const events = list(logbook.events, "events").map((e) => str(rec(e, "event").id, "event id"));
  const entries = list(logbook.entries, "entries").map((e) => rec(e, "entry"));
  const when = new Map<string, number>();
  for (const e of entries) {
    if (e.kind !== "reading") continue;
    const d = drift.get(str(e.clock, "clock"));
    if (d === undefined) throw new Error("solver: a reading's clock has no known drift");
    when.set(str(e.event, "event"), toMinutes(str(e.reading, "reading")) - d);
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const e of entries) {
      if (e.kind !== "relative") continue;
      const a = str(e.event, "event");
      const b = str(e.other, "other");
      const gap = e.relation === "after" ? num(e.minutes, "minutes") : -num(e.minutes, "minutes");
      const ta = when.get(a);
      const tb = when.get(b);
      if (ta === undefined && tb !== undefined) when.set(a, tb + gap);
      else if (tb === undefined && ta !== undefined) when.set(b, ta - gap);
      else continue;
      changed = true;
    }
  }
  const at = (id: string): number => {
    const t = when.get(id);
    if (t === undefined) throw new Error(`solver: no true time for ${id}`);
    return t;
  };
  const order = [...events].sort((x, y) => at(x) - at(y));
  const first = at(order[0] ?? "");
  const last = at(order[order.length - 1] ?? "");

  await submit("submit_sequence", order);
  await submit("submit_time", toHHMM(last));

  // 3. The drawer: evaluate the engraved sum of products.
  const day = num(calendar.day, "day");
  let master: Data = {};
  let drawerNumber = 0;
  const value = (f: Data): number => {
    if (typeof f.n === "number") return f.n;
    switch (f.q) {
      case "span":
        return last - first;
      case "day":
        return day;
      case "position":
        return order.indexOf(str(f.event, "event")) + 1;
      case "last_hhmm":
        return Math.floor(last / 60) * 100 + (last % 60);
      case "first_minutes":
        return first;
      case "gap":
        return Math.abs(at(str(f.event, "event")) - at(str(f.other, "other")));
      case "last_minute":
        return last % 60;
      case "key_teeth":
        return num(master.teeth, "teeth");
      case "key_hour":
        return num(master.hour, "hour");
      case "drawer":
        return drawerNumber;
      default:
        throw new Error(`solver: unknown quantity ${String(f.q)}`);
    }
  };
  const evaluate = (formula: Data): number => {
    let total = 0;
    for (const term of list(formula.terms, "terms")) {
      total += list(term, "term").reduce<number>((p, f) => p * value(rec(f, "factor")), 1);
    }
    return typeof formula.mod === "number" ? total % formula.mod : total;
  };
  drawerNumber = evaluate(rec(drawer.formula, "drawer formula"));
  await submit("submit_number", String(drawerNumber));

  // 4. The master key: filter the rack by every constraint of the note.
  const note = await inspect("note");
  const constraints = list(note.constraints, "constraints").map((c) => rec(c, "constraint"));
  const holds = (key: Data, c: Data): boolean => {
    const v = key[str(c.prop, "prop")];
    switch (c.rule) {
      case "equals_event_hour":
        return v === ((Math.floor(at(str(c.event, "event")) / 60) + 11) % 12) + 1;
      case "equals_position_plus":
        return v === order.indexOf(str(c.event, "event")) + 1 + num(c.value, "value");
      case "greater_than":
        return num(v, "value") > num(c.value, "value");
      case "less_than":
        return num(v, "value") < num(c.value, "value");
      case "odd":
        return num(v, "value") % 2 === 1;
      case "even":
        return num(v, "value") % 2 === 0;
      case "is":
        return v === c.value;
      case "is_not":
        return v !== c.value;
      default:
        throw new Error(`solver: unknown rule ${String(c.rule)}`);
    }
  };
  const keys = list(rack.keys, "keys").map((k) => rec(k, "key"));
  const fits = keys.filter((k) => constraints.every((c) => holds(k, c)));
  if (fits.length !== 1 || !fits[0]) throw new Error(`solver: ${fits.length} keys fit the note`);
  master = fits[0];
  await submit("submit_master", str(master.label, "label"));

  // 5. The bolt: the plate is readable now that the key is turned.
  const door = await inspect("door");
  await submit("submit_bolt", String(evaluate(rec(door.formula, "bolt formula"))));
}

import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import type { JsonSchema } from "kernel";
import { canWrite, scopeDenied } from "../../../access/caller.ts";
import type { ShampooCtx } from "../../../context.ts";
import { fail, given } from "../../../platform/errors.ts";
import { createRow, recordChange } from "../../../platform/rows.ts";
import { type WriteScope, write } from "../../../platform/write.ts";
import { entityInput } from "../../graph/service/entities.ts";
import { tripleInput } from "../../graph/service/relations.ts";
import { create_entities } from "../../graph/tools/create_entities.ts";
import { create_relations } from "../../graph/tools/create_relations.ts";
import type { CreateTaskOrNoteInput } from "../../tasks/inputs.gen.ts";
import { taskCreation } from "../../tasks/service/write.ts";
import { create_task_or_note } from "../../tasks/tools/create_task_or_note.ts";
import { digestOf, idText, itemEventView, pinText, stamp } from "../model.ts";
import type { InboundItemRow } from "../schema.ts";
import { itemByKey, nextNumber } from "../store.ts";

/**
 * The writer side of inbound review (`shampoo inbound stage FILE`): a document of tasks,
 * entities and relations, each validated exactly as its creation tool validates its arguments
 * (that tool's inputSchema, then the module's own shape checks and the stager's grant on the
 * target project), all before anything is written; then one write stages them all.
 *
 *   {"quorum_id": "…", "tasks": [{"key": "k1", "title": "…", "project": "p"}],
 *    "entities": [{"name": "…", "entityType": "…", "observations": ["…"], "project": "p"}],
 *    "relations": [{"from": "…", "to": "…", "relationType": "…"}]}
 *
 * `key` (optional) names an item across stagings: staging the same key again while the item is
 * pending replaces its content (revision + 1, a new digest, so a pin taken before fails); a key
 * whose item was already decided is refused.
 */

const ajv = new Ajv2020({ strict: false, allErrors: true });
const schemas = new Map<string, ValidateFunction>();
function validator(name: string, schema: JsonSchema): ValidateFunction {
  let v = schemas.get(name);
  if (!v) {
    v = ajv.compile(schema as object);
    schemas.set(name, v);
  }
  return v;
}

export class StageError extends Error {}

type Item = {
  letter: InboundItemRow["item_kind"];
  key: string | null;
  project: string | null;
  content: Record<string, unknown>;
};

const DOC_KEYS = ["quorum_id", "tasks", "entities", "relations"];
const MAX_ITEMS = 5000;

function check(name: string, schema: JsonSchema, args: unknown, where: string): void {
  const v = validator(name, schema);
  if (!v(args)) {
    const why = (v.errors ?? []).map((e) => `${e.instancePath || "item"} ${e.message ?? "is invalid"}`).join("; ");
    throw new StageError(`${where}: ${why}`);
  }
}

/** Splits an entry into its stage key and the creation tool's arguments. */
function split(entry: unknown, where: string): { key: string | null; args: Record<string, unknown> } {
  if (!entry || typeof entry !== "object" || Array.isArray(entry)) throw new StageError(`${where} must be an object`);
  const { key, ...args } = entry as Record<string, unknown>;
  if (key !== undefined && (typeof key !== "string" || key.trim() === "" || key.length > 200)) {
    throw new StageError(`${where}.key must be a non-blank string of at most 200 characters`);
  }
  return { key: (key as string | undefined) ?? null, args };
}

/** Every check, before anything is written: a document with one bad item stages nothing. */
export function parseStageDocument(ctx: ShampooCtx, text: string): { quorumId: string | null; items: Item[] } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new StageError(`not JSON: ${(e as Error).message}`);
  }
  if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw new StageError("the document must be a JSON object");
  const d = doc as Record<string, unknown>;
  const stray = Object.keys(d).find((k) => !DOC_KEYS.includes(k));
  if (stray) throw new StageError(`unknown key ${JSON.stringify(stray)} (only ${DOC_KEYS.join(", ")})`);
  const list = (k: string): unknown[] => {
    if (d[k] === undefined) return [];
    if (!Array.isArray(d[k])) throw new StageError(`${k} must be an array`);
    return d[k] as unknown[];
  };
  const items: Item[] = [];
  const guard = (e: unknown, where: string): never => {
    throw new StageError(`${where}: ${e instanceof Error ? e.message : String(e)}`);
  };
  for (const [i, entry] of list("tasks").entries()) {
    const where = `tasks[${i}]`;
    const { key, args } = split(entry, where);
    check("create_task_or_note", create_task_or_note.inputSchema, args, where);
    try {
      taskCreation(ctx, args as unknown as CreateTaskOrNoteInput); // its checks only; the write runs on approval
    } catch (e) {
      guard(e, where);
    }
    items.push({ letter: "t", key, project: given(args.project) ?? null, content: args });
  }
  for (const [i, entry] of list("entities").entries()) {
    const where = `entities[${i}]`;
    const { key, args } = split(entry, where);
    check("create_entities", create_entities.inputSchema, { entities: [args] }, where);
    let project: string | null = null;
    try {
      project = entityInput(args as Parameters<typeof entityInput>[0]).project;
    } catch (e) {
      guard(e, where);
    }
    if (project !== null && !canWrite(ctx.caller, project)) guard(scopeDenied(), where);
    items.push({ letter: "e", key, project, content: args });
  }
  for (const [i, entry] of list("relations").entries()) {
    const where = `relations[${i}]`;
    const { key, args } = split(entry, where);
    check("create_relations", create_relations.inputSchema, { relations: [args] }, where);
    try {
      tripleInput(args as Parameters<typeof tripleInput>[0]);
    } catch (e) {
      guard(e, where);
    }
    items.push({ letter: "r", key, project: null, content: args });
  }
  if (items.length > MAX_ITEMS) throw new StageError(`at most ${MAX_ITEMS} items per document`);
  const keys = new Set<string>();
  for (const it of items) {
    if (it.key === null) continue;
    const k = `${it.letter}:${it.key}`;
    if (keys.has(k)) throw new StageError(`key ${it.key} is used twice`);
    keys.add(k);
  }
  const q = given(d.quorum_id);
  if (d.quorum_id !== undefined && (typeof d.quorum_id !== "string" || q === undefined)) {
    throw new StageError("quorum_id must be a quorum's id");
  }
  return { quorumId: q?.toLowerCase() ?? null, items };
}

async function stageOne(w: WriteScope, it: Item, quorumId: string | null): Promise<Record<string, unknown>> {
  const profile = w.ctx.caller.profile;
  const digest = digestOf(it.content);
  const contentJson = JSON.stringify(it.content);
  const old = it.key === null ? undefined : await itemByKey(w.trx, profile, it.letter, it.key);
  if (old) {
    if (old.state !== "pending") {
      throw new StageError(`key ${it.key} names ${idText(old)}, already ${old.state}: stage it under a new key`);
    }
    if (old.digest === digest && old.project === it.project && old.quorum_id === quorumId) {
      return { id: idText(old), pin: pinText(old), action: "unchanged" };
    }
    const set = {
      content_json: contentJson,
      digest,
      project: it.project,
      quorum_id: quorumId,
      revision: old.revision + 1,
      staged_by: w.ctx.caller.principal,
      updated_at: stamp(w.now),
    } satisfies Partial<InboundItemRow>;
    const next = { ...old, ...set };
    const eventId = await recordChange(w, {
      kind: "inbound_item",
      id: idText(old),
      action: "restage",
      old,
      next,
      view: itemEventView,
    });
    await w.trx
      .updateTable("shampoo_inbound_items")
      .set({ ...set, last_event_id: eventId })
      .where("profile", "=", profile)
      .where("item_kind", "=", old.item_kind)
      .where("n", "=", old.n)
      .execute();
    return { id: idText(next), pin: pinText(next), action: "updated" };
  }
  const n = await nextNumber(w.trx, w.engine, profile, it.letter);
  const at = stamp(w.now);
  const row = await createRow(w, {
    table: "shampoo_inbound_items",
    kind: "inbound_item",
    id: `${it.letter}:${n}`,
    action: "stage",
    view: itemEventView,
    row: {
      profile,
      item_kind: it.letter,
      n,
      stage_key: it.key,
      state: "pending",
      project: it.project,
      quorum_id: quorumId,
      content_json: contentJson,
      digest,
      revision: 1,
      staged_by: w.ctx.caller.principal,
      staged_at: at,
      updated_at: at,
      decided_by: null,
      decided_at: null,
      decide_reason: null,
      result_json: null,
    },
  });
  return { id: idText(row), pin: pinText(row), action: "created" };
}

/** Stages a document in one write: every item or none. Answers each item's id, pin and action. */
export async function stageInbound(ctx: ShampooCtx, text: string): Promise<{ staged: Record<string, unknown>[] }> {
  const { quorumId, items } = parseStageDocument(ctx, text);
  return write(ctx, async (w) => {
    if (quorumId !== null) {
      const q = await w.trx
        .selectFrom("shampoo_quorums")
        .select("status")
        .where("profile", "=", ctx.caller.profile)
        .where("id", "=", quorumId)
        .executeTakeFirst();
      if (!q) throw fail("unknown_quorum", "unknown_quorum: no such quorum");
    }
    const staged: Record<string, unknown>[] = [];
    for (const it of items) staged.push(await stageOne(w, it, quorumId));
    return { staged };
  });
}

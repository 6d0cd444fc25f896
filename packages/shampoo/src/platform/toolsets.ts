import { MODERN_PROTOCOL_VERSIONS, type SessionInfo, ToolSelectionError } from "kernel";
import type { Caller } from "../access/caller.ts";
import { fail } from "./errors.ts";
import type { Module } from "./module.ts";
import { intersect, ProfileError, parseProfile, type ToolProfile } from "./profiles.ts";

/**
 * Toolsets (issue 22): the categories of tools a session sees. Hosts carry few tools (Cursor
 * passes its agent the first 40, Windsurf refuses more than 50), so `shampoo serve` starts every
 * session with DEFAULT_TOOLSETS, the everyday set of one agent, and a session widens it itself:
 *
 * - allowance: what the caller may ever see, the `--tools` flag ∩ its config entry's `"tools"`
 *   (absent: every tool). Nothing here ever goes beyond it.
 * - start: what a session begins with: the endpoint URL's `?toolsets=` (HTTP, both eras), else the
 *   allowance when a flag or config entry names one, else the server's default (startWith).
 * - enabled: start plus what `enable_toolset` added in this session (stdio: the process; 2025
 *   HTTP: the Mcp-Session-Id). A 2026-07-28 request has no session: it sees its start.
 *
 * The two meta-tools are listed (first) only while a session starts narrower than its allowance:
 * `list_toolsets` always then, `enable_toolset` where there is a session to widen.
 */
export const DEFAULT_TOOLSETS = ["tasks", "graph", "sessions"] as const;
export const LIST_TOOLSETS = "list_toolsets";
export const ENABLE_TOOLSET = "enable_toolset";
export const META_TOOLS: ReadonlySet<string> = new Set([LIST_TOOLSETS, ENABLE_TOOLSET]);

/**
 * 2026-07-28 has no session (its HTTP requests arrive as "stateless"; over stdio too, a list change
 * would be news for subscriptions/listen only): nothing is enabled for later requests there.
 */
const sessionless = (s: SessionInfo) =>
  s.sessionId === "stateless" || (MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(s.protocolVersion ?? "");
/** Sessions whose enabled toolsets are remembered (oldest forgotten first): memory stays bounded. */
const MAX_SESSIONS = 10_000;

export const TOOLSET_DESCRIPTIONS: Record<string, string> = {
  tasks:
    "Tasks and notes: create, update, assign, query, find by a remembered phrase, what to do next, digests, sweeps.",
  graph: "Knowledge graph: entities, observations and relations; search and read them.",
  links: "Links between tasks and graph entities: manual, auto-discovered, suggested.",
  sessions: "Sessions: save, recall, resume with a handoff pack, close.",
  governance:
    "Context governance: chunks, candidate claims, promotion, facts over time, context packs, audits, replay.",
  reflection: "Reflection: memory-quality audits, runs, decisions, apply.",
  debate: "Structured debate: topics, roles and bindings, addressed posts and receipts, blind debate/v1 with judges.",
  health: "Health: the doctor's diagnostics, licence information, status of the session and the service.",
  auth: "Auth and sessions registry: hybrid handshakes, enrolment tickets, registry sessions, revocation.",
  coordination: "Coordination: quorums (what was agreed), lanes (reviewed streams of work), jobs (fenced leases).",
  inbound: "Inbound review: staged tasks and knowledge, listed with their diffs, approved or rejected.",
};

export interface Toolset {
  name: string;
  description: string;
  tools: readonly string[];
}

export interface ToolsetStatus {
  name: string;
  description: string;
  /** Tools of this toolset the caller may use (its allowance). */
  tools: number;
  /** Every one of those is on in this session. */
  enabled: boolean;
}

/** What one request's session may see and do with its toolsets (ShampooCtx.toolsets). */
export interface ToolsetView {
  visible(name: string): boolean;
  /** Whether enable_toolset can widen this session (2025 era: stdio, HTTP; not 2026-07-28). */
  readonly sessionful: boolean;
  list(): ToolsetStatus[];
  enable(name: string): Promise<{ added: string[]; notAllowed: string[] }>;
}

export function toolsetsOf(modules: readonly Module[]): Toolset[] {
  return modules
    .filter((m) => m.tools.length > 0)
    .map((m) => {
      const tools = m.tools.map((t) => t.name);
      return { name: m.name, description: TOOLSET_DESCRIPTIONS[m.name] ?? `${tools.join(", ")}.`, tools };
    });
}

const has = (set: ReadonlySet<string>, sub: Iterable<string>) => [...sub].every((n) => set.has(n));

/** How a host widens what it sees, said wherever a session is refused or told its toolsets. */
export const HOW_TO_WIDEN =
  'stdio: `shampoo serve --tools all` (or a list of toolsets); HTTP: the endpoint URL `/mcp?toolsets=tasks,graph` or the principal\'s config entry `"tools"`; during a session (stdio, 2025 HTTP): enable_toolset';

export class Toolsets {
  readonly catalog: Toolset[];
  readonly #all: ReadonlySet<string>;
  readonly #enabled = new Map<string, Set<string>>();

  /**
   * `served`: the server's allowance (--tools; absent: every tool). `startWith`: what a session
   * starts with when neither the flag nor the caller's config entry names its tools.
   */
  constructor(
    private readonly modules: readonly Module[],
    private readonly served: ToolProfile | undefined,
    private readonly startWith: ToolProfile | undefined,
  ) {
    this.catalog = toolsetsOf(modules);
    this.#all = new Set(this.catalog.flatMap((t) => t.tools));
  }

  view(session: SessionInfo, caller: Caller): ToolsetView {
    const allowance = intersect(this.served, caller.tools) ?? this.#all;
    const explicit = this.served !== undefined || caller.tools !== undefined;
    const fromUrl = this.#fromUrl(session.url, allowance, caller.principal);
    const start =
      fromUrl ?? (explicit || !this.startWith ? allowance : (intersect(this.startWith, allowance) ?? allowance));
    const sessionful = !sessionless(session);
    const key = `${caller.principal}\u0000${session.sessionId}`;
    const enabled = (): ReadonlySet<string> => {
      const added = sessionful ? this.#enabled.get(key) : undefined;
      return added ? new Set([...start, ...added]) : start;
    };
    const narrower = !has(start, allowance);
    const meta = new Set(narrower ? (sessionful ? [LIST_TOOLSETS, ENABLE_TOOLSET] : [LIST_TOOLSETS]) : []);
    return {
      sessionful,
      visible: (name) => (META_TOOLS.has(name) ? meta.has(name) : enabled().has(name)),
      list: () => {
        const on = enabled();
        return this.catalog.map((t) => {
          const allowed = t.tools.filter((n) => allowance.has(n));
          const enabled = allowed.length > 0 && has(on, allowed);
          return { name: t.name, description: t.description, tools: allowed.length, enabled };
        });
      },
      enable: async (name) => {
        const names = name === "all" ? [...this.#all] : this.catalog.find((t) => t.name === name)?.tools;
        if (!names) {
          throw fail(
            "unknown_toolset",
            `unknown toolset ${JSON.stringify(name)} (toolsets: all, ${this.catalog.map((t) => t.name).join(", ")})`,
          );
        }
        const allowed = names.filter((n) => allowance.has(n));
        if (allowed.length === 0) {
          throw fail(
            "toolset_not_allowed",
            `toolset ${name} is outside what ${caller.principal} may use (allowed: ${this.#describe(allowance)}); ` +
              "the server's --tools and this principal's config entry decide that",
          );
        }
        const before = enabled();
        const added = allowed.filter((n) => !before.has(n));
        if (added.length > 0) {
          const set = this.#enabled.get(key) ?? new Set<string>();
          for (const n of added) set.add(n);
          this.#enabled.delete(key); // re-inserted last: the most recently widened is forgotten last
          this.#enabled.set(key, set);
          if (this.#enabled.size > MAX_SESSIONS) this.#enabled.delete(this.#enabled.keys().next().value as string);
          await session.toolsChanged?.();
        }
        return { added, notAllowed: names.filter((n) => !allowance.has(n)) };
      },
    };
  }

  /** The `?toolsets=` of the endpoint URL, within the allowance ("all": all of it); else a refusal. */
  #fromUrl(url: string | undefined, allowance: ReadonlySet<string>, principal: string): ToolProfile | undefined {
    if (!url?.includes("toolsets=")) return undefined;
    const words = new URL(url).searchParams.getAll("toolsets");
    if (words.length === 0) return undefined;
    const items = words.flatMap((w) => w.split(",").map((x) => x.trim())).filter((w) => w !== "");
    if (items.length === 0) throw new ToolSelectionError("toolsets= in the endpoint URL names no toolset");
    const rest = items.filter((w) => w !== "all");
    let asked: ToolProfile = new Set();
    try {
      if (rest.length > 0) asked = parseProfile(rest, this.modules, "toolsets= in the endpoint URL");
    } catch (e) {
      if (e instanceof ProfileError) throw new ToolSelectionError(e.message);
      throw e;
    }
    const outside = [...asked].filter((n) => !allowance.has(n));
    if (outside.length > 0) {
      throw new ToolSelectionError(
        `toolsets= in the endpoint URL asks for ${this.#describe(new Set(outside))}, which ${principal} may not use ` +
          `(allowed: ${this.#describe(allowance)})`,
      );
    }
    return items.includes("all") ? allowance : asked;
  }

  /** An allowance in words: its whole toolsets by name, then any single tools. */
  #describe(allowance: ReadonlySet<string>): string {
    if (has(allowance, this.#all)) return "all";
    const whole = this.catalog.filter((t) => has(allowance, t.tools));
    const covered = new Set(whole.flatMap((t) => t.tools));
    return [...whole.map((t) => t.name), ...[...allowance].filter((n) => !covered.has(n))].join(", ");
  }
}

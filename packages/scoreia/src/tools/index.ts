import {
  type Clock,
  DomainError,
  type ErrorObjectLike,
  type Rejection,
  type SessionInfo,
  type ToolDef,
  type ToolOutput,
  ToolRegistry,
} from "kernel";
import type { CallContext, ChamberService, Envelope } from "../attempts/service.ts";
import { ALIASES, ALIASES_SUPPORTED_UNTIL, aliasesAllowed, type Toolset, toolDef } from "../contract/index.ts";

/**
 * The five Chamber tools. Schemas are the contract's, published verbatim; each handler is one
 * call into the attempt service. Every failure is an `{ok:false, code, error}` envelope with
 * `isError: true`; unknown tool names never reach here (JSON-RPC -32602).
 */
export const TOOL_NAMES = [
  "enter_open_challenge",
  "observe_chamber",
  "chamber_action",
  "call_for_help",
  "seal_attempt",
] as const;

export interface ChamberToolsOptions {
  service: ChamberService;
  clock: Clock;
  /** Runs launched by ScoreIA itself (never set for the public door). */
  controlled?: boolean;
}

/** `_meta` key a client may use to pin the toolset it was written for. */
export const TOOLSET_PIN_META = "scoreia/toolset_id";

export function callContext(session: SessionInfo, controlled = false): CallContext {
  const client = session.clientInfo();
  const pin = session.meta?.[TOOLSET_PIN_META];
  return {
    mcpSession: session.sessionId,
    ...(client ? { clientInfo: client as CallContext["clientInfo"] } : {}),
    ...(typeof pin === "string" ? { pinnedToolset: pin } : {}),
    controlled,
  };
}

export function chamberRegistry(toolset: Toolset, opts: ChamberToolsOptions): ToolRegistry<CallContext> {
  const { service } = opts;
  const handlers: Record<
    (typeof TOOL_NAMES)[number],
    (a: Record<string, unknown>, c: CallContext) => Promise<Envelope>
  > = {
    enter_open_challenge: (a, c) => service.enter(a, c),
    observe_chamber: (a, c) => service.observe(a, c),
    chamber_action: (a, c) => service.act(a, c),
    call_for_help: (a, c) => service.callForHelp(a, c),
    seal_attempt: (a, c) => service.seal(a, c),
  };
  const tools: ToolDef<CallContext>[] = TOOL_NAMES.map((name) => {
    const def = toolDef(toolset, name);
    return {
      name,
      title: def.purpose,
      description: def.description,
      inputSchema: def.inputSchema,
      outputSchema: def.outputSchema,
      annotations: ANNOTATIONS[name],
      handler: async (args, ctx) => ({ structuredContent: await handlers[name](args, ctx) }),
    };
  });
  return new ToolRegistry<CallContext>({
    tools,
    limits: {
      maxRequestBytes: toolset.limits.max_request_bytes,
      maxJsonDepth: toolset.limits.max_json_depth,
      maxArrayItems: toolset.limits.max_array_items,
    },
    aliases: ALIASES,
    resolveAlias(alias, target) {
      if (!aliasesAllowed(opts.clock.now())) {
        throw new DomainError(
          "toolset_version_mismatch",
          `${alias} was a 0.2.0 name, accepted until ${ALIASES_SUPPORTED_UNTIL}; call ${target} instead`,
          { recovery_hint: `call ${target} with the same arguments` },
        );
      }
    },
    formatRejection: (tool, rejection) => errorOutput(toolset, tool.name, rejection),
  });
}

const ANNOTATIONS: Record<(typeof TOOL_NAMES)[number], ToolDef<CallContext>["annotations"]> = {
  enter_open_challenge: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  observe_chamber: { readOnlyHint: true, openWorldHint: false },
  chamber_action: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  call_for_help: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  seal_attempt: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/** The contract's error envelope. Extra fields (retryable, current index, card) pass through. */
export function errorOutput(toolset: Toolset, toolName: string, rejection: Rejection): ToolOutput {
  const err = rejection.kind === "error" ? rejection.error : toDomainError(toolName, rejection);
  const envelope: Envelope = {
    ok: false,
    code: err.code,
    error: err.message.slice(0, 240),
    retryable: false,
    toolset_id: toolset.toolset_id,
    ...err.extra,
  };
  return { structuredContent: envelope, isError: true };
}

/** enter_open_challenge's identity fields: a bad value in any of them is identity_invalid. */
const IDENTITY_FIELDS = [
  "provider_claim",
  "model_claim",
  "host",
  "host_claim",
  "host_version",
  "product_plan",
  "origin",
  "origin_claim",
  "route_key",
  "participation_class",
];

/** Maps a limit or schema failure to the contract's most specific code. */
export function toDomainError(toolName: string, rejection: Rejection): DomainError {
  if (rejection.kind === "limit") {
    // A bad string inside an identity field is an identity problem, whatever made it bad.
    const top = rejection.violation.path?.match(/^\$\.([a-z_]+)$/)?.[1];
    if (toolName === "enter_open_challenge" && top && IDENTITY_FIELDS.includes(top)) {
      return new DomainError("identity_invalid", rejection.violation.message);
    }
    return new DomainError("value_format_invalid", rejection.violation.message);
  }
  if (rejection.kind === "error") return rejection.error;
  const errors = rejection.errors;
  const ranked = errors.map((e) => ({ e, ...classify(toolName, e) })).sort((a, b) => a.rank - b.rank);
  const top = ranked[0];
  if (!top) return new DomainError("value_format_invalid", "arguments do not match the tool's inputSchema");
  return new DomainError(top.code, top.message.slice(0, 240));
}

function field(e: ErrorObjectLike): string {
  if (e.keyword === "required") return String(e.params.missingProperty);
  return e.instancePath.replace(/^\//, "").split("/")[0] ?? "";
}

/** Lower rank wins: the error a participant most needs to read first. */
function classify(toolName: string, e: ErrorObjectLike): { code: string; message: string; rank: number } {
  const f = field(e);
  const where = e.instancePath || "arguments";
  if (e.keyword === "additionalProperties") {
    const extra = String(e.params.additionalProperty);
    const why = extra === "export" ? " (the export field was removed in 0.3)" : "";
    return { code: "value_format_invalid", message: `unknown argument ${extra}${why}`, rank: 5 };
  }
  if (toolName === "enter_open_challenge") {
    if (e.keyword === "required" && f === "host") {
      return {
        code: "host_required",
        message: "host is required: name your MCP host (e.g. cursor), or send unknown",
        rank: 0,
      };
    }
    if (e.keyword === "required") {
      return { code: "identity_incomplete", message: `${f} is required; declare it, or send unknown`, rank: 1 };
    }
    if (f === "product") {
      return {
        code: "product_id_invalid",
        message:
          "product must match ^[a-z0-9][a-z0-9._-]{0,78}$: lowercase model or slot id, e.g. gpt-5.6-sol, or unknown",
        rank: 2,
      };
    }
    if (f === "suite") {
      return {
        code: "suite_unknown",
        message: "suite is unknown; known: chambre-chrono-v0, chambre-atelier-v0",
        rank: 3,
      };
    }
    if (IDENTITY_FIELDS.includes(f)) {
      return { code: "identity_invalid", message: `${f} ${e.message ?? "is invalid"}`, rank: 4 };
    }
  }
  if (f === "challenge_handle" && e.keyword !== "required") {
    return {
      code: "value_format_invalid",
      message:
        "challenge_handle must be the chl-[0-9a-f]{16} handle from enter_open_challenge (sia_ handles are not ScoreIA)",
      rank: 4,
    };
  }
  if (toolName === "chamber_action" && f === "op") {
    return {
      code: "op_not_allowed",
      message: "op must be one of look, inspect, hint or a submit_* op of the contract",
      rank: 4,
    };
  }
  if (f === "ally") {
    return {
      code: "value_format_invalid",
      message: "ally must match ^[a-z0-9][a-z0-9._-]{0,78}$ (a product id)",
      rank: 4,
    };
  }
  return { code: "value_format_invalid", message: `${where} ${e.message ?? "is invalid"}`, rank: 6 };
}

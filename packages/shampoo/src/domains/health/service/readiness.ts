import type { HealthCheck } from "../hooks.ts";

/** The harmless read the canary calls: health's own `status` (a count through every layer). */
export const CANARY_TOOL = "status";

/**
 * readiness.canary: one call of a harmless read tool through the same registry agents call
 * (input validation, access check, handler, store, output validation: app.ts), judged by what it
 * answers. A doctor whose own reads work while every tool call fails reports this failed. The
 * call runs as the caller, whatever toolsets its session has turned on (it is the doctor's call,
 * and what it answers is not passed on).
 */
export const canary: HealthCheck = {
  section: "readiness",
  id: "readiness.canary",
  severity: "critical",
  async run(ctx) {
    const pipeline = ctx.pipeline;
    if (!pipeline)
      return { status: "unknown", summary: "no tool pipeline in this context: the canary cannot be called" };
    if (!pipeline.list().some((t) => t.name === CANARY_TOOL))
      return { status: "unknown", summary: `this server does not serve ${CANARY_TOOL}: the canary cannot be called` };
    const started = performance.now();
    const { tools: _tools, ...caller } = ctx.caller;
    const { toolsets: _toolsets, ...rest } = ctx;
    let out: Awaited<ReturnType<typeof pipeline.call>>;
    try {
      out = await pipeline.call(CANARY_TOOL, {}, { ...rest, caller, source: { ...ctx.source, tool: CANARY_TOOL } });
    } catch (e) {
      return { status: "fail", summary: `the canary call ${CANARY_TOOL} threw`, detail: (e as Error).message };
    }
    const ms = Math.round(performance.now() - started);
    const sc = (out.structuredContent ?? {}) as Record<string, unknown>;
    if (out.isError) {
      return {
        status: "fail",
        summary: `the canary call ${CANARY_TOOL} was refused: ${String(sc.error_type ?? "error")}`,
        detail: String(sc.error ?? ""),
      };
    }
    if (sc.product !== "shampoo" || typeof sc.counts !== "object")
      return { status: "fail", summary: `the canary call ${CANARY_TOOL} answered an unexpected shape` };
    return { status: "ok", summary: `${CANARY_TOOL} answered through the tool pipeline in ${ms} ms` };
  },
};

import { readFileSync } from "node:fs";
import { DomainError, systemClock } from "kernel";
import type { Caller } from "../../access/caller.ts";
import type { ShampooCtx } from "../../context.ts";
import { StageError, stageInbound } from "./service/stage.ts";

/**
 * `shampoo inbound stage FILE`: stages the document in FILE ("-" for stdin) as `caller`, in one
 * write (service/stage.ts says the format and its checks). Prints {"staged":[{id, pin, action}]}
 * on stdout; a refused document prints why on stderr, stages nothing, and answers 1.
 */
export async function inboundStageCommand(
  shampoo: { database: ShampooCtx["database"] },
  caller: Caller,
  file: string,
): Promise<number> {
  const ctx: ShampooCtx = {
    caller,
    source: { tool: "cli.inbound_stage" },
    clock: systemClock,
    database: shampoo.database,
  };
  try {
    const text = readFileSync(file === "-" ? 0 : file, "utf8");
    const r = await stageInbound(ctx, text);
    process.stdout.write(`${JSON.stringify(r)}\n`);
    return 0;
  } catch (e) {
    if (e instanceof StageError || e instanceof DomainError || (e as NodeJS.ErrnoException).code === "ENOENT") {
      process.stderr.write(`shampoo inbound stage: nothing staged: ${(e as Error).message}\n`);
      return 1;
    }
    throw e;
  }
}

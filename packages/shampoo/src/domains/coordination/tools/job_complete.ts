import { fx, input, output, tool } from "../../../tooling.ts";
import type { JobCompleteInput } from "../inputs.gen.ts";
import { P, S, shape } from "../schemas.ts";
import { jobComplete } from "../service/jobs.ts";

export const job_complete = tool<JobCompleteInput>({
  name: "job_complete",
  title: "Complete a job",
  description:
    "Completes a claimed job as completed or failed, with an optional result_ref. The holder needs its lease still live (lease expired: claim again) and, with fence, that very lease (lease_lost otherwise); the conductor may complete a job someone else holds without the lease check. Re-completing with the same outcome answers idempotent true and changes nothing; another outcome is refused as job already terminal. Missing and out-of-scope jobs both read as job not found.",
  kind: "write",
  inputSchema: input(
    {
      job_id: P.id("The job"),
      outcome: { type: "string", enum: ["completed", "failed"], description: "completed or failed." },
      result_ref: P.ref("Pointer at the produced artifact or verdict (opaque, at most 500 characters)."),
      fence: P.fence,
    },
    ["job_id", "outcome"],
  ),
  outputSchema: output(shape({ job_id: S.str, state: S.str, idempotent: S.bool }, ["idempotent"])),
  examples: [
    {
      title: "finish a claimed job",
      input: { job_id: fx("claimedJobId"), outcome: "completed", result_ref: "artifact://delivery/1" },
    },
  ],
  run: (a, ctx) => jobComplete(ctx, a),
});

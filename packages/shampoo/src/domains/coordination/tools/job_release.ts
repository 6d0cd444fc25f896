import { fx, input, output, tool } from "../../../tooling.ts";
import type { JobReleaseInput } from "../inputs.gen.ts";
import { P, S, shape } from "../schemas.ts";
import { jobRelease } from "../service/jobs.ts";

export const job_release = tool<JobReleaseInput>({
  name: "job_release",
  title: "Release a job",
  description:
    "Returns a claimed job to queued for another executor, clearing owner and lease and keeping its attempts (a job whose 5 attempts are spent ends as failed instead). The holder (with fence: that very lease) or the conductor only. Missing and out-of-scope jobs read as job not found; a job not claimed is refused as job is not claimed.",
  kind: "write",
  inputSchema: input({ job_id: P.id("The job"), fence: P.fence }, ["job_id"]),
  outputSchema: output(shape({ job_id: S.str, state: S.str })),
  examples: [{ title: "give a job back", input: { job_id: fx("heldJobId") } }],
  run: (a, ctx) => jobRelease(ctx, a),
});

import { fx, input, output, tool } from "../../../tooling.ts";
import type { JobCreateInput } from "../inputs.gen.ts";
import { P, S, shape } from "../schemas.ts";
import { jobCreate } from "../service/jobs.ts";

export const job_create = tool<JobCreateInput>({
  name: "job_create",
  title: "Create a job",
  description:
    "Creates one durable executable job in queued standing, to be claimed later (job_claim). Needs the conductor role AND an explicit grant on its project (untagged: the explicit empty-string grant; star never suffices). A job on a lane inherits the lane's quorum project (another explicit project is refused). payload is carried verbatim. Returns job_id and state queued.",
  access: ["conductor"],
  kind: "write",
  inputSchema: input(
    {
      kind: { type: "string", minLength: 1, maxLength: 100, description: "What sort of work (claimers filter by it)." },
      lane_id: P.id("Optional lane the job belongs to"),
      payload: { type: "string", maxLength: 65536, description: "Opaque executor payload, carried verbatim." },
      project: P.project,
    },
    ["kind"],
  ),
  outputSchema: output(shape({ job_id: S.str, state: { type: "string", enum: ["queued"] } })),
  examples: [
    {
      title: "queue a delivery",
      input: { kind: "delivery", payload: '{"uri":"example"}', project: fx("coordinationProject") },
    },
  ],
  run: (a, ctx) => jobCreate(ctx, a),
});

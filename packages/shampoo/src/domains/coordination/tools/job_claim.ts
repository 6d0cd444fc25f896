import { input, output, tool } from "../../../tooling.ts";
import type { JobClaimInput } from "../inputs.gen.ts";
import { LEASE_MAX_S, LEASE_MIN_S } from "../rules.ts";
import { S, shape } from "../schemas.ts";
import { jobClaim } from "../service/jobs.ts";

export const job_claim = tool<JobClaimInput>({
  name: "job_claim",
  title: "Claim a job",
  description:
    "Claims the oldest queued or lease-expired job your project grants cover (optionally of one kind) under an atomic single-winner lease of lease_seconds (1..3600, default 300). Answers claimed true with job_id, kind, payload, lease_until, attempts, reclaimed (an expired lease was taken over) and fence — the fencing token to pass to job_complete and job_release; or claimed false and nothing else when nothing can be claimed (never an error, never a hint about foreign projects). A job is claimed at most 5 times; past that, with its lease over, it ends as failed.",
  kind: "write",
  inputSchema: input({
    kind: { type: "string", maxLength: 100, description: "Only jobs of this kind." },
    lease_seconds: {
      type: "integer",
      minimum: LEASE_MIN_S,
      maximum: LEASE_MAX_S,
      description: "Lease length in seconds, 1..3600 (default 300).",
    },
  }),
  outputSchema: output(
    shape(
      {
        claimed: S.bool,
        job_id: S.str,
        kind: S.str,
        payload: S.str,
        lease_until: S.str,
        attempts: S.int,
        reclaimed: S.bool,
        fence: S.int,
      },
      ["job_id", "kind", "payload", "lease_until", "attempts", "reclaimed", "fence"],
    ),
  ),
  examples: [{ title: "claim a delivery", input: { kind: "delivery", lease_seconds: 300 } }],
  run: (a, ctx) => jobClaim(ctx, a),
});

import { input, output, tool } from "../../../tooling.ts";
import type { DoctorInput } from "../inputs.gen.ts";
import { SECTIONS, STATUSES } from "../model.ts";
import { doctor as runDoctor } from "../service/doctor.ts";

const STATUS = { type: "string", enum: [...STATUSES] };

export const doctor = tool<DoctorInput>({
  name: "doctor",
  title: "Health diagnostics",
  description: `SHAMPOO-wide health diagnostics in nine grouped sections (${SECTIONS.join(", ")}) with typed checks, each ok, warn, fail or unknown. Call it to tell them apart before investigating or repairing. UNKNOWN means the check could not observe (for example a subsystem this build does not have) and is never reported as healthy; status is the worst section (ok < warn < unknown < fail). readiness calls a harmless read tool through the same pipeline your calls take; invariants check every audited row has its history event, no live row points at a missing or void one, leases are held or free to take over, fencing tokens only increase, fact versions never overlap, and rows stay in their profile and project. Every run judges afresh. detail=full adds each check's detail text. sections: comma-separated exact names, empty runs all, unknown names are skipped. Read-only across your profile; writes nothing; no secret is shown.`,
  inputSchema: input({
    detail: {
      type: "string",
      enum: ["summary", "full"],
      description: "summary (default) omits per-check detail text; full includes it.",
    },
    sections: {
      type: "string",
      description: `Comma-separated section names (${SECTIONS.join(", ")}); empty runs all; unknown names are skipped.`,
    },
  }),
  outputSchema: output({
    type: "object",
    required: ["status", "detail", "sections"],
    additionalProperties: false,
    properties: {
      status: STATUS,
      detail: { type: "string", enum: ["summary", "full"] },
      sections: {
        type: "array",
        items: {
          type: "object",
          required: ["name", "status", "checks"],
          additionalProperties: false,
          properties: {
            name: { type: "string", enum: [...SECTIONS] },
            status: STATUS,
            checks: {
              type: "array",
              items: {
                type: "object",
                required: ["id", "status", "severity", "summary"],
                additionalProperties: false,
                properties: {
                  id: { type: "string" },
                  status: STATUS,
                  severity: { type: "string", enum: ["critical", "major", "minor"] },
                  summary: { type: "string" },
                  detail: { type: "string" },
                },
              },
            },
          },
        },
      },
    },
  }),
  examples: [
    { title: "every section", input: {} },
    { title: "the ledger and invariants in full", input: { sections: "ledger,invariants", detail: "full" } },
  ],
  kind: "read",
  run: async (a, ctx) => ({ ...(await runDoctor(ctx, a)) }),
});

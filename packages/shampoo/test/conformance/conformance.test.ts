import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveHttp } from "kernel";
import { conformanceSuite } from "../../../kernel/test/conformance/suite.ts";
import { LIMITS, openShampoo } from "../../src/app.ts";

/** The official conformance suite, 2025 and 2026-07-28 scenarios, against the real SHAMPOO (no resources). */
conformanceSuite(
  "SHAMPOO",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "shampoo-conformance-"));
    const shampoo = await openShampoo({ db: join(dir, "shampoo.db") });
    const http = await serveHttp({ mcp: shampoo.mcp, port: 0, maxRequestBytes: LIMITS.maxRequestBytes });
    return {
      url: http.url,
      close: async () => {
        await http.close();
        await shampoo.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  { resources: false },
);

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serveHttp } from "kernel";
import { conformanceSuite } from "../../../kernel/test/conformance/suite.ts";
import { openChamber } from "../../src/app.ts";
import { CURRENT_TOOLSET } from "../../src/contract/index.ts";

/** The official conformance suite, 2025 and 2026-07-28 scenarios, against the real Chamber. */
conformanceSuite(
  "the Chamber",
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "scoreia-conformance-"));
    const chamber = await openChamber({ db: join(dir, "chamber.db") });
    const http = await serveHttp({
      mcp: chamber.mcp,
      routes: chamber.routes,
      port: 0,
      maxRequestBytes: CURRENT_TOOLSET.limits.max_request_bytes,
    });
    return {
      url: http.url,
      close: async () => {
        await http.close();
        await chamber.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
  // The suite manifests are MCP resources.
  { resources: true },
);

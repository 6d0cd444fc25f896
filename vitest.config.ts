import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // Workspace packages export src/ under the "scoreia-shampoo-source" condition and dist/ otherwise
  // (packages/*/package.json): tests run the TypeScript sources.
  // Vite's lists are replaced, not extended, by a config: keep its defaults after ours.
  resolve: { conditions: ["scoreia-shampoo-source", ...defaultClientConditions] },
  ssr: { resolve: { conditions: ["scoreia-shampoo-source", ...defaultServerConditions] } },
  test: {
    include: ["packages/*/src/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    // The bins that tests spawn run dist/: built from the current sources before any test runs.
    globalSetup: ["./scripts/vitest-build.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});

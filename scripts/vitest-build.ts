import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** vitest global setup: `npm run build`, so the bins the tests spawn run the current sources. */
export default function setup(): void {
  execFileSync(process.execPath, [fileURLToPath(new URL("build.mjs", import.meta.url))], { stdio: "inherit" });
}

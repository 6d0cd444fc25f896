import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { inputFiles, renderInputs } from "../../scripts/inputs.ts";

/**
 * Tool inputs are typed from their schemas: each module's domains/<area>/inputs.gen.ts is what
 * `npm run gen:inputs` makes of its tools' inputSchemas today. A schema changed without
 * regenerating fails here, naming the file.
 */
describe("generated input types", () => {
  for (const { module, path } of inputFiles()) {
    it(`${module.name}: inputs.gen.ts matches the tools' inputSchemas (npm run gen:inputs)`, async () => {
      expect(readFileSync(path, "utf8"), path).toBe(await renderInputs(module));
    });
  }
});

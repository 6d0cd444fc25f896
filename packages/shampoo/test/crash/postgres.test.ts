import { dropPgSchema, pgUrlWithSchema } from "kernel/store/testing.ts";
import { describe } from "vitest";
import { crashSuite } from "./crash.ts";

describe("crash test on PostgreSQL (the client dies mid-transaction; the server rolls it back)", () => {
  // 25 restarts: a PostgreSQL writer takes longer to start, and 50 would not fit the time bound
  // on a loaded 2-core machine (about 1.2 s a restart at load average 8).
  crashSuite(
    "PostgreSQL",
    20261201,
    async () => {
      const schema = `crash_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
      return {
        target: pgUrlWithSchema(schema),
        drop: async () => {
          await dropPgSchema(schema);
        },
      };
    },
    25,
  );
});

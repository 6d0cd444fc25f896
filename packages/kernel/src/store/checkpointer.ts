import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * WAL checkpoints on a thread of their own.
 *
 * In WAL mode SQLite's writer copies the log back into the database itself, inside the commit
 * that crosses `wal_autocheckpoint` pages, and with `synchronous = NORMAL` that checkpoint is
 * where the fsyncs happen. On the Chamber's action path that was ~70 µs of every commit on
 * average (commit 118 µs with automatic checkpoints, 51 µs without; bench/results/chamber-latest.md),
 * all of it on the event loop. Here the writer's automatic checkpoints are turned off and a
 * worker thread with its own connection runs PASSIVE checkpoints on a timer: they never block
 * the writer or readers, and their I/O waits happen off the main thread.
 *
 * Durability is unchanged in kind: with `synchronous = NORMAL` a commit reaches the disk at the
 * next checkpoint, which now comes at least every `intervalMs` instead of every 1,000 pages.
 * If the worker fails, the writer's automatic checkpoints come back on.
 */
export interface Checkpointer {
  /** Stops the worker and closes its connection (the database's own close does the last checkpoint). */
  stop(): Promise<void>;
}

/** The worker's whole program: plain CommonJS, so it runs the same under Node, tsx and vitest. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
const timer = setInterval(() => {
  try {
    db.pragma("wal_checkpoint(PASSIVE)");
  } catch (e) {
    // SQLITE_BUSY and friends: the next tick tries again.
    if (!/busy|locked/i.test(String(e && e.message))) throw e;
  }
}, workerData.intervalMs);
parentPort.on("message", (m) => {
  if (m === "stop") {
    clearInterval(timer);
    db.close();
    parentPort.close();
  }
});
`;

const driverPath = createRequire(import.meta.url).resolve("better-sqlite3");

export function startCheckpointer(
  file: string,
  onFailure: (error: unknown) => void,
  opts: { intervalMs?: number } = {},
): Checkpointer {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, driver: driverPath, intervalMs: opts.intervalMs ?? 200 },
    // The worker runs plain CommonJS: no loader flags from the parent (tsx, vitest) are needed.
    execArgv: [],
  });
  worker.unref();
  let stopping = false;
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  worker.on("error", (e) => {
    if (!stopping) onFailure(e);
  });
  worker.on("exit", (code) => {
    if (!stopping && code !== 0) onFailure(new Error(`checkpoint worker exited with code ${code}`));
  });
  return {
    async stop() {
      if (stopping) return exited;
      stopping = true;
      worker.postMessage("stop");
      const timeout = setTimeout(() => void worker.terminate(), 2000);
      await exited;
      clearTimeout(timeout);
    },
  };
}

import type { FixtureStep } from "../../platform/module.ts";

/**
 * The e2e fixture's task (platform/module.ts FixtureStep). Keys:
 * - taskId: a task in `project`, visible to the caller (always made: create_task_or_note is the
 *   everyday entry point).
 */
export const tasksFixtures: readonly FixtureStep[] = [
  {
    makes: ["taskId"],
    needs: "create_task_or_note",
    run: async (f, call) => {
      const sc = await call("create_task_or_note", { title: `fixture for ${f.project}`, project: f.project });
      return { taskId: sc.task_id as string };
    },
  },
];

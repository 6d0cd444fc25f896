import { type FixtureStep, need } from "../../platform/module.ts";

/** The e2e fixture's link (platform/module.ts FixtureStep): the task linked to `entity2`. No key. */
export const linksFixtures: readonly FixtureStep[] = [
  {
    makes: [],
    needs: "link_task_entity",
    run: async (f, call) => {
      await call("link_task_entity", { task_id: need(f, "taskId"), entity_name: need(f, "entity2") });
      return {};
    },
  },
];

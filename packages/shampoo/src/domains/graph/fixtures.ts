import { type FixtureStep, need } from "../../platform/module.ts";

/**
 * The e2e fixture's graph (platform/module.ts FixtureStep). Keys, entities in `project`:
 * - entity: holds the observation "fixture observation";
 * - entity2: related to `entity` by fixture_rel (and linked to the task by the links module);
 * - doomed: there to be retired.
 */
export const graphFixtures: readonly FixtureStep[] = [
  {
    makes: ["entity", "entity2", "doomed"],
    needs: "create_entities",
    run: async (f, call) => {
      await call("create_entities", {
        entities: ["alpha", "beta", "doomed"].map((n) => ({
          name: `e2e ${n} ${f.project}`,
          entityType: "component",
          observations: ["fixture observation"],
          project: f.project,
        })),
      });
      return { entity: `e2e alpha ${f.project}`, entity2: `e2e beta ${f.project}`, doomed: `e2e doomed ${f.project}` };
    },
  },
  {
    makes: [],
    needs: "create_relations",
    run: async (f, call) => {
      await call("create_relations", {
        relations: [{ from: need(f, "entity"), to: need(f, "entity2"), relationType: "fixture_rel" }],
      });
      return {};
    },
  },
];

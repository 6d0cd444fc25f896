import { fx, input, output, tool } from "../../../tooling.ts";
import type { CreateEntitiesInput } from "../inputs.gen.ts";
import { COUNT, P, STRINGS } from "../schemas.ts";
import { createEntities } from "../service/entities.ts";

export const create_entities = tool<CreateEntitiesInput>({
  name: "create_entities",
  title: "Create entities",
  description:
    "Creates entities in the knowledge graph, each with a name, type, and optional observations, project, aliases, and visibility. Names are unique (case- and spacing-insensitive): a repeated name resolves to the existing identity rather than duplicating it — a retired one is revived with its stamps kept, a live one is reused and still accepts new observations, aliases, and a project when it had none. Duplicate observation text is skipped. Every entry needs the write grant for its project (untagged needs the untagged grant); the whole batch fails on the first denied entry, and a name held by content you cannot see answers 'entity name already exists'. Nothing is half-applied.",
  inputSchema: input(
    {
      entities: {
        type: "array",
        description: "Entities to create.",
        items: {
          type: "object",
          additionalProperties: false,
          required: ["name", "entityType"],
          properties: {
            name: { ...P.name, description: "The name of the entity" },
            entityType: { ...P.name, description: "The type of the entity" },
            observations: {
              type: "array",
              items: P.text,
              description: "An array of observation contents associated with the entity",
            },
            aliases: {
              type: "array",
              items: { type: "string", maxLength: 500 },
              description: "Other names the entity goes by (search surface; not identities).",
            },
            project: P.project,
            visibility: P.visibility,
          },
        },
      },
    },
    ["entities"],
  ),
  outputSchema: output({
    type: "object",
    required: ["created", "total_requested", "entity_ids", "observation_ids"],
    properties: { created: COUNT, total_requested: COUNT, entity_ids: STRINGS, observation_ids: STRINGS },
  }),
  examples: [
    {
      title: "one component with an observation",
      input: {
        entities: [
          {
            name: `e2e gamma ${fx("project")}`,
            entityType: "component",
            observations: ["new"],
            project: fx("project"),
          },
        ],
      },
    },
  ],
  kind: "idempotent",
  run: (a, ctx) => createEntities(ctx, a),
});

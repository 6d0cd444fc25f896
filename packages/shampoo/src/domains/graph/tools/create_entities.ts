import { fx, input, output, tool } from "../../../tooling.ts";
import type { CreateEntitiesInput } from "../inputs.gen.ts";
import { COUNT, P, STRINGS } from "../schemas.ts";
import { createEntities } from "../service/entities.ts";

export const create_entities = tool<CreateEntitiesInput>({
  name: "create_entities",
  title: "Create entities",
  description:
    "Creates entities (name, type; optional observations, project, aliases, visibility). Names are unique ignoring case and spacing: a repeated name resolves to the existing identity (a retired one is revived, stamps kept; a live one is reused and takes new observations, aliases, and a project if it had none). Duplicate observation text is skipped. Each entry needs the write grant for its project (untagged: the untagged grant); the whole batch fails on the first denied entry; a name held by content you cannot see answers 'entity name already exists'.",
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

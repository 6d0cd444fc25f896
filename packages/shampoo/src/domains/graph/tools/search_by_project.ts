import { fx, input, output, tool } from "../../../tooling.ts";
import type { SearchByProjectInput } from "../inputs.gen.ts";
import { PROJECT_RESULTS } from "../rules/search.ts";
import { STRINGS } from "../schemas.ts";
import { searchByProject } from "../service/search.ts";

export const search_by_project = tool<SearchByProjectInput>({
  name: "search_by_project",
  title: "Search one project",
  description: `Searches strictly inside one project: entities whose name, aliases, type or live observations contain a query term (substring, case-insensitive), ranked name > alias > type > observation (exact name or alias bonus, observation count). At most ${PROJECT_RESULTS} entities. A project outside your grants answers entities [] (never a denial); "" is the untagged enclave. A blank query lists its first ${PROJECT_RESULTS} entities by name.`,
  inputSchema: input(
    {
      query: { type: "string", maxLength: 2000, description: "Free text: its words are matched as substrings." },
      project: { type: "string", maxLength: 200, description: "The one project to search." },
    },
    ["query", "project"],
  ),
  outputSchema: output({
    type: "object",
    required: ["entities", "query", "project"],
    properties: {
      entities: {
        type: "array",
        items: {
          type: "object",
          required: ["name", "entityType", "project", "observations", "_score"],
          properties: {
            name: { type: "string" },
            entityType: { type: "string" },
            project: { type: "string" },
            observations: STRINGS,
            _score: { type: "number" },
          },
        },
      },
      query: { type: "string" },
      project: { type: "string" },
    },
  }),
  examples: [
    {
      title: "search one project",
      input: { query: "alpha", project: fx("project") },
    },
  ],
  kind: "read",
  run: (a, ctx) => searchByProject(ctx, a),
});

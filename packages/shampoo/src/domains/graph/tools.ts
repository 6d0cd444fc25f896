import type { ShampooTool } from "../../tooling.ts";
import { add_observations } from "./tools/add_observations.ts";
import { create_entities } from "./tools/create_entities.ts";
import { create_relations } from "./tools/create_relations.ts";
import { delete_entities } from "./tools/delete_entities.ts";
import { delete_observations } from "./tools/delete_observations.ts";
import { delete_relations } from "./tools/delete_relations.ts";
import { open_nodes } from "./tools/open_nodes.ts";
import { read_graph } from "./tools/read_graph.ts";
import { search_by_project } from "./tools/search_by_project.ts";
import { search_nodes } from "./tools/search_nodes.ts";

/** The ten knowledge-graph tools, in catalog (alphabetical) order. One file per tool under tools/. */
export const graphTools: ShampooTool[] = [
  add_observations,
  create_entities,
  create_relations,
  delete_entities,
  delete_observations,
  delete_relations,
  open_nodes,
  read_graph,
  search_by_project,
  search_nodes,
];

/**
 * chambre-atelier-v0 (engine "atelier", generation "002"): a workshop room in four stages —
 * sort, place, assemble, bolt. Player's guide: docs/rooms/atelier.md.
 */

import type { Suite } from "../types.ts";
import { manifest } from "./manifest.ts";
import { makeSuite } from "./room.ts";

export { manifest } from "./manifest.ts";

export const atelierSuite: Suite = makeSuite(manifest);

export { type PublicRoutesOptions, publicRoutes } from "./routes.ts";
export { specSummary } from "./spec.ts";

/**
 * Which rules an endpoint falls under, by its HttpApi group and name: `staff` (bearer token,
 * never cached, outside the rate limit with a valid token), `health` (no limit, never cached)
 * or `public` (everything else). The edge (src/Http/Routes.ts) and the OpenAPI document
 * (src/Meta/OpenApiDocument.ts) both ask here, so the two never disagree.
 */
export type RouteKind = "public" | "staff" | "health"

export const routeKindOf = (group: string, endpoint: string): RouteKind => {
  if (group === "Staff") return "staff"
  if (group === "Meta" && (endpoint === "health" || endpoint === "ready")) return "health"
  return "public"
}

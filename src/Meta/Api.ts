import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { CatalogueStats } from "../Contract/Stats.js"
import { resourceEndpoint } from "../Contract/Endpoints.js"

export const ServiceIndex = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  docs_url: Schema.String,
  openapi_url: Schema.String,
  endpoints: Schema.Array(
    Schema.Struct({ method: Schema.String, path: Schema.String, group: Schema.String, summary: Schema.String })
  )
}).annotate({ identifier: "ServiceIndex" })

export const Health = Schema.Struct({
  status: Schema.Literal("ok"),
  database: Schema.optionalKey(Schema.Literal("reachable"))
}).annotate({ identifier: "Health" })

export class MetaApi extends HttpApiGroup.make("Meta")
  .add(
    resourceEndpoint("index", "/v1", ServiceIndex, "ServiceIndexResponse", "The service index: version, documentation links and every endpoint")
  )
  .add(
    resourceEndpoint("health", "/v1/health", Health, "HealthResponse", "Liveness: the process answers (no database call)")
  )
  .add(
    resourceEndpoint("ready", "/v1/health/ready", Health, "ReadinessResponse", "Readiness: the database answers within 1 s, else 503; 503 from SIGTERM on, while the process drains")
  )
  .add(
    resourceEndpoint("stats", "/v1/stats", CatalogueStats, "CatalogueStatsResponse", "Catalogue statistics over public rows")
  )
  .annotate(OpenApi.Title, "Meta") {}

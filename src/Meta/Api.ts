import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { DetailEnvelope } from "../Domain/Envelope.js"
import { CatalogueStats } from "../Domain/Stats.js"

export const ServiceIndex = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  docs_url: Schema.String,
  openapi_url: Schema.String,
  endpoints: Schema.Array(
    Schema.Struct({ method: Schema.String, path: Schema.String, group: Schema.String, summary: Schema.String })
  )
}).annotations({ identifier: "ServiceIndex" })

export const Health = Schema.Struct({
  status: Schema.Literal("ok"),
  database: Schema.optional(Schema.Literal("reachable"))
}).annotations({ identifier: "Health" })

export class MetaApi extends HttpApiGroup.make("Meta")
  .add(
    HttpApiEndpoint.get("index", "/v1")
      .addSuccess(DetailEnvelope(ServiceIndex, "ServiceIndexResponse"))
      .annotate(OpenApi.Summary, "The service index: version, documentation links and every endpoint")
  )
  .add(
    HttpApiEndpoint.get("health", "/v1/health")
      .addSuccess(DetailEnvelope(Health, "HealthResponse"))
      .annotate(OpenApi.Summary, "Liveness: the process answers (no database call)")
  )
  .add(
    HttpApiEndpoint.get("ready", "/v1/health/ready")
      .addSuccess(DetailEnvelope(Health, "ReadinessResponse"))
      .annotate(OpenApi.Summary, "Readiness: the database answers within 1 s, else 503")
  )
  .add(
    HttpApiEndpoint.get("stats", "/v1/stats")
      .addSuccess(DetailEnvelope(CatalogueStats, "CatalogueStatsResponse"))
      .annotate(OpenApi.Summary, "Catalogue statistics over public rows")
  )
  .annotate(OpenApi.Title, "Meta") {}

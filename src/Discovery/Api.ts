import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Discovery } from "../Domain/Discovery.js"
import { DetailEnvelope } from "../Domain/Envelope.js"

export const DISCOVERY_SIZE = 12

export class DiscoveryApi extends HttpApiGroup.make("Discovery")
  .add(
    HttpApiEndpoint.get("discovery", "/discovery")
      .addSuccess(DetailEnvelope(Discovery, "DiscoveryResponse"))
      .annotate(OpenApi.Summary, "New releases, trending songs, featured lists and songs released on this day")
      .annotate(OpenApi.Description, "\"Today\" is the database's current date. The selections change only with the date and the data.")
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Discovery") {}

import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import { Discovery } from "../Contract/Discovery.js"
import { resourceEndpoint } from "../Contract/Endpoints.js"

export const DISCOVERY_SIZE = 12

export class DiscoveryApi extends HttpApiGroup.make("Discovery")
  .add(
    resourceEndpoint("discovery", "/discovery", Discovery, "DiscoveryResponse", "New releases, trending songs, featured lists and songs released on this day")
      .annotate(OpenApi.Description, "\"Today\" is the database's current date. The selections change only with the date and the data.")
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Discovery") {}

import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { CuratedListSummary } from "../CuratedLists/Api.js"
import { DetailEnvelope } from "../Domain/Envelope.js"
import { SongSummary } from "../Domain/Song.js"

export const DISCOVERY_SIZE = 12

/** Four selections, up to 12 each, the same all day (no randomness; cacheable). */
export const Discovery = Schema.Struct({
  new_releases: Schema.Array(SongSummary).annotations({
    description: "Songs released in the last 30 days (none in the future), newest first."
  }),
  trending: Schema.Array(SongSummary).annotations({ description: "Songs with the most vidsvc views per day." }),
  featured_lists: Schema.Array(CuratedListSummary).annotations({
    description: "Published curated lists, most recently updated first."
  }),
  on_this_day: Schema.Array(SongSummary).annotations({
    description: "Songs released on today's month and day in earlier years (exact dates only), most viewed first."
  })
}).annotations({ identifier: "Discovery" })
export type Discovery = typeof Discovery.Type

export class DiscoveryApi extends HttpApiGroup.make("Discovery")
  .add(
    HttpApiEndpoint.get("discovery", "/discovery")
      .addSuccess(DetailEnvelope(Discovery, "DiscoveryResponse"))
      .annotate(OpenApi.Summary, "New releases, trending songs, featured lists and songs released on this day")
      .annotate(OpenApi.Description, "\"Today\" is the database's current date. The selections change only with the date and the data.")
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Discovery") {}

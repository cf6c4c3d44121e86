import * as HttpApi from "effect/http-api/HttpApi"
import * as OpenApi from "effect/http-api/OpenApi"
import { AlbumsApi } from "../Albums/Api.js"
import { ArtistsApi } from "../Artists/Api.js"
import { ChangesApi } from "../Changes/Api.js"
import { CuratedListsApi } from "../CuratedLists/Api.js"
import { DiscoveryApi } from "../Discovery/Api.js"
import { GenresApi } from "../Genres/Api.js"
import { LabelsApi } from "../Labels/Api.js"
import { MetaApi } from "../Meta/Api.js"
import { SearchApi } from "../Search/Api.js"
import { SnapshotsApi } from "../Snapshots/Api.js"
import { SongsApi } from "../Songs/Api.js"
import { StaffApi } from "../Staff/Api.js"
import { UsersApi } from "../Users/Api.js"
import { DecodeErrors, EnvelopeErrors, RateLimitedError } from "./Errors.js"

export const API_VERSION = "1.0.0"

/**
 * The /v1 contract: every endpoint, grouped by tag (docs/api.md). Clients import it
 * (HttpApiClient.make(Api)): it and everything it imports hold no SQL and no server module
 * (test/imports.test.ts). The service serves it with its OpenAPI document's descriptions (src/Api.ts).
 * Every endpoint may answer bad_request (decode), not_found (unknown path) and internal_error.
 */
export class Api extends HttpApi.make("catalogue")
  .add(SongsApi)
  .add(AlbumsApi)
  .add(CuratedListsApi)
  .add(ArtistsApi)
  .add(GenresApi)
  .add(LabelsApi)
  .add(UsersApi)
  .add(SearchApi)
  .add(DiscoveryApi)
  .add(ChangesApi)
  .add(SnapshotsApi)
  .add(MetaApi)
  .add(StaffApi)
  // inside EnvelopeErrors: a decode error is already bad_request when the envelope step meets it
  .middleware(DecodeErrors)
  .middleware(EnvelopeErrors)
  // answered by the edge, before any endpoint: declared here so that the document has its Schema
  .annotate(HttpApi.AdditionalSchemas, [RateLimitedError])
  .annotate(OpenApi.Title, "Malaysian music catalogue API")
  .annotate(OpenApi.Version, API_VERSION)
  .annotate(
    OpenApi.Description,
    "Public, read-only REST API over a catalogue of Malaysian music. Errors are always " +
      "{ error: { code, message } }."
  ) {}

import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { DetailEnvelope } from "../Domain/Envelope.js"
import { SEARCH_TOTAL_BOUND, searchTypeShapes as shapes } from "../Domain/SearchHit.js"
import { SearchTextParam } from "../Domain/SearchText.js"

export const SEARCH_TYPES = ["songs", "artists", "albums", "curated_lists", "labels", "genres", "users"] as const
export type SearchType = (typeof SEARCH_TYPES)[number]
export const DEFAULT_SEARCH_LIMIT = 5
export const MAX_SEARCH_LIMIT = 20

/** One section per type asked, in this order. */
export const SearchResults = Schema.Struct({
  songs: Schema.optional(shapes.songs.section.schema),
  artists: Schema.optional(shapes.artists.section.schema),
  albums: Schema.optional(shapes.albums.section.schema),
  curated_lists: Schema.optional(shapes.curated_lists.section.schema),
  labels: Schema.optional(shapes.labels.section.schema),
  genres: Schema.optional(shapes.genres.section.schema),
  users: Schema.optional(shapes.users.section.schema)
}).annotations({ identifier: "SearchResults" })
export type SearchResults = typeof SearchResults.Type

const typesMessage = () => `types must be a comma-separated list of: ${SEARCH_TYPES.join(", ")}.`

/** `types=songs,artists`: a subset of the seven types; duplicates count once. */
export const SearchTypesParam = Schema.String.pipe(
  Schema.pattern(new RegExp(`^(${SEARCH_TYPES.join("|")})(,(${SEARCH_TYPES.join("|")}))*$`), { message: typesMessage }),
  Schema.transform(Schema.Array(Schema.Literal(...SEARCH_TYPES)), {
    strict: true,
    decode: (text) => [...new Set(text.split(",") as Array<SearchType>)],
    encode: (types) => types.join(",")
  }),
  Schema.annotations({
    message: typesMessage,
    jsonSchema: {
      type: "array",
      items: { type: "string", enum: SEARCH_TYPES },
      minItems: 1,
      uniqueItems: true,
      description: "Which types to search, comma-separated (types=songs,artists); default all seven."
    },
    arbitrary: () => (fc) => fc.uniqueArray(fc.constantFrom(...SEARCH_TYPES), { minLength: 1 })
  })
)

const limitMessage = () => `limit must be a whole number from 1 to ${MAX_SEARCH_LIMIT}.`
export const SearchLimitParam = Schema.String.pipe(
  Schema.pattern(/^([1-9]|1[0-9]|20)$/, { message: limitMessage }),
  Schema.compose(Schema.NumberFromString),
  Schema.annotations({
    message: limitMessage,
    jsonSchema: {
      type: "integer",
      minimum: 1,
      maximum: MAX_SEARCH_LIMIT,
      default: DEFAULT_SEARCH_LIMIT,
      description: `Items per type, 1 to ${MAX_SEARCH_LIMIT} (default ${DEFAULT_SEARCH_LIMIT}).`
    },
    arbitrary: () => (fc) => fc.integer({ min: 1, max: MAX_SEARCH_LIMIT })
  })
)

export class SearchApi extends HttpApiGroup.make("Search")
  .add(
    HttpApiEndpoint.get("search", "/search")
      .setUrlParams(
        Schema.Struct({
          q: SearchTextParam,
          types: Schema.optional(SearchTypesParam),
          limit: Schema.optional(SearchLimitParam)
        })
      )
      .addSuccess(DetailEnvelope(SearchResults, "SearchResponse"))
      .annotate(OpenApi.Summary, "Search songs, artists, albums, curated lists, labels, genres and users at once")
      .annotate(
        OpenApi.Description,
        "Case, diacritics, apostrophes, hyphens and honorifics do not matter. One or two characters match " +
          "names that start with them. One typo is tolerated in names of 8+ letters when no asked type " +
          "matches otherwise. Ranked exact > prefix > word > inside a word or fuzzy, then popularity, then id. " +
          `Hidden rows are never found. Each type's total is exact below ${SEARCH_TOTAL_BOUND.toLocaleString("en-US")}; ` +
          `a total of ${SEARCH_TOTAL_BOUND.toLocaleString("en-US")} means ${SEARCH_TOTAL_BOUND.toLocaleString("en-US")} or more.`
      )
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Search") {}

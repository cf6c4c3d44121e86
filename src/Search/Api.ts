import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { DetailEnvelope } from "../Contract/Envelope.js"
import { SEARCH_MAX_WORDS, SEARCH_TOTAL_BOUND, SEARCH_TYPO_MAX_LENGTH, searchTypeSchemas as schemas } from "../Contract/SearchHit.js"
import { CommaSetParam, wholeNumberText } from "../Contract/Params.js"
import { SEARCH_ORDER } from "../Contract/SearchRanking.js"
import { searchTextParam } from "../Contract/SearchText.js"

export const SEARCH_TYPES = ["songs", "artists", "albums", "curated_lists", "labels", "genres", "users"] as const
export type SearchType = (typeof SEARCH_TYPES)[number]
export const DEFAULT_SEARCH_LIMIT = 5
export const MAX_SEARCH_LIMIT = 20

/** One section per type asked, in this order. */
export const SearchResults = Schema.Struct({
  songs: Schema.optionalKey(schemas.songs.section),
  artists: Schema.optionalKey(schemas.artists.section),
  albums: Schema.optionalKey(schemas.albums.section),
  curated_lists: Schema.optionalKey(schemas.curated_lists.section),
  labels: Schema.optionalKey(schemas.labels.section),
  genres: Schema.optionalKey(schemas.genres.section),
  users: Schema.optionalKey(schemas.users.section)
}).annotate({ identifier: "SearchResults" })
export type SearchResults = typeof SearchResults.Type

/** `types=songs,artists`: a subset of the seven types; duplicates count once. */
export const SearchTypesParam = CommaSetParam({
  pattern: new RegExp(`^(${SEARCH_TYPES.join("|")})(,(${SEARCH_TYPES.join("|")}))*$`),
  max: SEARCH_TYPES.length,
  value: (text) => text as SearchType,
  fits: () => true,
  message: `types must be a comma-separated list of: ${SEARCH_TYPES.join(", ")}.`,
  jsonSchema: {
    type: "array",
    items: { type: "string", enum: SEARCH_TYPES },
    minItems: 1,
    uniqueItems: true,
    description: "Which types to search, comma-separated (types=songs,artists); default all seven."
  },
  sample: { kind: "choice", words: SEARCH_TYPES }
})

export const SearchLimitParam = wholeNumberText("limit", /^([1-9]|1[0-9]|20)$/, 1, MAX_SEARCH_LIMIT, {
  default: DEFAULT_SEARCH_LIMIT,
  description: `Items per type, 1 to ${MAX_SEARCH_LIMIT} (default ${DEFAULT_SEARCH_LIMIT}).`
})

export class SearchApi extends HttpApiGroup.make("Search")
  .add(
    HttpApiEndpoint.get("search", "/search", {
      query: Schema.Struct({
        q: searchTextParam(
          `Only the first ${SEARCH_MAX_WORDS} distinct words are searched (a Han, kana or hangul character is a word; a repeated ` +
            `word counts once); words after them are ignored, and the last word kept is then a whole word, not a prefix. ` +
            `Words longer than ${SEARCH_TYPO_MAX_LENGTH} characters are matched without typos.`
        ),
        types: Schema.optional(SearchTypesParam),
        limit: Schema.optional(SearchLimitParam)
      }),
      success: DetailEnvelope(SearchResults, "SearchResponse")
    })
      .annotate(OpenApi.Summary, "Search songs, artists, albums, curated lists, labels, genres and users at once")
      .annotate(
        OpenApi.Description,
        "The words of q are found in any order: for songs across the title, the performers' names (honorifics " +
          "optional) and the album's title; for artists their name and honorific; for the other types their own " +
          "names. The last word is a prefix. Each word may carry a typo: one edit for words of 4-7 letters, two for " +
          "8 or more (a swap of neighbours is one). Case, diacritics, apostrophes and punctuation do not matter. " +
          `Only the first ${SEARCH_MAX_WORDS} distinct words of q are searched. ` +
          `Within a type: ${SEARCH_ORDER}; when no row holds every word of three to six, rows missing one come. ` +
          `Hidden rows are never found. Each type's total is exact below ${SEARCH_TOTAL_BOUND.toLocaleString("en-US")}; ` +
          `a total of ${SEARCH_TOTAL_BOUND.toLocaleString("en-US")} means ${SEARCH_TOTAL_BOUND.toLocaleString("en-US")} or more.`
      )
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Search") {}

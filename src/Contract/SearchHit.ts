/**
 * The Schemas of /v1/search: a hit is a type's own shape (song summary, artist summary, ...) plus
 * its `score`; a section is `{items, total}` of one type's hits. Their SQL: src/Shapes/SearchHit.ts.
 */
import * as Schema from "effect/Schema"
import { artistSummaryFields } from "./Artist.js"
import { CuratedListSummary } from "./CuratedList.js"
import { GenreEntry } from "./Genre.js"
import { Label } from "./Label.js"
import { PERFECT_SCORE, SCORE_ORDER, SECTION_ORDER } from "./SearchRanking.js"
import { ContributorProfile } from "./Member.js"
import { ListAlbumEntry, SongSummary } from "./Song.js"

/**
 * `total` counts matches exactly up to this many; a section with this many or more says this
 * number ("1,000 or more"). Counting every match of a common word cost ~1 s at 1M songs.
 */
export const SEARCH_TOTAL_BOUND = 1000

/**
 * What one search may cost (docs/search.md, "What a query costs"): the query's first this many
 * distinct words are searched, the rest ignored (a Han, kana or hangul character is a word).
 */
export const SEARCH_MAX_WORDS = 12

/** Words longer than this many characters are matched exactly: their typo variants are too many to look up. */
export const SEARCH_TYPO_MAX_LENGTH = 24

const Score = Schema.Finite.annotate({
  description: `How well the hit matched, in (0, 1]: 1 when ${PERFECT_SCORE}. Higher ranks first: ${SCORE_ORDER}. ` +
    "Compare within one answer."
})

const bound = SEARCH_TOTAL_BOUND.toLocaleString("en-US")

/** One type's hit and section Schemas, from the type's own fields. */
const searchSchemas = <Fields extends Schema.Struct.Fields>(
  fields: Fields,
  names: { readonly hit: string; readonly section: string }
) => {
  const hit = Schema.Struct({ ...fields, score: Score }).annotate({ identifier: names.hit })
  const section = Schema.Struct({
    items: Schema.Array(hit).annotate({ description: `Best first: ${SECTION_ORDER}.` }),
    total: Schema.Int.annotate({
      description: `Matches of this type, exact below ${bound}; ${bound} means ${bound} or more.`
    })
  }).annotate({ identifier: names.section })
  return { hit, section }
}

/** Each type's Schemas, by the name /v1/search gives the type. */
export const searchTypeSchemas = {
  songs: searchSchemas(SongSummary.fields, { hit: "SongSearchHit", section: "SongSearchSection" }),
  artists: searchSchemas(artistSummaryFields, { hit: "ArtistSearchHit", section: "ArtistSearchSection" }),
  albums: searchSchemas(ListAlbumEntry.fields, { hit: "AlbumSearchHit", section: "AlbumSearchSection" }),
  curated_lists: searchSchemas(CuratedListSummary.fields, { hit: "CuratedListSearchHit", section: "CuratedListSearchSection" }),
  labels: searchSchemas(Label.fields, { hit: "LabelSearchHit", section: "LabelSearchSection" }),
  genres: searchSchemas(GenreEntry.fields, { hit: "GenreSearchHit", section: "GenreSearchSection" }),
  users: searchSchemas(ContributorProfile.fields, { hit: "UserSearchHit", section: "UserSearchSection" })
}

/**
 * The shapes of /v1/search: a hit is a type's own shape (song summary, artist summary, ...) plus
 * its `score`; a section is `{items, total}` of one type's hits.
 */
import * as Schema from "effect/Schema"
import { artistSummary, artistSummaryFields } from "./Artist.js"
import { curatedListSummary, CuratedListSummary } from "./CuratedList.js"
import { genreEntry, GenreEntry, genreSongCountSql } from "./Genre.js"
import { jsonArraySql } from "../Shapes/JsonSql.js"
import { Label, label, labelCountsSql } from "./Label.js"
import { contributorProfile, ContributorProfile, memberContributionCountSql } from "./Member.js"
import { type FieldsSql, shape } from "../Shapes/Shape.js"
import { ListAlbumEntry, listAlbumEntry, SongSummary, songSummary } from "./Song.js"

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
  description: "How well the hit matched, in (0, 1]: 1 when every word was found exactly in the title or name and " +
    "covers it. Higher ranks first: more words found, then fewer typos, then words in the title, then in the " +
    "other names (performers, honorific, former name, handle), then the title covered. Compare within one answer."
})

const bound = SEARCH_TOTAL_BOUND.toLocaleString("en-US")

/**
 * One type's hit and section shapes, from the type's own fields (Schema and SQL for row `x`).
 * `hit.json(x, score)`; `section.json(items, total)`. `publicRows` holds fixture rows for the
 * shape test.
 */
const searchShapes = <Fields extends Schema.Struct.Fields>(
  fields: Fields,
  fieldsSql: (x: string) => FieldsSql<Fields>,
  names: { readonly hit: string; readonly section: string },
  publicRows: string
) => {
  const Hit = Schema.Struct({ ...fields, score: Score }).annotate({ identifier: names.hit })
  const hitFields = (x: string, score: string) => ({ ...fieldsSql(x), score })
  const hit = shape(Hit, hitFields, { from: `${publicRows} x`, args: ["x", "0.5"] })
  const Section = Schema.Struct({
    items: Schema.Array(Hit).annotate({ description: "Best first: score, then popularity, then id." }),
    total: Schema.Int.annotate({
      description: `Matches of this type, exact below ${bound}; ${bound} means ${bound} or more.`
    })
  }).annotate({ identifier: names.section })
  const section = shape(Section, (items: string, total: string) => ({ items, total }), {
    args: [`(SELECT ${jsonArraySql(hit.json("x", "0.5"), "x.id")} FROM (SELECT * FROM ${publicRows} LIMIT 3) x)`, "3"]
  })
  return { hit, section }
}

/** Each type's shapes, by the name /v1/search gives the type. */
export const searchTypeShapes = {
  songs: searchShapes(SongSummary.fields, (x) => songSummary.fields(x),
    { hit: "SongSearchHit", section: "SongSearchSection" }, "public_songs"),
  artists: searchShapes(artistSummaryFields, (x) => artistSummary.fields(x),
    { hit: "ArtistSearchHit", section: "ArtistSearchSection" }, "public_artists"),
  albums: searchShapes(ListAlbumEntry.fields, (x) => listAlbumEntry.fields(x, "public"),
    { hit: "AlbumSearchHit", section: "AlbumSearchSection" }, "public_albums"),
  curated_lists: searchShapes(CuratedListSummary.fields, (x) => curatedListSummary.fields(x),
    { hit: "CuratedListSearchHit", section: "CuratedListSearchSection" }, "public_curated_lists"),
  labels: searchShapes(Label.fields, (x) => label.fields(x, labelCountsSql(x)),
    { hit: "LabelSearchHit", section: "LabelSearchSection" }, "labels"),
  genres: searchShapes(GenreEntry.fields, (x) => genreEntry.fields(x, genreSongCountSql(x)),
    { hit: "GenreSearchHit", section: "GenreSearchSection" }, "genres"),
  users: searchShapes(ContributorProfile.fields, (x) => contributorProfile.fields(x, memberContributionCountSql(x)),
    { hit: "UserSearchHit", section: "UserSearchSection" }, "public_members")
}

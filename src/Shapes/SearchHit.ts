/** The SQL that builds the hits and sections of /v1/search (Schemas: src/Contract/SearchHit.ts). */
import type * as Schema from "effect/Schema"
import { searchTypeSchemas } from "../Contract/SearchHit.js"
import { artistSummary } from "./Artist.js"
import { curatedListSummary } from "./CuratedList.js"
import { genreEntry, genreSongCountSql } from "./Genre.js"
import { jsonArraySql } from "./JsonSql.js"
import { label, labelCountsSql } from "./Label.js"
import { contributorProfile, memberContributionCountSql } from "./Member.js"
import { type FieldsSql, shape } from "./Shape.js"
import { listAlbumEntry, songSummary } from "./Song.js"

type ScoreField = { readonly score: Schema.Top }

/**
 * One type's hit and section shapes, from the type's Schemas and the SQL of its fields for row
 * `x`. `hit.json(x, score)`; `section.json(items, total)`. `publicRows` holds fixture rows for
 * the shape test.
 */
const searchShapes = <Fields extends Schema.Struct.Fields, Items extends Schema.Top, Total extends Schema.Top>(
  schemas: {
    readonly hit: Schema.Struct<Fields & ScoreField>
    readonly section: Schema.Struct<{ readonly items: Items; readonly total: Total }>
  },
  fieldsSql: (x: string) => FieldsSql<Fields>,
  publicRows: string
) => {
  const hitFields = (x: string, score: string) => ({ ...fieldsSql(x), score })
  const hit = shape(schemas.hit, hitFields, { from: `${publicRows} x`, args: ["x", "0.5"] })
  const section = shape(
    schemas.section,
    (items: string, total: string) => ({ items, total }),
    { args: [`(SELECT ${jsonArraySql(hit.json("x", "0.5"), "x.id")} FROM (SELECT * FROM ${publicRows} LIMIT 3) x)`, "3"] }
  )
  return { hit, section }
}

/** Each type's shapes, by the name /v1/search gives the type. */
export const searchTypeShapes = {
  songs: searchShapes(searchTypeSchemas.songs, (x) => songSummary.fields(x), "public_songs"),
  artists: searchShapes(searchTypeSchemas.artists, (x) => artistSummary.fields(x), "public_artists"),
  albums: searchShapes(searchTypeSchemas.albums, (x) => listAlbumEntry.fields(x, "public"), "public_albums"),
  curated_lists: searchShapes(searchTypeSchemas.curated_lists, (x) => curatedListSummary.fields(x), "public_curated_lists"),
  labels: searchShapes(searchTypeSchemas.labels, (x) => label.fields(x, labelCountsSql(x)), "labels"),
  genres: searchShapes(searchTypeSchemas.genres, (x) => genreEntry.fields(x, genreSongCountSql(x)), "genres"),
  users: searchShapes(searchTypeSchemas.users, (x) => contributorProfile.fields(x, memberContributionCountSql(x)), "public_members")
}

import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { albumsOf } from "../Albums/Repo.js"
import { keysetPage, timestampKeyJson, type KeysetSort } from "../Domain/Keyset.js"
import { curatedListHeaderFieldsSql, curatedListSummaryJsonSql } from "../Domain/CuratedListSummary.js"
import { jsonArraySql, jsonObjectSql } from "../Domain/JsonSql.js"
import { Statements } from "../Database.js"
import { jsonById } from "../Domain/Detail.js"
import type { PageParamsInput } from "../Domain/Pagination.js"
import {
  type Audience,
  listAlbumEntryJsonSql,
  listSongEntryJsonSql,
  publicationStatusSql,
  songsOf
} from "../Domain/Song.js"
import { withSpan } from "../Spans.js"


/** The lists an audience may see: a view or table name, fixed text. */
const listsOf = (audience: Audience) => (audience === "public" ? "public_curated_lists" : "curated_lists")

/**
 * One curated list in one statement: the songs array holds rows only for `songs` lists,
 * the albums array only for `albums` lists. Staff see hidden lists and hidden entries, each
 * marked with its `status`, and the list's own `status` at the end.
 */
const listDetailSql = (audience: Audience) => `
  SELECT ${
  jsonObjectSql({
    ...curatedListHeaderFieldsSql("l"),
    show_artists: "l.show_artists",
    show_writers: "l.show_writers",
    content_type: "l.content_type",
    songs: `CASE WHEN l.content_type = 'songs' THEN (
      SELECT ${jsonArraySql(listSongEntryJsonSql("ts", audience), "e.position")}
      FROM curated_list_songs e JOIN ${songsOf(audience)} ts ON ts.id = e.song_id
      WHERE e.list_id = l.id) ELSE '[]'::json END`,
    albums: `CASE WHEN l.content_type = 'albums' THEN (
      SELECT ${jsonArraySql(listAlbumEntryJsonSql("xal", audience), "e.position")}
      FROM curated_list_albums e JOIN ${albumsOf(audience)} xal ON xal.id = e.album_id
      WHERE e.list_id = l.id) ELSE '[]'::json END`,
    ...(audience === "staff" ? { status: publicationStatusSql("l") } : {})
  })
}::text AS json
  FROM ${listsOf(audience)} l
  WHERE l.id = `

/** Public lists without their tracks, most recently updated first. */
const listSummarySort: KeysetSort = {
  source: "public_curated_lists l",
  alias: "l",
  key: "l.updated_at",
  keyJson: timestampKeyJson("l.updated_at"),
  keyType: "timestamptz",
  descending: true,
  item: curatedListSummaryJsonSql("l")
}

export class CuratedListsRepo extends Effect.Service<CuratedListsRepo>()("catalogue/CuratedListsRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const statements = yield* Statements
    const byId = (textBeforeId: string) => jsonById(statements, (id) => sql<{ json: string }>`${sql.literal(textBeforeId)}${id}`)
    const detailById = { public: byId(listDetailSql("public")), staff: byId(listDetailSql("staff")) } as const

    /** Curated list as JSON text; None when the audience may not see the list. */
    const curatedListJson = (listId: number, audience: Audience) =>
      detailById[audience](listId).pipe(
        Effect.orDie,
        withSpan("CuratedListsRepo.curatedListJson")
      )

    /** Browse of public lists. */
    const browseCuratedLists = (page: PageParamsInput) =>
      keysetPage(listSummarySort, [], page, "curated-lists|updated|desc").pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        withSpan("CuratedListsRepo.browseCuratedLists")
      )

    return { curatedListJson, browseCuratedLists } as const
  })
}) {}

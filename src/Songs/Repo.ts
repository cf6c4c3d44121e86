import * as SqlClient from "effect/sql/SqlClient"
import { batchLookup, ID_KEY, type LookupKey } from "../Queries/Batch.js"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type SongBrowse, songBrowsePage } from "../Queries/SongBrowse.js"
import { databaseContext, Statements } from "../Database.js"
import { detailReader, jsonById, type PublicRows } from "../Queries/Detail.js"
import { songContributors } from "../Shapes/Member.js"
import type { PageParamsInput } from "../Queries/Pagination.js"
import { SONG_EXTERNAL_IDS } from "../Contract/Song.js"
import { type Audience, songSource, songSummary } from "../Shapes/Song.js"
import { songDetail, staffSongDetail } from "../Shapes/SongDetail.js"
import { similarSql } from "./Similar.js"
import { withSpan } from "../Spans.js"

/**
 * One song's detail, as JSON built in one statement. Staff see every state and get the
 * song's `status` and `deleted_at` at the end; `published_at` is then null while never published.
 */
const songRows = (audience: Audience) => `
  SELECT ${audience === "public" ? songDetail.json("s", "public") : staffSongDetail.json("s")}::text AS json
  FROM ${songSource(audience)} s`

export const songDetailSql = (audience: Audience) => `${songRows(audience)}
  WHERE s.id = `

/** Every public song's detail, by id (the snapshots). */
export const publicSongRows: PublicRows = { select: songRows("public"), key: "s.id" }

/** Song contributors (src/Shapes/Member.ts). Zero rows when the audience may not see the song. */
const contributorsSql = (audience: Audience) => `
  SELECT ${songContributors.json("s")}::text AS json
  FROM ${songSource(audience)} s
  WHERE s.id = `


export class SongsRepo extends Context.Service<SongsRepo>()("catalogue/SongsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const database = yield* databaseContext
    const statements = yield* Statements

    /** Song detail as JSON text; None when the audience may not see the song. Staff: any state, plus status. */
    const findSong = detailReader(sql, statements, songDetailSql, "SongsRepo.findSong")

    /** Similar songs as JSON text; None when the song is not public. */
    const similarById = jsonById(statements, similarSql(sql))
    const findSimilarSongs = (songId: number) =>
      similarById(songId).pipe(withSpan("SongsRepo.findSimilarSongs"))

    /** Song contributors as JSON text; None when the audience may not see the song. */
    const findSongContributors = detailReader(sql, statements, contributorsSql, "SongsRepo.findSongContributors")

    /** Browse of public songs. */
    const listSongs = (browse: SongBrowse, page: PageParamsInput) =>
      songBrowsePage(sql, browse, page).pipe(Effect.provide(database), withSpan("SongsRepo.listSongs"))

    /** The asked public songs' summaries, in the order asked, by `key`. */
    const lookupSongs = (key: LookupKey, span: string) => (values: ReadonlyArray<string | number>) =>
      batchLookup("public_songs s", "s", songSummary.json("s"), key, values).pipe(
        Effect.provide(database),
        withSpan(span)
      )

    /** `ids=` */
    const listSongsByIds = lookupSongs(ID_KEY, "SongsRepo.listSongsByIds")

    /** `vidsvc_id=`, `streama_id=`, `streamb_id=`: by the ids other services gave the songs. */
    const listSongsByExternalIds = {
      vidsvc_id: lookupSongs({ column: SONG_EXTERNAL_IDS.vidsvc_id.column, type: "text" }, "SongsRepo.listSongsByVidsvcIds"),
      streama_id: lookupSongs({ column: SONG_EXTERNAL_IDS.streama_id.column, type: "text" }, "SongsRepo.listSongsByStreamaIds"),
      streamb_id: lookupSongs({ column: SONG_EXTERNAL_IDS.streamb_id.column, type: "text" }, "SongsRepo.listSongsByStreambIds")
    }

    return { findSong, findSimilarSongs, findSongContributors, listSongs, listSongsByIds, listSongsByExternalIds } as const
  })
}) {
  static readonly layer = Layer.effect(SongsRepo, SongsRepo.make)
}

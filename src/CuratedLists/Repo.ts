import * as SqlClient from "effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { keysetPage, timestampKeyJson, type KeysetSort } from "../Queries/Keyset.js"
import { curatedList, curatedListSource, curatedListSummary, staffCuratedList } from "../Shapes/CuratedList.js"
import { databaseContext, Statements } from "../Database.js"
import { detailReader, type PublicRows } from "../Queries/Detail.js"
import type { PageParamsInput } from "../Queries/Pagination.js"
import type { Audience } from "../Shapes/Song.js"
import { withSpan } from "../Spans.js"

/**
 * One curated list in one statement. Staff see hidden lists and hidden entries, each
 * marked with its `status`, and the list's own `status` at the end.
 */
const listRows = (audience: Audience) => `
  SELECT ${audience === "public" ? curatedList.json("l") : staffCuratedList.json("l")}::text AS json
  FROM ${curatedListSource(audience)} l`

const listDetailSql = (audience: Audience) => `${listRows(audience)}
  WHERE l.id = `

/** Every public curated list's detail, by id (the snapshots). */
export const publicCuratedListRows: PublicRows = { select: listRows("public"), key: "l.id" }

/** Public lists without their tracks, most recently updated first. */
const listSummarySort: KeysetSort = {
  source: "public_curated_lists l",
  alias: "l",
  key: "l.updated_at",
  keyJson: timestampKeyJson("l.updated_at"),
  keyType: "timestamptz",
  descending: true,
  item: curatedListSummary.json("l")
}

export class CuratedListsRepo extends Context.Service<CuratedListsRepo>()("catalogue/CuratedListsRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const database = yield* databaseContext
    const statements = yield* Statements

    /** Curated list as JSON text; None when the audience may not see the list. */
    const findCuratedList = detailReader(sql, statements, listDetailSql, "CuratedListsRepo.findCuratedList")

    /** Browse of public lists. */
    const listCuratedLists = (page: PageParamsInput) =>
      keysetPage(listSummarySort, [], page, "curated-lists|updated|desc").pipe(
        Effect.provide(database),
        withSpan("CuratedListsRepo.listCuratedLists")
      )

    return { findCuratedList, listCuratedLists } as const
  })
}) {
  static readonly layer = Layer.effect(CuratedListsRepo, CuratedListsRepo.make)
}

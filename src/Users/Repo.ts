import * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import { keysetPage, type KeysetSort, timestampKeyJson } from "../Domain/Keyset.js"
import { contributionEntry, contributorProfile } from "../Domain/Member.js"
import type { PageParamsInput } from "../Domain/Pagination.js"
import { songSummary } from "../Domain/Song.js"
import { withSpan } from "../Spans.js"

const lit = Statement.unsafeFragment

export type UserSort = "contributions" | "joined" | "name"
export type UserType = "artists" | "fans" | "groups"

export interface UserListQuery {
  readonly q?: string | undefined
  readonly type?: UserType | undefined
  readonly sort?: UserSort | undefined
  readonly order?: "asc" | "desc" | undefined
}

const KIND: Record<UserType, string> = { artists: "artist", fans: "fan", groups: "group" }

/**
 * Public members (a username and not banned) with their counted contributions. The
 * condition is public_members' own, spelled out because that view predates the search columns.
 * The handle (lower-cased username) is the tie-breaker, so cursors carry no internal member id.
 * The count is sql/0009's kept settled count (a probe by primary key, made only where the count
 * is read: a total counts members alone) plus the due contributions (a join Postgres removes
 * when unread; usually no rows).
 */
const publicProfiles = `(
  SELECT m.username, m.name, m.kind, m.avatar_key, m.joined_at, m.search_name, m.search_username,
         lower(m.username) AS handle, lower(m.name) AS sort_name,
         (coalesce((SELECT ms.settled FROM member_settled_contributions ms WHERE ms.member_id = m.id), 0)
          + coalesce(due.contributions, 0))::int AS contribution_count
  FROM members m
  LEFT JOIN due_member_contributions due ON due.member_id = m.id
  WHERE m.username IS NOT NULL AND NOT m.is_banned) m`

/** Contributor profile for row `m` of publicProfiles. */
const profileJson = contributorProfile.json("m", "m.contribution_count")

const userSorts: Record<UserSort, Omit<KeysetSort, "descending"> & { readonly defaultDescending: boolean }> = {
  contributions: {
    source: publicProfiles,
    alias: "m",
    key: "m.contribution_count",
    keyJson: "m.contribution_count",
    keyType: "int",
    item: profileJson,
    tie: { key: "m.handle", keyType: "text" },
    defaultDescending: true
  },
  joined: {
    source: publicProfiles,
    alias: "m",
    key: "m.joined_at",
    keyJson: timestampKeyJson("m.joined_at"),
    keyType: "timestamptz",
    item: profileJson,
    tie: { key: "m.handle", keyType: "text" },
    defaultDescending: true
  },
  name: {
    source: publicProfiles,
    alias: "m",
    key: "m.sort_name",
    keyJson: "m.sort_name",
    keyType: "text",
    item: profileJson,
    tie: { key: "m.handle", keyType: "text" },
    defaultDescending: false
  }
}

/** Contribution entry for row `c` of contributions; the song is a song summary. */
const contributionJson = contributionEntry.json("c")

const contributionsSort: KeysetSort = {
  source: "contributions c",
  alias: "c",
  key: "c.action_at",
  keyJson: timestampKeyJson("c.action_at"),
  keyType: "timestamptz",
  item: contributionJson,
  descending: true
}

const lovesSort: KeysetSort = {
  source: "loves l",
  alias: "l",
  key: "l.loved_at",
  keyJson: timestampKeyJson("l.loved_at"),
  keyType: "timestamptz",
  item: `(SELECT ${songSummary.json("s")} FROM songs s WHERE s.id = l.song_id)`,
  descending: true,
  tie: { key: "l.song_id", keyType: "id" }
}

export class UsersRepo extends Effect.Service<UsersRepo>()("catalogue/UsersRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The public member with this handle, case-insensitively, as an SQL scalar subquery. */
    const memberId = (username: string) =>
      sql`(SELECT pm.id FROM public_members pm WHERE lower(pm.username) = lower(${username}))`

    /** Contributor profiles with their q, type, sort and order. */
    const listProfiles = (query: UserListQuery, page: PageParamsInput) => {
      const sortName = query.sort ?? "contributions"
      const { defaultDescending, ...sort } = userSorts[sortName]
      const descending = query.order === undefined ? defaultDescending : query.order === "desc"
      const q = query.q?.trim() ?? ""
      const filters: Array<Statement.Fragment> = []
      if (q !== "") {
        filters.push(sql`(m.search_name LIKE '%' || fold_name(${q}) || '%'
                          OR m.search_username LIKE '%' || fold_name(${q}) || '%')`)
      }
      if (query.type !== undefined) filters.push(sql`m.kind = ${KIND[query.type]}`)
      const scope = `users|${sortName}|${descending ? "desc" : "asc"}|q=${q}|type=${query.type ?? ""}`
      // without filters, sql/0009's kept count of public members
      const total = filters.length === 0 ? sql`SELECT members FROM public_member_total` : undefined
      return keysetPage({ ...sort, descending }, filters, page, scope, { total }).pipe(
        Effect.provideService(SqlClient.SqlClient, sql),
        withSpan("UsersRepo.listProfiles")
      )
    }

    /** The member's contributions on public songs, newest first. found=false: no such public member. */
    const listContributions = (username: string, page: PageParamsInput) =>
      keysetPage(
        contributionsSort,
        [
          sql`c.member_id = ${memberId(username)}`,
          lit("EXISTS (SELECT 1 FROM public_songs s WHERE s.id = c.song_id)")
        ],
        page,
        `contributions|${username.toLowerCase()}`,
        {
          guard: sql`${memberId(username)} IS NOT NULL`,
          total: sql`SELECT coalesce((SELECT cc.contribution_count FROM public_member_contributions cc
                                      WHERE cc.member_id = ${memberId(username)}), 0)`
        }
      ).pipe(Effect.provideService(SqlClient.SqlClient, sql), withSpan("UsersRepo.listContributions"))

    /** Public songs the member loves, most recently loved first. found=false: no such public member. */
    const listLoves = (username: string, page: PageParamsInput) =>
      keysetPage(
        lovesSort,
        [
          sql`l.member_id = ${memberId(username)}`,
          lit("EXISTS (SELECT 1 FROM public_songs s WHERE s.id = l.song_id)")
        ],
        page,
        `loves|${username.toLowerCase()}`,
        { guard: sql`${memberId(username)} IS NOT NULL` }
      ).pipe(Effect.provideService(SqlClient.SqlClient, sql), withSpan("UsersRepo.listLoves"))

    return { listProfiles, listContributions, listLoves } as const
  })
}) {}

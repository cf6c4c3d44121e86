import * as SqlClient from "effect/sql/SqlClient"
import * as Statement from "effect/sql/Statement"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { keysetPage, type KeysetSort, type TableKeysetSort, timestampKeyJson } from "../Queries/Keyset.js"
import { foldedNameContains, isShortQuery } from "../Queries/NameFilter.js"
import { steered } from "../Queries/SteeredPage.js"
import { contributionEntry, contributorProfile } from "../Shapes/Member.js"
import type { PublicRows } from "../Queries/Detail.js"
import type { PageParamsInput } from "../Queries/Pagination.js"
import { songSummaryOf } from "../Shapes/Song.js"
import { withSpan } from "../Spans.js"
import { databaseContext } from "../Database.js"
import { unsafeFragment } from "../Database/SqlText.js"

const lit = unsafeFragment

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
 * Public members, for the sorts by join date and by name (members_public_joined_handle_idx,
 * members_public_name_handle_idx). The handle (lower-cased username) is the
 * tie-breaker, so cursors carry no internal member id. Their counted contributions are read for
 * the page's rows only (publicContributionCount), never for the rows an offset skips.
 */
const publicProfiles = `(
  SELECT m.id, m.username, m.name, m.kind, m.avatar_key, m.joined_at, m.search_name, m.search_username,
         lower(m.username) AS handle, lower(m.name) AS sort_name
  FROM members m
  WHERE member_is_public(m.username, m.is_banned)) m`

/**
 * A public member's contributions (row `m` of publicProfiles): kept settled count (a
 * probe by primary key) plus the due ones (usually no rows).
 */
const publicContributionCount = `(
  coalesce((SELECT ms.settled FROM member_settled_contributions ms WHERE ms.member_id = m.id), 0)
  + coalesce((SELECT due.contributions FROM due_member_contributions due WHERE due.member_id = m.id), 0))::int`

/**
 * The ranked members in contribution order (exactly the public members): the kept
 * ranks of members without due contributions, one range of member_contribution_ranks_idx, merged
 * with the due members (usually none) at their public count. The exclusion stays outside the
 * UNION ALL, which PostgreSQL then plans as one ordered merge (a subquery inside an arm would stop it).
 * The ranks carry what the filters test (kind, folded name and username), so a walk to a
 * deep page, filtered or not, reads the rank index only (index-only), and the page's profiles are
 * read by key.
 */
const rankedMembers = `(
  SELECT k.member_id AS id, k.handle, k.contribution_count, k.kind, k.search_name, k.search_username
  FROM (SELECT r.member_id, r.handle, r.settled AS contribution_count, r.kind, r.search_name, r.search_username, false AS due
        FROM member_contribution_ranks r
        UNION ALL
        SELECT d.member_id, d.handle, d.contribution_count, d.kind, d.search_name, d.search_username, true FROM due_member_ranks d) k
  WHERE k.due OR k.member_id <> ALL (ARRAY(SELECT d.member_id FROM due_member_ranks d))) m`

/** Contributor profile for row `m` of publicProfiles. */
const publicProfileJson = contributorProfile.json("m", publicContributionCount)

/** Every public member's entry in /v1/users, by handle in byte order (the snapshots). */
export const publicUserRows: PublicRows = { select: `SELECT ${publicProfileJson}::text AS json FROM ${publicProfiles}`, key: `m.handle COLLATE "C"` }

/** Contributor profile for row `m` of rankedMembers. */
const rankedMemberJson = `(SELECT ${contributorProfile.json("x", "m.contribution_count")} FROM members x WHERE x.id = m.id)`

const userSorts: Record<UserSort, Omit<KeysetSort, "descending"> & { readonly defaultDescending: boolean }> = {
  contributions: {
    source: rankedMembers,
    alias: "m",
    key: "m.contribution_count",
    keyJson: "m.contribution_count",
    keyType: "int",
    item: rankedMemberJson,
    tie: { key: "m.handle", keyType: "text" },
    defaultDescending: true
  },
  joined: {
    source: publicProfiles,
    alias: "m",
    key: "m.joined_at",
    keyJson: timestampKeyJson("m.joined_at"),
    keyType: "timestamptz",
    item: publicProfileJson,
    tie: { key: "m.handle", keyType: "text" },
    defaultDescending: true
  },
  name: {
    source: publicProfiles,
    alias: "m",
    key: "m.sort_name",
    keyJson: "m.sort_name",
    keyType: "text",
    item: publicProfileJson,
    tie: { key: "m.handle", keyType: "text" },
    defaultDescending: false
  }
}

/**
 * Every member's contributions on public songs, newest first, as rows `c` of (id, member_id,
 * action_at) kept with the public rule (a list filters `c.member_id`): one index-only
 * range of the member's, walked from the nearer end; the entry (a contribution and its song's
 * summary) is built for the page's rows only.
 */
const contributionsSort: TableKeysetSort = {
  source: `(SELECT o.id, o.member_id, o.action_at FROM member_contribution_orders o
      WHERE song_is_public(o.public_from, NULL)) c`,
  alias: "c",
  key: "c.action_at",
  keyJson: timestampKeyJson("c.action_at"),
  keyType: "timestamptz",
  item: `(SELECT ${contributionEntry.json("x")} FROM contributions x WHERE x.id = c.id)`,
  descending: true
}

const lovesSort: KeysetSort = {
  source: "loves l",
  alias: "l",
  key: "l.loved_at",
  keyJson: timestampKeyJson("l.loved_at"),
  keyType: "timestamptz",
  item: songSummaryOf("l.song_id"),
  descending: true,
  tie: { key: "l.song_id", keyType: "id" }
}

export class UsersRepo extends Context.Service<UsersRepo>()("catalogue/UsersRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const database = yield* databaseContext

    /** The public member with this handle, case-insensitively, as an SQL scalar subquery. */
    const memberId = (username: string) =>
      sql`(SELECT pm.id FROM public_members pm WHERE lower(pm.username) = lower(${username}))`

    /** Contributor profiles with their q, type, sort and order. */
    const listUsers = (query: UserListQuery, page: PageParamsInput) => {
      const sortName = query.sort ?? "contributions"
      const { defaultDescending, ...sort } = userSorts[sortName]
      const descending = query.order === undefined ? defaultDescending : query.order === "desc"
      const q = query.q?.trim() ?? ""
      const filters: Array<Statement.Fragment> = []
      if (q !== "") {
        filters.push(foldedNameContains(sql, q, ["m.search_name", "m.search_username"]))
      }
      if (query.type !== undefined) filters.push(sql`m.kind = ${KIND[query.type]}`)
      const scope = `users|${sortName}|${descending ? "desc" : "asc"}|q=${q}|type=${query.type ?? ""}`
      const shortQuery = q !== "" && isShortQuery(q)
      // a q of one or two characters has its public members kept (NULL: it folds to more)
      const keptMatches = shortQuery ? sql`short_member_query_count(${q})` : undefined
      /** the matches themselves, by the members' own indexes (trigram for q): the list's rows */
      const matching = (columns: string) =>
        sql`SELECT ${lit(columns)} FROM members m WHERE member_is_public(m.username, m.is_banned) AND ${Statement.and(filters)}`
      const counted = matching("count(*)")
      // kept counts without q: public members, of one kind; with q, the matches counted
      const total = q === ""
        ? query.type === undefined
          ? sql`SELECT members FROM public_member_total`
          : sql`SELECT coalesce((SELECT members FROM public_member_kind_counts WHERE kind = ${KIND[query.type]}), 0)`
        : keptMatches !== undefined && query.type === undefined
        ? sql`SELECT coalesce(${keptMatches}, (${counted}))`
        : counted
      // with q or type, few matches are collected (by the members' own indexes for joined and name)
      // or read by key (a short q's kept members; a longer q's matches by their handles: the ranks
      // of the contribution order carry no trigram index) instead of walking the sort's order past
      // every member that does not match
      const publicMembers = sql`SELECT members FROM public_member_total`
      const steer = steered({
        collect: filters,
        scale: publicMembers,
        // a short q is tested on every member (no trigram), not found by an index
        scanned: shortQuery ? publicMembers : undefined,
        keys: q === ""
          ? undefined
          : keptMatches === undefined
          ? [{ ids: matching("lower(m.username)") }]
          : [{ ids: sql`SELECT h.handle FROM short_member_query_handles(${q}) h`, size: sql`coalesce(${keptMatches}, 2147483647)` }]
      })
      return keysetPage({ ...sort, descending }, filters, page, scope, { total, steer }).pipe(
        Effect.provide(database),
        withSpan("UsersRepo.listUsers")
      )
    }

    /** The member's contributions on public songs, newest first. found=false: no such public member. */
    const listUserContributions = (username: string, page: PageParamsInput) =>
      keysetPage(
        contributionsSort,
        [sql`c.member_id = ${memberId(username)}`],
        page,
        `contributions|${username.toLowerCase()}`,
        {
          guard: sql`${memberId(username)} IS NOT NULL`,
          total: sql`SELECT coalesce((SELECT cc.contribution_count FROM public_member_contributions cc
                                      WHERE cc.member_id = ${memberId(username)}), 0)`,
          steer: steered({})
        }
      ).pipe(Effect.provide(database), withSpan("UsersRepo.listUserContributions"))

    /** Public songs the member loves, most recently loved first. found=false: no such public member. */
    const listUserLoves = (username: string, page: PageParamsInput) =>
      keysetPage(
        lovesSort,
        [
          sql`l.member_id = ${memberId(username)}`,
          lit("EXISTS (SELECT 1 FROM public_songs s WHERE s.id = l.song_id)")
        ],
        page,
        `loves|${username.toLowerCase()}`,
        { guard: sql`${memberId(username)} IS NOT NULL` }
      ).pipe(Effect.provide(database), withSpan("UsersRepo.listUserLoves"))

    return { listUsers, listUserContributions, listUserLoves } as const
  })
}) {
  static readonly layer = Layer.effect(UsersRepo, UsersRepo.make)
}

import * as SqlClient from "effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { badCursor, decodeCursor, encodeCursor } from "../Domain/Cursor.js"
import { change } from "../Domain/Change.js"
import { jsonArraySql } from "../Domain/JsonSql.js"
import { withSpan } from "../Spans.js"
import { unsafeFragment } from "../Database/SqlText.js"

const SCOPE = "changes"

/**
 * Where a reader stands: the immediate stream by (xid, position), the due stream by (due_at,
 * xid, position), and the horizon its rows were judged at. Times are microseconds since 1970,
 * xids and positions decimal text (64-bit).
 */
export interface FeedPosition {
  readonly xid: string
  readonly position: string
  readonly dueAt: number
  readonly dueXid: string
  readonly duePosition: string
  readonly horizon: number
}

/** A feed position in a cursor: xid, position, due time, due xid, due position, horizon. */
const FEED_KEY = ["xid", "position", "micros", "xid", "position", "micros"] as const
const U64 = 2n ** 64n
const I64 = 2n ** 63n

/** The position a `since` cursor names; bad_request for anything this endpoint did not make. */
const decodeSince = (since: string) =>
  Option.match(Option.filter(decodeCursor(since, SCOPE, FEED_KEY), ({ key }) => key[2] <= key[5]), {
    onNone: () => Effect.fail(badCursor),
    onSome: ({ key: [xid, position, dueAt, dueXid, duePosition, horizon] }) =>
      Effect.succeed<FeedPosition>({
        xid: String(xid),
        position: String(position),
        dueAt: Number(dueAt),
        dueXid: String(dueXid),
        duePosition: String(duePosition),
        horizon: Number(horizon)
      })
  })

const encodePosition = (p: FeedPosition) =>
  encodeCursor(SCOPE, 0, [p.xid, p.position, p.dueAt, p.dueXid, p.duePosition, p.horizon])

const MAX_XID = (U64 - 1n).toString()
const MAX_POSITION = (I64 - 1n).toString()

interface PageRow {
  readonly valid: boolean
  readonly json: string
  readonly total: number
  readonly immediate: number
  readonly due: number
  readonly last_xid: string | null
  readonly last_position: string | null
  readonly last_due_at: string | null
  readonly last_due_xid: string | null
  readonly last_due_position: string | null
  readonly xmin: string
  readonly horizon: string
  readonly origin: string
}

/** The page's entries as compact JSON, in feed order. */
const FEED_ENTRIES = unsafeFragment(jsonArraySql(change.json("c"), "c.ord"))

export interface ChangesPage {
  readonly itemsJson: string
  readonly total: number
  readonly nextCursor: string
}

export class ChangesRepo extends Context.Service<ChangesRepo>()("catalogue/ChangesRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /**
     * One page in one statement. The immediate stream serves only transactions older than this
     * snapshot's xmin (all finished), so one that commits late is never passed over. The horizon
     * (the time schedules are judged at) never passes the start of a transaction still running,
     * since that one may be withdrawing a row about to appear, and never goes back for a reader.
     * Each row touched in the page appears once, judged now: upsert when public at the horizon,
     * remove when not but public at some moment before, else left out.
     */
    const page = (from: FeedPosition | undefined, limit: number) =>
      sql<PageRow>`
        -- the start is read through scalar subqueries: an index range bound, not a join the planner
        -- may answer by walking the whole log in order (an empty poll took 0.6 s at 1M that way)
        WITH origin AS (
          SELECT (extract(epoch FROM started_at) * 1000000)::bigint AS us FROM change_feed_origin
        ),
        start AS (
          SELECT coalesce(${from?.xid ?? null}::xid8, '0'::xid8) AS xid,
                 coalesce(${from?.position ?? null}::bigint, 0) AS position,
                 timestamptz 'epoch' + coalesce(${from?.dueAt ?? null}::bigint, (SELECT us FROM origin)) * interval '1 microsecond' AS due_at,
                 coalesce(${from?.dueXid ?? null}::xid8, '0'::xid8) AS due_xid,
                 coalesce(${from?.duePosition ?? null}::bigint, 0) AS due_position,
                 timestamptz 'epoch' + coalesce(${from?.horizon ?? null}::bigint, (SELECT us FROM origin)) * interval '1 microsecond' AS horizon
        ),
        -- Transaction ids are the cluster's: one running in another database writes no change of
        -- this one, so only those positively seen there are let by; any other holds the feed.
        h AS (
          SELECT coalesce(
              (SELECT min(x) FROM pg_snapshot_xip(pg_current_snapshot()) AS x
               WHERE NOT EXISTS (
                 SELECT 1 FROM pg_stat_activity a
                 WHERE a.backend_xid IS NOT NULL AND a.datname IS DISTINCT FROM current_database()
                   AND a.backend_xid::text = (x::text::numeric % 4294967296)::text)),
              pg_snapshot_xmax(pg_current_snapshot())) AS xmin,
            least(now(), greatest((SELECT horizon FROM start), coalesce(
              (SELECT min(xact_start) FROM pg_stat_activity
               WHERE backend_xid IS NOT NULL AND datname = current_database() AND pid <> pg_backend_pid()),
              now()))) AS horizon
        ),
        immediate AS (
          SELECT l.xid, l.position, l.kind, l.row_key, l.may_remove, l.at,
                 row_number() OVER (ORDER BY l.xid, l.position) AS ord
          FROM (SELECT l.* FROM change_log l
                WHERE l.due_at IS NULL AND (l.xid, l.position) > ((SELECT xid FROM start), (SELECT position FROM start))
                  AND l.xid < (SELECT xmin FROM h)
                ORDER BY l.xid, l.position LIMIT ${limit}) l
        ),
        due AS (
          SELECT l.due_at, l.xid, l.position, l.kind, l.row_key, l.may_remove, l.due_at AS at,
                 ${limit} + row_number() OVER (ORDER BY l.due_at, l.xid, l.position) AS ord
          FROM (SELECT l.* FROM change_log l
                WHERE l.due_at IS NOT NULL
                  AND (l.due_at, l.xid, l.position) > ((SELECT due_at FROM start), (SELECT due_xid FROM start), (SELECT due_position FROM start))
                  AND l.due_at <= (SELECT horizon FROM h)
                ORDER BY l.due_at, l.xid, l.position LIMIT ${limit} - (SELECT count(*) FROM immediate)) l
        ),
        touched AS (
          SELECT kind, row_key, bool_or(may_remove) AS may_remove, max(at) AS at, max(ord) AS ord
          FROM (SELECT kind, row_key, may_remove, at, ord FROM immediate
                UNION ALL SELECT kind, row_key, may_remove, at, ord FROM due) x
          GROUP BY kind, row_key
        ),
        judged AS (
          SELECT t.*, feed_public(t.kind, t.row_key, (SELECT horizon FROM h)) AS public FROM touched t
        ),
        served AS (SELECT * FROM judged WHERE public OR may_remove)
        SELECT
          (SELECT horizon FROM start) <= now() AND (SELECT due_at FROM start) >= (SELECT started_at FROM change_feed_origin) - interval '1 second' AS valid,
          (SELECT ${FEED_ENTRIES} FROM served c)::text AS json,
          (SELECT count(*) FROM served)::int AS total,
          (SELECT count(*) FROM immediate)::int AS immediate,
          (SELECT count(*) FROM due)::int AS due,
          (SELECT xid::text FROM immediate ORDER BY ord DESC LIMIT 1) AS last_xid,
          (SELECT position::text FROM immediate ORDER BY ord DESC LIMIT 1) AS last_position,
          (SELECT (extract(epoch FROM due_at) * 1000000)::bigint::text FROM due ORDER BY ord DESC LIMIT 1) AS last_due_at,
          (SELECT xid::text FROM due ORDER BY ord DESC LIMIT 1) AS last_due_xid,
          (SELECT position::text FROM due ORDER BY ord DESC LIMIT 1) AS last_due_position,
          (SELECT xmin::text FROM h) AS xmin,
          (SELECT (extract(epoch FROM horizon) * 1000000)::bigint::text FROM h) AS horizon,
          (SELECT us::text FROM origin) AS origin`.pipe(Effect.orDie)

    /** The changes after `since` (a cursor of this endpoint), at most `limit` read. */
    const listChanges = (since: string | undefined, limit: number) =>
      Effect.gen(function*() {
        const from = since === undefined ? undefined : yield* decodeSince(since)
        const [row] = yield* page(from, limit)
        if (row === undefined || !row.valid) return yield* Effect.fail(badCursor)
        const origin = Number(row.origin)
        const start: FeedPosition = from ??
          { xid: "0", position: "0", dueAt: origin, dueXid: "0", duePosition: "0", horizon: origin }
        if (row.immediate + row.due === 0) {
          return { itemsJson: row.json, total: row.total, nextCursor: encodePosition(start) } satisfies ChangesPage
        }
        const horizon = Number(row.horizon)
        // A stream read short of `limit` was read to its end: resume past everything it can still hold
        // (immediate: transactions below xmin are finished; due: nothing more up to the horizon).
        const immediateDone = row.immediate < limit
        const dueDone = row.immediate + row.due < limit
        const next: FeedPosition = {
          xid: immediateDone ? row.xmin : row.last_xid ?? start.xid,
          position: immediateDone ? "0" : row.last_position ?? start.position,
          dueAt: dueDone ? horizon : row.last_due_at === null ? start.dueAt : Number(row.last_due_at),
          dueXid: dueDone ? MAX_XID : row.last_due_xid ?? start.dueXid,
          duePosition: dueDone ? MAX_POSITION : row.last_due_position ?? start.duePosition,
          horizon
        }
        return { itemsJson: row.json, total: row.total, nextCursor: encodePosition(next) } satisfies ChangesPage
      }).pipe(withSpan("ChangesRepo.listChanges"))

    return { listChanges } as const
  })
}) {
  static readonly Default = Layer.effect(ChangesRepo, ChangesRepo.make)
}

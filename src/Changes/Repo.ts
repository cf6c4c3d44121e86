import * as SqlClient from "effect/sql/SqlClient"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { badCursor } from "../Queries/Cursor.js"
import { change } from "../Shapes/Change.js"
import { jsonArraySql } from "../Shapes/JsonSql.js"
import { withSpan } from "../Spans.js"
import { unsafeFragment } from "../Database/SqlText.js"
import { makeCursorSeal } from "./CursorSeal.js"
import { type FeedCursor, feedCursor, type FeedPosition } from "./FeedCursor.js"

/**
 * How far a cursor's horizon may lie ahead of the reader's clock: replicas' clocks drift apart a
 * little. Further ahead is no clock this feed trusts: the cursor is bad_request.
 */
const CLOCK_DRIFT_TOLERATED = unsafeFragment("interval '1 minute'")

/** A new reader has passed no due touch: nothing can be late for it. */
const MAX_XID = (2n ** 64n - 1n).toString()

/**
 * The cursor of a copy read in one transaction snapshot (docs/changes.md, "Snapshots"): `xmin` is
 * the snapshot's xmin (every transaction below it had finished, each one from it on may be unseen),
 * `at` its `now()` in microseconds, the time its rows were judged public at. The immediate stream
 * resumes at the first touch of transaction `xmin`, the due stream at the due touches of `at`, and
 * the late stream serves those of `at` and before whose writer is `xmin` or later: whatever the copy
 * could not see comes after, and some of what it saw comes again (judged when read: harmless).
 */
export const snapshotCursor = (cursorKey: Buffer, xmin: string, at: number) =>
  feedCursor(makeCursorSeal(cursorKey)).encode({
    xid: xmin,
    position: "0",
    dueAt: at,
    dueKind: "",
    dueKey: "",
    horizon: at,
    lateXid: xmin,
    lateDueAt: 0,
    lateKind: "",
    lateKey: ""
  })

interface PageRow {
  readonly valid: boolean
  readonly json: string
  readonly total: number
  readonly immediate: number
  readonly due: number
  readonly last_xid: string | null
  readonly last_position: string | null
  readonly last_due_at: string | null
  readonly last_due_kind: string | null
  readonly last_due_key: string | null
  readonly late: number
  readonly last_late_xid: string | null
  readonly last_late_due_at: string | null
  readonly last_late_kind: string | null
  readonly last_late_key: string | null
  readonly due_read: boolean
  readonly xmin: string
  readonly horizon: string
  readonly origin: string
}

/** The page's entries as compact JSON, in feed order. */
const FEED_ENTRIES = unsafeFragment(jsonArraySql(change.json("c"), "c.ord"))

type Sql = SqlClient.SqlClient

/**
 * `origin`, `start`: where the page starts, the cursor's position or, for a new reader, the feed's
 * origin. Read through scalar subqueries: an index range bound, not a join the planner may answer
 * by walking the whole log in order (an empty poll took 0.6 s at 1M that way).
 */
const startOf = (sql: Sql, from: FeedPosition | undefined) => sql`origin AS (
          SELECT (extract(epoch FROM started_at) * 1000000)::bigint AS us FROM change_feed_origin
        ),
        start AS (
          SELECT coalesce(${from?.xid ?? null}::xid8, '0'::xid8) AS xid,
                 coalesce(${from?.position ?? null}::bigint, 0) AS position,
                 timestamptz 'epoch' + coalesce(${from?.dueAt ?? null}::bigint, (SELECT us FROM origin)) * interval '1 microsecond' AS due_at,
                 coalesce(${from?.dueKind ?? null}::text, '') AS due_kind,
                 coalesce(${from?.dueKey ?? null}::text, '') AS due_key,
                 timestamptz 'epoch' + coalesce(${from?.horizon ?? null}::bigint, (SELECT us FROM origin)) * interval '1 microsecond' AS horizon,
                 coalesce(${from?.lateXid ?? null}::xid8, ${MAX_XID}::xid8) AS late_xid,
                 timestamptz 'epoch' + coalesce(${from?.lateDueAt ?? null}::bigint, 0) * interval '1 microsecond' AS late_due_at,
                 coalesce(${from?.lateKind ?? null}::text, '') AS late_kind,
                 coalesce(${from?.lateKey ?? null}::text, '') AS late_key
        )`

/**
 * `h`: this reader's xmin and horizon. Transaction ids are the cluster's: one running in another
 * database writes no change of this one, so only those positively seen there are let by; any other
 * holds the feed. The horizon never passes the start of a transaction still running (it may be
 * withdrawing a row about to appear) and never goes back for a reader.
 */
const readerHorizon = (sql: Sql) => sql`h AS (
          SELECT CASE WHEN pg_is_in_recovery() THEN pg_snapshot_xmin(pg_current_snapshot()) ELSE coalesce(
              (SELECT min(x) FROM pg_snapshot_xip(pg_current_snapshot()) AS x
               WHERE NOT EXISTS (
                 SELECT 1 FROM pg_stat_activity a
                 WHERE a.backend_xid IS NOT NULL AND a.datname IS DISTINCT FROM current_database()
                   AND a.backend_xid::text = (x::text::numeric % 4294967296)::text)),
              pg_snapshot_xmax(pg_current_snapshot())) END AS xmin,
            least(now(), greatest((SELECT horizon FROM start), coalesce(
              (SELECT min(xact_start) FROM pg_stat_activity
               WHERE backend_xid IS NOT NULL AND datname = current_database() AND pid <> pg_backend_pid()),
              now()))) AS horizon
        )`

/**
 * `may`: which streams this reader may read. One whose clock has not reached the cursor's horizon
 * (the replica that issued it runs ahead) reads nothing: judged at an earlier time, a row that
 * reader saw public could come out removed, with its due touch already passed. One that has not
 * seen every transaction the cursor's reader had seen (a staler standby) leaves the due and late
 * streams where they are: it could not vouch for them.
 */
const mayRead = (sql: Sql) => sql`may AS (
          SELECT c.reached AS immediate,
                 c.reached AND ((SELECT late_xid FROM start) = ${MAX_XID}::xid8 OR (SELECT xmin FROM h) >= (SELECT late_xid FROM start)) AS due
          FROM (SELECT (SELECT horizon FROM start) <= now() AS reached) c
        )`

/** `immediate`: the touches after the start position of transactions older than `h.xmin` (all finished), in log order. */
const immediateStream = (sql: Sql, limit: number) => sql`immediate AS (
          SELECT l.xid, l.position, l.kind, l.row_key, true AS may_remove, l.at,
                 row_number() OVER (ORDER BY l.xid, l.position) AS ord
          FROM (SELECT l.* FROM change_log l
                WHERE (SELECT immediate FROM may)
                  AND (l.xid, l.position) > ((SELECT xid FROM start), (SELECT position FROM start))
                  AND l.xid < (SELECT xmin FROM h)
                ORDER BY l.xid, l.position LIMIT ${limit}) l
        )`

/**
 * `late`: due touches the due stream passed while their writer was still running: behind its
 * position, at or after the late position, their writer finished now.
 */
const lateStream = (sql: Sql, limit: number) => sql`late AS (
          SELECT l.xid, l.due_at, l.kind, l.row_key, false AS may_remove, l.due_at AS at,
                 ${limit} + row_number() OVER (ORDER BY l.xid, l.due_at, l.kind, l.row_key) AS ord
          FROM (SELECT DISTINCT l.xid, l.due_at, l.kind, l.row_key FROM change_due l
                WHERE (SELECT due FROM may)
                  AND (l.xid, l.due_at, l.kind, l.row_key) > ((SELECT late_xid FROM start), (SELECT late_due_at FROM start), (SELECT late_kind FROM start), (SELECT late_key FROM start))
                  AND l.xid < (SELECT xmin FROM h)
                  AND (l.due_at, l.kind, l.row_key) <= ((SELECT due_at FROM start), (SELECT due_kind FROM start), (SELECT due_key FROM start))
                ORDER BY l.xid, l.due_at, l.kind, l.row_key LIMIT ${limit} - (SELECT count(*) FROM immediate)) l
        )`

/**
 * `due`: scheduled rows whose time came, up to the horizon. Due touches are keyed by what they say
 * (no position: their writes are not counted); rows of the same (due_at, kind, row_key) from several
 * sources are one entry; only those of finished writers (a running one's are the late stream's once
 * it ends).
 */
const dueStream = (sql: Sql, limit: number) => sql`due AS (
          SELECT l.due_at, l.kind, l.row_key, false AS may_remove, l.due_at AS at,
                 2 * ${limit} + row_number() OVER (ORDER BY l.due_at, l.kind, l.row_key) AS ord
          FROM (SELECT DISTINCT l.due_at, l.kind, l.row_key FROM change_due l
                WHERE (SELECT due FROM may)
                  AND (l.due_at, l.kind, l.row_key) > ((SELECT due_at FROM start), (SELECT due_kind FROM start), (SELECT due_key FROM start))
                  AND l.due_at <= (SELECT horizon FROM h)
                  AND l.xid < (SELECT xmin FROM h)
                ORDER BY l.due_at, l.kind, l.row_key LIMIT ${limit} - (SELECT count(*) FROM immediate) - (SELECT count(*) FROM late)) l
        )`

/**
 * `touched`, `judged`, `served`: each row touched in the three streams once, judged at the
 * horizon: upsert when public then, remove when not but public at some moment before, else left out.
 */
const JUDGED = unsafeFragment(`touched AS (
          SELECT kind, row_key, bool_or(may_remove) AS may_remove, max(at) AS at, max(ord) AS ord
          FROM (SELECT kind, row_key, may_remove, at, ord FROM immediate
                UNION ALL SELECT kind, row_key, may_remove, at, ord FROM late
                UNION ALL SELECT kind, row_key, may_remove, at, ord FROM due) x
          GROUP BY kind, row_key
        ),
        judged AS (
          SELECT t.*, feed_public(t.kind, t.row_key, (SELECT horizon FROM h)) AS public FROM touched t
        ),
        served AS (SELECT * FROM judged WHERE public OR may_remove)`)

/**
 * The page's one row (PageRow): whether the cursor is valid here, the entries, how many each
 * stream read and the last position each reached, and this reader's xmin and horizon.
 */
const pageRow = (sql: Sql) => sql`SELECT
          (SELECT horizon FROM start) <= now() + ${CLOCK_DRIFT_TOLERATED} AND (SELECT due_at FROM start) >= (SELECT started_at FROM change_feed_origin) - interval '1 second' AS valid,
          (SELECT ${FEED_ENTRIES} FROM served c)::text AS json,
          (SELECT count(*) FROM served)::int AS total,
          (SELECT count(*) FROM immediate)::int AS immediate,
          (SELECT count(*) FROM due)::int AS due,
          (SELECT xid::text FROM immediate ORDER BY ord DESC LIMIT 1) AS last_xid,
          (SELECT position::text FROM immediate ORDER BY ord DESC LIMIT 1) AS last_position,
          (SELECT (extract(epoch FROM due_at) * 1000000)::bigint::text FROM due ORDER BY ord DESC LIMIT 1) AS last_due_at,
          (SELECT kind FROM due ORDER BY ord DESC LIMIT 1) AS last_due_kind,
          (SELECT row_key FROM due ORDER BY ord DESC LIMIT 1) AS last_due_key,
          (SELECT count(*) FROM late)::int AS late,
          (SELECT xid::text FROM late ORDER BY ord DESC LIMIT 1) AS last_late_xid,
          (SELECT (extract(epoch FROM due_at) * 1000000)::bigint::text FROM late ORDER BY ord DESC LIMIT 1) AS last_late_due_at,
          (SELECT kind FROM late ORDER BY ord DESC LIMIT 1) AS last_late_kind,
          (SELECT row_key FROM late ORDER BY ord DESC LIMIT 1) AS last_late_key,
          (SELECT due FROM may) AS due_read,
          (SELECT xmin::text FROM h) AS xmin,
          (SELECT (extract(epoch FROM horizon) * 1000000)::bigint::text FROM h) AS horizon,
          (SELECT us::text FROM origin) AS origin`

/**
 * One page in one statement, its parts above in order. The immediate stream serves only
 * transactions older than this snapshot's xmin (all finished), so one that commits late is never
 * passed over.
 */
const pageStatement = (sql: Sql, from: FeedPosition | undefined, limit: number) =>
  sql<PageRow>`
        WITH ${startOf(sql, from)},
        ${readerHorizon(sql)},
        ${mayRead(sql)},
        ${immediateStream(sql, limit)},
        ${lateStream(sql, limit)},
        ${dueStream(sql, limit)},
        ${JUDGED}
        ${pageRow(sql)}`

export interface ChangesPage {
  readonly itemsJson: string
  readonly total: number
  readonly nextCursor: string
}

export class ChangesRepo extends Context.Service<ChangesRepo>()("catalogue/ChangesRepo", {
  make: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** The cursor codec, sealed with the key the migration stored (read once, on the first feed request). */
    let cursors: FeedCursor | undefined
    const feedCursors = Effect.suspend(() =>
      cursors !== undefined
        ? Effect.succeed(cursors)
        : sql<{ readonly key: string }>`SELECT encode(cursor_key, 'hex') AS key FROM change_feed_origin`.pipe(
          Effect.map(([row]) => (cursors = feedCursor(makeCursorSeal(Buffer.from(row!.key, "hex")))))
        )
    )

    /** The changes after `since` (a cursor of this endpoint), at most `limit` read. */
    const listChanges = (since: string | undefined, limit: number) =>
      Effect.gen(function*() {
        const codec = yield* feedCursors
        const from = since === undefined ? undefined : codec.decode(since)
        if (since !== undefined && from === undefined) return yield* Effect.fail(badCursor)
        const [row] = yield* pageStatement(sql, from, limit)
        if (row === undefined || !row.valid) return yield* Effect.fail(badCursor)
        const origin = Number(row.origin)
        const start: FeedPosition = from ??
          { xid: "0", position: "0", dueAt: origin, dueKind: "", dueKey: "", horizon: origin, lateXid: MAX_XID, lateDueAt: 0, lateKind: "", lateKey: "" }
        // nothing read: the cursor given comes back as it was (a client has caught up when it does)
        if (row.immediate + row.late + row.due === 0) {
          return { itemsJson: row.json, total: row.total, nextCursor: since ?? codec.encode(start) } satisfies ChangesPage
        }
        const horizon = Number(row.horizon)
        // The immediate stream resumes after the last touch read: every touch of a transaction below
        // xmin was visible, so one read short of `limit` left none behind, and the cursor names only
        // positions of touches served. A due stream read short of `limit` holds nothing more up to
        // the horizon: it resumes one microsecond past it.
        // A late stream read short of `limit` holds nothing more below xmin: whatever the due stream
        // passes from here on while its writer runs has an xid at or above this xmin.
        const lateDone = row.immediate + row.late < limit
        const dueDone = row.immediate + row.late + row.due < limit
        const immediate = { xid: row.last_xid ?? start.xid, position: row.last_position ?? start.position }
        const next: FeedPosition = !row.due_read ? { ...start, ...immediate } : {
          ...immediate,
          dueAt: dueDone ? horizon + 1 : row.last_due_at === null ? start.dueAt : Number(row.last_due_at),
          dueKind: dueDone ? "" : row.last_due_kind ?? start.dueKind,
          dueKey: dueDone ? "" : row.last_due_key ?? start.dueKey,
          horizon,
          lateXid: lateDone ? row.xmin : row.last_late_xid ?? start.lateXid,
          lateDueAt: lateDone ? 0 : row.last_late_due_at === null ? start.lateDueAt : Number(row.last_late_due_at),
          lateKind: lateDone ? "" : row.last_late_kind ?? start.lateKind,
          lateKey: lateDone ? "" : row.last_late_key ?? start.lateKey
        }
        return { itemsJson: row.json, total: row.total, nextCursor: codec.encode(next) } satisfies ChangesPage
      }).pipe(withSpan("ChangesRepo.listChanges"))

    return { listChanges } as const
  })
}) {
  static readonly layer = Layer.effect(ChangesRepo, ChangesRepo.make)
}

import { afterAll, beforeAll, describe, expect } from "bun:test"
import * as fc from "fast-check"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { onPostgres } from "./support/database.js"
import { EDITED_ROWS, editArb, editSql, type Edit } from "./support/feedEdits.js"
import { request } from "./support/http.js"
import { expectFileEqualsApi, mirrorOnce } from "./support/mirror.js"
import { propertySeeds } from "./support/propertySeeds.js"
import { startServer, type TestServer } from "./support/server.js"
import { ON_POSTGRES_ONLY, testWhen } from "./support/skips.js"
import { runSnapshot } from "./support/snapshot.js"

/**
 * A mirror is exact (docs/changes.md, "Snapshots"): a real snapshot (`bun run snapshot` into the
 * SNAPSHOT_DIR the service serves) is taken while writes of every kind the feed follows commit
 * before, during and after its transaction; the reference client builds its SQLite file from that
 * snapshot and the feed from the manifest's cursor, and the file then equals the API row for row.
 *
 * PostgreSQL only: on the embedded database the service's one connection runs one transaction at a
 * time, so no write can commit while the snapshot's transaction is open (nor can the command run
 * beside the service).
 */
const testOnPostgres = testWhen(onPostgres, ON_POSTGRES_ONLY)
let server: TestServer
let dir: string

/**
 * Public songs no edit touches, of an artist no edit names: they make the snapshot's transaction
 * last long enough (a few hundred milliseconds) for many writes to commit while it is open.
 */
const QUIET_SONGS = [
  `INSERT INTO artists (id, name, slug, is_group) VALUES (13, 'Quiet Filler', 'quiet-filler', false)`,
  `INSERT INTO songs (id, title, slug, released_at, published_at)
   SELECT id, 'Quiet ' || id, 'quiet-' || id, '2001-01-01', '2020-01-01' FROM generate_series(1000, 1799) AS id`,
  `INSERT INTO credits (song_id, position, artist_id, role_id) SELECT id, 1, 13, 1 FROM generate_series(1000, 1799) AS id`
]

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "catalogue-mirror-exact-"))
  if (!onPostgres) return
  server = await startServer({
    statements: [...EDITED_ROWS, ...QUIET_SONGS],
    // The response cache off: a detail it answered may be up to CACHE_TTL_SECONDS older than the
    // entry that announced it, and the client would read such rows again only 61 s later.
    env: { PORT: "24101", SNAPSHOT_DIR: join(dir, "snapshots"), SNAPSHOT_INTERVAL_HOURS: "0", CACHE_TTL_SECONDS: "0" }
  })
}, 120_000)

afterAll(async () => {
  await server?.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A write transaction that committed: its edits, when its first write returned, when COMMIT was sent and when it returned (ms). */
interface Commit {
  readonly edits: ReadonlyArray<Edit>
  readonly wrote: number
  readonly committing: number
  readonly committed: number
}

/** The edits' seeds: a fixed one and this run's drawn one, their samples used in turn. */
const EDIT_SEEDS = propertySeeds(43)

/** Random edits in a fixed order, every kind in turn (the kinds of test/changes.test.ts's property test). */
const editsOfEveryKind = (): { readonly kinds: ReadonlyArray<string>; readonly next: () => Edit } => {
  const byKind = new Map<string, Array<Edit>>()
  const samples = EDIT_SEEDS.map(({ seed }) => fc.sample(editArb, { numRuns: 5000, seed }))
  for (const [i] of samples[0]!.entries()) {
    for (const sample of samples) byKind.set(sample[i]!.kind, [...(byKind.get(sample[i]!.kind) ?? []), sample[i]!])
  }
  const queues = [...byKind.values()]
  let turn = 0
  return {
    kinds: [...byKind.keys()],
    next: () => {
      const queue = queues[turn++ % queues.length]!
      // used in turn, each edit once; past the sample, from its start again
      const edit = queue.shift()!
      queue.push(edit)
      return edit
    }
  }
}

/**
 * A writer on its own connection: transactions of one to three edits with short pauses between
 * them (so that some are open when the snapshot starts), until `stop`. A transaction that fails
 * (a lock wait given up, two writers racing for a position) is rolled back: it changed nothing.
 */
const writeUntil = async (url: string, next: () => Edit, stopped: () => boolean, commits: Array<Commit>) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query("SET lock_timeout = '300ms'")
  try {
    while (!stopped()) {
      const edits = Array.from({ length: 1 + Math.floor(Math.random() * 3) }, next)
      try {
        await client.query("BEGIN")
        let wrote: number | undefined
        for (const edit of edits) {
          await client.query(editSql(edit))
          wrote ??= Date.now()
          await Bun.sleep(Math.random() * 20)
        }
        const committing = Date.now()
        await client.query("COMMIT")
        commits.push({ edits, wrote: wrote!, committing, committed: Date.now() })
      } catch {
        await client.query("ROLLBACK").catch(() => undefined)
      }
    }
  } finally {
    await client.end()
  }
}

/**
 * One transaction open across the snapshot's start: it writes now, and commits once `seen` says
 * the snapshot's transaction has begun. An edit that fails is rolled back and the next one tried.
 */
const writeAcross = async (url: string, next: () => Edit, seen: Promise<void>, commits: Array<Commit>) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query("SET lock_timeout = '300ms'")
  try {
    for (;;) {
      const edit = next()
      await client.query("BEGIN")
      const written = await client.query(editSql(edit)).then(() => true, () => false)
      if (!written) {
        await client.query("ROLLBACK")
        continue
      }
      const wrote = Date.now()
      await seen
      const committing = Date.now()
      await client.query("COMMIT")
      commits.push({ edits: [edit], wrote, committing, committed: Date.now() })
      return
    }
  } finally {
    await client.end()
  }
}

/**
 * Watches pg_stat_activity for the snapshot's transaction (the backend reading `snapshot_rows`)
 * until `stopped`: when it started, and the last moment it was seen still open (a poll sent then
 * found it; it ended later). `onSeen` is called each time it is seen.
 */
const watchSnapshotTransaction = async (url: string, stopped: () => boolean, onSeen: () => void) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  let started: number | undefined
  let openAt: number | undefined
  try {
    while (!stopped()) {
      const asked = Date.now()
      const { rows } = await client.query<{ started: number }>(
        `SELECT extract(epoch FROM xact_start) * 1000 AS started FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid() AND xact_start IS NOT NULL AND query LIKE '%snapshot_rows%'`
      )
      if (rows[0] !== undefined) {
        started = Number(rows[0].started)
        openAt = asked
        onSeen()
      }
    }
  } finally {
    await client.end()
  }
  if (started === undefined || openAt === undefined) throw new Error("the snapshot's transaction was never seen open")
  return { started, openAt }
}

describe("a mirror built from a snapshot taken under writes", () => {
  testOnPostgres(`equals the API row for row once it has followed the feed from the manifest's cursor (edits of the ${EDIT_SEEDS.map((run) => run.label).join(" and the ")})`, async () => {
    if (server.database.kind !== "postgres") throw new Error("PostgreSQL only")
    const url = server.database.url
    const snapshotDir = join(dir, "snapshots")
    const file = join(dir, "exact.sqlite")
    const edits = editsOfEveryKind()
    const commits: Array<Commit> = []
    let writing = true
    const writers = Promise.all([1, 2].map(() => writeUntil(url, edits.next, () => !writing, commits)))
    let transaction: { readonly started: number; readonly openAt: number }
    let manifest: { readonly created_at: string; readonly files: ReadonlyArray<{ readonly type: string; readonly rows: number }> }
    try {
      // writes before the snapshot (the first schedules fall due around it), during it and after it
      await Bun.sleep(1500)
      let snapshotting = true
      let seen = () => {}
      const across = writeAcross(url, edits.next, new Promise<void>((resolve) => (seen = resolve)), commits)
      const watched = watchSnapshotTransaction(url, () => !snapshotting, () => seen())
      const snapshot = await runSnapshot(server.database, snapshotDir).finally(() => {
        snapshotting = false
        seen()
      })
      transaction = await watched
      await across
      expect(snapshot).toEqual({ code: 0, stderr: expect.not.stringContaining("error") })
      manifest = (await request(server.baseUrl, "/v1/snapshots")).body.data
      // the transaction watched is the snapshot's: its start is the manifest's time
      expect(Math.floor(transaction.started)).toBe(Date.parse(manifest.created_at))

      // the client builds its file from the snapshot while the writes go on
      const built = mirrorOnce(server.baseUrl, file)
      await Bun.sleep(1500)
      writing = false
      const output = await built
      expect(output).toContain(`loading the snapshot of ${manifest.created_at}`)
      for (const entry of manifest.files) expect(output).toContain(`snapshot: ${entry.type} ${entry.rows} rows`)
    } finally {
      writing = false
      await writers
    }

    // the snapshot really overlapped the writes
    const before = commits.filter((commit) => commit.committed < transaction.started)
    // written before the snapshot started, committed after: open across its start
    const straddling = commits.filter((commit) => commit.wrote < transaction.started && commit.committing > transaction.started)
    const during = commits.filter((commit) => commit.committing > transaction.started && commit.committed < transaction.openAt)
    const after = commits.filter((commit) => commit.committing > transaction.openAt)
    const counts = { before: before.length, straddling: straddling.length, during: during.length, after: after.length }
    expect({ counts, every: Math.min(...Object.values(counts)) > 0 }).toEqual({ counts, every: true })
    expect(new Set<string>(commits.flatMap((commit) => commit.edits.map((edit) => edit.kind)))).toEqual(new Set(edits.kinds))

    // past every schedule written (2.5 s ahead), then caught up: the file equals the API
    await Bun.sleep(3000)
    await expectFileEqualsApi(server.baseUrl, file, () => mirrorOnce(server.baseUrl, file))
  }, 180_000)
})

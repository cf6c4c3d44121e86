/**
 * `bun test/bench/writes.ts --database NAME [--repeat N] [--rows N]`: what writes cost with every
 * trigger (kept counts, orders, search, change feed), on a seeded catalogue of the PostgreSQL
 * server of BENCH_DATABASE_URL, else TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432.
 * The statements of docs/query-plans.md's "Writes": a views update of `rows` songs (10,000) that
 * moves no count, as many written with their own values, `rows` songs deleted, a views refresh of 2,000 songs, and single-row writes.
 * Each runs in a transaction that is rolled back, its deferred triggers fired before the clock
 * stops (SET CONSTRAINTS ALL IMMEDIATE), `repeat` times (5); the median is printed.
 */
import pg from "pg"

const argv = process.argv.slice(2)
const flag = (name: string) => {
  const at = argv.indexOf(name)
  return at === -1 ? undefined : argv[at + 1]
}
const database = flag("--database")
if (database === undefined) {
  console.error("usage: bun test/bench/writes.ts --database NAME [--repeat N] [--rows N]")
  process.exit(2)
}
const repeat = Number(flag("--repeat") ?? 5)
const rows = Number(flag("--rows") ?? 10_000)
const url = new URL(process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres")
url.pathname = `/${database}`

const client = new pg.Client({ connectionString: url.toString() })
await client.connect()
const one = async (query: string) => (await client.query<{ v: number }>(query)).rows[0]?.v

// the rows the writes touch: public songs with links, the same in every repetition
const publicSongs = `SELECT s.id FROM songs s WHERE song_is_public(s.published_at, s.deleted_at)
  AND EXISTS (SELECT 1 FROM credits c WHERE c.song_id = s.id) ORDER BY s.id`
const song = await one(`SELECT id AS v FROM (${publicSongs}) s LIMIT 1`)
const artist = await one("SELECT artist_id AS v FROM artist_song_counts ORDER BY settled_songs DESC, artist_id LIMIT 1")
const list = await one("SELECT id AS v FROM curated_lists WHERE curated_list_is_public(published_at) ORDER BY id LIMIT 1")
if (song === undefined || artist === undefined || list === undefined) throw new Error(`${database} holds no seeded catalogue`)
const someSongs = (n: number) => `SELECT id FROM (${publicSongs}) s LIMIT ${n}`

const writes: ReadonlyArray<readonly [name: string, statement: string, setup?: string]> = [
  [`views of ${rows} songs (no count moves)`, `UPDATE songs SET vidsvc_views = coalesce(vidsvc_views, 0) + 1 WHERE id IN (${someSongs(rows)})`],
  [`${rows} songs written as they were (a sync job)`, `UPDATE songs SET title = title, vidsvc_views = vidsvc_views WHERE id IN (${someSongs(rows)})`],
  [`${rows} songs deleted`, `UPDATE songs SET deleted_at = now() WHERE id IN (${someSongs(rows)})`],
  ["views refresh of 2,000 songs", `UPDATE songs s SET vidsvc_views = coalesce(s.vidsvc_views, 0) + r.n, vidsvc_views_per_day = r.n
     FROM (SELECT id, (id % 97) + 1 AS n FROM (${someSongs(2_000)}) x) r WHERE s.id = r.id`],
  ["a song published", `UPDATE songs SET published_at = now() WHERE id = ${song}`, `UPDATE songs SET published_at = NULL WHERE id = ${song}`],
  ["a credit added", `INSERT INTO credits (song_id, position, artist_id, role_id)
     SELECT ${song}, max(position) + 1, ${artist}, (SELECT min(id) FROM roles) FROM credits WHERE song_id = ${song}`],
  ["a song added to a list", `INSERT INTO curated_list_songs (list_id, position, song_id)
     SELECT ${list}, coalesce(max(position), 0) + 1, ${song} FROM curated_list_songs WHERE list_id = ${list}`]
]

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

console.log(`writes on ${database}, ${repeat} repetitions each, rolled back (ms)`)
console.log(["write", "median", "each"].join(" | "))
try {
  for (const [name, statement, setup] of writes) {
    const times: Array<number> = []
    for (let i = 0; i < repeat; i++) {
      await client.query("BEGIN")
      try {
        if (setup !== undefined) await client.query(setup)
        const started = performance.now()
        await client.query(statement)
        await client.query("SET CONSTRAINTS ALL IMMEDIATE")
        times.push(performance.now() - started)
      } finally {
        await client.query("ROLLBACK")
      }
    }
    console.log([name, median(times).toFixed(1), times.map((t) => t.toFixed(1)).join(" ")].join(" | "))
  }
} finally {
  await client.end()
}

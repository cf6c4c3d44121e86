/**
 * `bun test/bench/similar-answers.ts [--songs N | --database NAME] [--sample N] [--url BASE] [--record FILE] [--compare FILE]`
 *
 * /v1/songs/{id}/similar's answers over a catalogue, checked against the plain definition
 * (test/support/similarDefinition.ts): the songs of the 20 most credited artists (their 5 most
 * watched per day and 5 others each) and `--sample` (200) others drawn by a fixed hash, every array's ids in
 * order. `--record FILE` writes the service's answers; `--compare FILE` checks them against answers
 * recorded before (e.g. by another version of the service, given by `--url`). Exits 1 on any
 * difference. Without `--url` it starts this checkout's service (cache off) on the catalogue.
 */
import { readFileSync, writeFileSync } from "node:fs"
import pg from "pg"
import { similarDefinition, type SimilarIds } from "../support/similarDefinition.js"
import { queryColumn } from "./catalogue.js"
import { freePort, type ServerProcess, startServer } from "./processes.js"
import { sweepDatabaseName } from "./sweep.js"

const argv = process.argv.slice(2)
const flag = (name: string) => {
  const at = argv.indexOf(name)
  return at === -1 ? undefined : argv[at + 1]
}
const serverUrl = new URL(process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres")
serverUrl.pathname = `/${flag("--database") ?? sweepDatabaseName(Number(flag("--songs") ?? 1_000_000))}`
const url = serverUrl.toString()

/** The songs compared: the most credited artists' (popular and not) and a fixed-hash sample. */
export const comparedSongs = async (databaseUrl: string, sample: number): Promise<Array<number>> =>
  (await queryColumn(databaseUrl, `
    WITH top AS (SELECT artist_id FROM artist_song_counts ORDER BY settled_songs DESC, artist_id LIMIT 20)
    SELECT DISTINCT v FROM (
      SELECT x.id AS v FROM top t CROSS JOIN LATERAL (
        (SELECT s.id FROM credits c JOIN public_songs s ON s.id = c.song_id WHERE c.artist_id = t.artist_id
         ORDER BY s.vidsvc_views_per_day DESC NULLS LAST, s.id DESC LIMIT 5)
        UNION ALL
        (SELECT s.id FROM credits c JOIN public_songs s ON s.id = c.song_id WHERE c.artist_id = t.artist_id
         ORDER BY hashint4(s.id), s.id LIMIT 5)) x
      UNION ALL
      (SELECT id FROM public_songs ORDER BY hashint4(id + 36), id LIMIT ${sample})) songs
    ORDER BY v`)).map(Number)

const idsOf = (data: Record<string, Array<{ id: number }>>): SimilarIds => ({
  by_artist: data.by_artist!.map((s) => s.id),
  by_writers: data.by_writers!.map((s) => s.id),
  by_others: data.by_others!.map((s) => s.id)
})

const same = (a: SimilarIds, b: SimilarIds) => JSON.stringify(a) === JSON.stringify(b)

const main = async () => {
  const servers: Array<ServerProcess> = []
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    let base = flag("--url")
    if (base === undefined) {
      const port = freePort()
      const service = await startServer("service", ["bun", "src/main.ts"], {
        DATABASE_URL: url, PORT: String(port), LOG_LEVEL: "warn", CACHE_TTL_SECONDS: "0", RATE_LIMIT_CAPACITY: "1000000000", RATE_LIMIT_MAX_IN_FLIGHT: "1000000"
      }, port)
      servers.push(service)
      base = service.baseUrl
    }
    const songs = await comparedSongs(url, Number(flag("--sample") ?? 200))
    const recorded: Record<string, SimilarIds> = flag("--compare") === undefined ? {} : JSON.parse(readFileSync(flag("--compare")!, "utf8"))
    const answers: Record<string, SimilarIds> = {}
    let differences = 0
    for (const id of songs) {
      const response = await fetch(`${base}/v1/songs/${id}/similar`)
      const body = await response.json() as { data: Record<string, Array<{ id: number }>> }
      const answer = idsOf(body.data)
      answers[id] = answer
      const [expected] = (await client.query<SimilarIds>(similarDefinition, [id])).rows
      const before = recorded[id]
      if (expected === undefined || !same(answer, expected) || (flag("--compare") !== undefined && (before === undefined || !same(answer, before)))) {
        differences++
        console.error(JSON.stringify({ id, status: response.status, answer, expected, before }))
      }
    }
    if (flag("--record") !== undefined) writeFileSync(flag("--record")!, JSON.stringify(answers))
    console.error(`similar answers: ${songs.length} songs, ${differences} different${flag("--compare") === undefined ? "" : ` (from the definition or ${flag("--compare")})`}`)
    process.exitCode = differences === 0 ? 0 : 1
  } finally {
    await client.end()
    await Promise.all(servers.map((server) => server.stop()))
  }
}

await main()

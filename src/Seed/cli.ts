/**
 * `bun run seed [--songs N] [--seed S] [--today YYYY-MM-DD] [--force]`
 *
 * Fills the PostgreSQL database at DATABASE_URL with the deterministic demo catalogue.
 * The schema must already be migrated (`bun run migrate`). A catalogue that
 * already has songs is left alone unless `--force` is given, which empties every catalogue
 * table first (TRUNCATE ... RESTART IDENTITY CASCADE).
 */
import * as SqlClient from "effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import { seedCatalogue } from "./generate.js"
import type { SeedSummary } from "./plan.js"
import { SEED_TABLES } from "./tables.js"
import { runMain, teardown } from "../RunMain.js"

class CliError extends Data.TaggedError("CliError")<{ readonly message: string }> {}

const USAGE = `Usage: bun run seed [--songs N] [--seed S] [--today YYYY-MM-DD] [--force]

  --songs N     number of songs (default 3000; 100k and 1m are accepted)
  --seed S      random seed (default 1); the same seed and size give the same catalogue
  --today D     generate as if today were D (default: the current UTC date)
  --force       empty the catalogue tables first if they already hold data

DATABASE_URL must point at a migrated PostgreSQL database.`

interface CliOptions {
  readonly songs: number
  readonly seed: number
  readonly today: string | undefined
  readonly force: boolean
}

const parseCount = (flag: string, text: string): number => {
  const match = /^(\d[\d_,]*)(k|m)?$/i.exec(text.trim())
  const digits = match?.[1]
  if (match === null || digits === undefined) throw new CliError({ message: `${flag} must be a whole number, got "${text}"` })
  const unit = match[2]?.toLowerCase()
  const value = Number(digits.replace(/[_,]/g, "")) * (unit === "k" ? 1000 : unit === "m" ? 1_000_000 : 1)
  if (!Number.isSafeInteger(value)) throw new CliError({ message: `${flag} is out of range: "${text}"` })
  return value
}

const parseArgs = (argv: ReadonlyArray<string>): CliOptions | "help" => {
  let songs = 3000
  let seed = 1
  let today: string | undefined
  let force = false
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? ""
    const [flag = "", inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined]
    const value = () => {
      const next = inline ?? argv[++i]
      if (next === undefined) throw new CliError({ message: `${flag} needs a value\n\n${USAGE}` })
      return next
    }
    switch (flag) {
      case "--songs":
      case "-n":
        songs = parseCount("--songs", value())
        break
      case "--seed":
        seed = parseCount("--seed", value())
        break
      case "--today": {
        const text = value()
        if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(Date.parse(text))) {
          throw new CliError({ message: `--today must be a date YYYY-MM-DD, got "${text}"` })
        }
        today = text
        break
      }
      case "--force":
        force = true
        break
      case "--help":
      case "-h":
        return "help"
      default:
        throw new CliError({ message: `unknown argument "${arg}"\n\n${USAGE}` })
    }
  }
  if (songs < 1) throw new CliError({ message: "--songs must be at least 1" })
  return { songs, seed, today, force }
}

// ---------------------------------------------------------------------------------------------
// Progress bar on stderr: one line redrawn in place on a terminal, plain lines otherwise.

const formatElapsed = (ms: number) => {
  const seconds = Math.floor(ms / 1000)
  const minutes = Math.floor(seconds / 60)
  return `${minutes}:${String(seconds % 60).padStart(2, "0")}`
}

const makeProgress = () => {
  const started = performance.now()
  const tty = process.stderr.isTTY === true
  let lastDraw = 0
  let lastPercent = -10
  let lastPhase = ""
  const width = 30
  const update = (done: number, total: number, detail: { readonly phase: string; readonly rows: number }) => {
    const now = performance.now()
    const fraction = total > 0 ? Math.min(1, done / total) : 1
    const percent = fraction * 100
    const line =
      `${percent.toFixed(1).padStart(5)}%  ${detail.rows.toLocaleString("en-US")} rows  ` +
      `${formatElapsed(now - started)} elapsed  ${detail.phase}`
    if (tty) {
      if (now - lastDraw < 100 && fraction < 1) return
      lastDraw = now
      const filled = Math.round(fraction * width)
      process.stderr.write(`\r[${"#".repeat(filled)}${".".repeat(width - filled)}] ${line}\x1b[K`)
    } else if (percent - lastPercent >= 10 || detail.phase !== lastPhase || now - lastDraw > 15_000) {
      lastDraw = now
      lastPercent = percent
      lastPhase = detail.phase
      process.stderr.write(`seed: ${line}\n`)
    }
  }
  const finish = () => {
    if (tty) process.stderr.write("\n")
    return performance.now() - started
  }
  return { update, finish }
}

// ---------------------------------------------------------------------------------------------

const run = (options: CliOptions) =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const [table] = yield* sql<{ readonly name: string | null }>`SELECT to_regclass('public.songs')::text AS name`
    if (table?.name === null || table?.name === undefined) {
      return yield* Effect.fail(new CliError({ message: "The catalogue tables do not exist: run `bun run migrate` first." }))
    }
    const [existing] = yield* sql<{ readonly any: boolean }>`SELECT EXISTS (SELECT 1 FROM songs) AS any`
    if (existing?.any === true) {
      if (!options.force) {
        return yield* Effect.fail(
          new CliError({
            message: "The songs table is not empty. Run with --force to empty the catalogue tables and seed again."
          })
        )
      }
      process.stderr.write("seed: --force: emptying the catalogue tables\n")
      yield* sql.unsafe(`TRUNCATE ${SEED_TABLES.join(", ")} RESTART IDENTITY CASCADE`)
    }
    process.stderr.write(
      `seed: ${options.songs.toLocaleString("en-US")} songs, seed ${options.seed}` +
        (options.today === undefined ? "" : `, today ${options.today}`) +
        "\n"
    )
    const progress = makeProgress()
    const summary: SeedSummary = yield* seedCatalogue(sql, {
      songs: options.songs,
      seed: options.seed,
      ...(options.today === undefined ? {} : { today: options.today }),
      onProgress: progress.update
    }).pipe(Effect.catchTag("SeedOptionsError", (error) => Effect.fail(new CliError({ message: error.message }))))
    const elapsed = progress.finish()
    // Some servers never vacuum by themselves (autovacuum off): the visibility map set here is
    // what lets the list and kept-count indexes answer without reading the table rows.
    process.stderr.write("seed: VACUUM (ANALYZE)\n")
    yield* sql.unsafe("VACUUM (ANALYZE)")
    const counts = Object.entries(summary.rows)
      .filter(([, count]) => count > 0)
      .map(([name, count]) => `  ${name.padEnd(20)} ${count.toLocaleString("en-US").padStart(12)}`)
      .join("\n")
    process.stdout.write(
      `Seeded ${summary.totalRows.toLocaleString("en-US")} rows in ${(elapsed / 1000).toFixed(1)} s ` +
        `(seed ${summary.seed}, today ${summary.today}, ${summary.plan.albums.toLocaleString("en-US")} albums):\n${counts}\n`
    )
  })

const main = Effect.gen(function* () {
  const parsed = yield* Effect.try({
    try: () => parseArgs(process.argv.slice(2)),
    catch: (error) => (error instanceof CliError ? error : new CliError({ message: String(error) }))
  })
  if (parsed === "help") {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  const url = process.env["DATABASE_URL"]
  if (url === undefined || url.trim() === "") {
    return yield* Effect.fail(
      new CliError({ message: "DATABASE_URL is not set. Point it at the PostgreSQL database to seed, e.g. postgres://user@host:5432/catalogue" })
    )
  }
  yield* run(parsed).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url), applicationName: "catalogue-seed", maxConnections: 2 }))
  )
}).pipe(
  Effect.catch((error) =>
    Effect.sync(() => {
      const message =
        error instanceof CliError
          ? error.message
          : `database error: ${error.message}${error.cause instanceof Error ? ` (${error.cause.message})` : ""}`
      process.stderr.write(`${process.stderr.isTTY === true ? "\n" : ""}seed: ${message}\n`)
      process.exitCode = 1
    })
  )
)

runMain(main, { disableErrorReporting: true, teardown })

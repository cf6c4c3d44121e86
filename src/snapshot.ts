import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { DatabaseReady } from "./App.js"
import { AppConfig } from "./Config.js"
import { describeStartupFailure } from "./Logging.js"
import { runMain, teardown } from "./RunMain.js"
import { writeSnapshot } from "./Snapshots/Writer.js"

const USAGE = `Usage: bun run snapshot [--out DIR]

  --out DIR   where the files and manifest.json go (default: SNAPSHOT_DIR, ./snapshots)

Reads DATABASE_URL (or the embedded database in DATA_DIR, which no running service may hold).`

/** `--out DIR` (or `--out=DIR`); undefined when not given; "help" for -h/--help. */
const outOf = (argv: ReadonlyArray<string>): string | undefined | "help" => {
  let out: string | undefined
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "-h" || arg === "--help") return "help"
    if (arg.startsWith("--out=")) out = arg.slice("--out=".length)
    else if (arg === "--out" && argv[i + 1] !== undefined) out = argv[++i]
    else throw new Error(`unknown argument ${arg}\n\n${USAGE}`)
  }
  return out
}

/** `bun run snapshot --out DIR`: one snapshot of the public catalogue (src/Snapshots/Writer.ts), then exits. */
Effect.gen(function*() {
  const out = yield* Effect.try({ try: () => outOf(Bun.argv.slice(2)), catch: (error) => error as Error })
  if (out === "help") return yield* Console.log(USAGE)
  const dir = out ?? (yield* AppConfig).snapshotDir
  const started = performance.now()
  const manifest = yield* writeSnapshot(dir)
  const rows = manifest.files.map((file) => `${file.type} ${file.rows}`).join(", ")
  yield* Console.log(`snapshot in ${dir} (${((performance.now() - started) / 1000).toFixed(1)} s): ${rows}`)
}).pipe(
  Effect.provide(Layer.provideMerge(DatabaseReady, AppConfig.layer)),
  Effect.scoped,
  Effect.tapCause((cause) => (Cause.hasInterruptsOnly(cause) ? Effect.void : Console.error(describeStartupFailure(cause)))),
  runMain({ disableErrorReporting: true, teardown })
)

/**
 * `bun run bench --mirror [--songs N] [--database NAME]`: how long a new mirror takes.
 * 1. `bun run snapshot` of the whole catalogue: wall time and the writer's peak RSS.
 * 2. A service serving that snapshot (`SNAPSHOT_DIR`, writing none of its own) at the public rate
 *    limit, and `bun run mirror` from nothing to caught up through its HTTP: the download, the
 *    load into SQLite and the feed's replay from the manifest's cursor.
 * Writes the "Mirror" section of test/bench/RESULTS.md (test/bench/README.md, "Mirror").
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { Database } from "bun:sqlite"
import { ensureCatalogue, migrateExisting, queryColumn, serverVersion } from "./catalogue.js"
import { freePort, startServer } from "./processes.js"
import { sweepDatabaseName, writeResultsSection } from "./sweep.js"

const ROOT = resolve(import.meta.dir, "../..")

export interface MirrorBenchOptions {
  readonly songs: number
  readonly database: string | undefined
}

/** Runs `command` to its end: seconds taken, the peak RSS of its process (MiB, sampled every 100 ms), its output. */
const timed = async (command: Array<string>, env: Record<string, string>) => {
  const started = performance.now()
  const child = Bun.spawn(command, { cwd: ROOT, env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" })
  let peakKiB = 0
  const sampler = setInterval(() => {
    try {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8")
      peakKiB = Math.max(peakKiB, Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0))
    } catch {
      // ended between two samples
    }
  }, 100)
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited])
  clearInterval(sampler)
  if (code !== 0) throw new Error(`${command.join(" ")} exited ${code}:\n${(stdout + stderr).slice(-2000)}`)
  return { seconds: (performance.now() - started) / 1000, peakMiB: peakKiB / 1024, output: stdout + stderr }
}

const bytesIn = (dir: string) => readdirSync(dir).reduce((sum, file) => sum + statSync(join(dir, file)).size, 0)

export const runMirrorBench = async (serverUrl: string, options: MirrorBenchOptions, log: (line: string) => void) => {
  const name = options.database ?? sweepDatabaseName(options.songs)
  const url = options.database !== undefined
    ? await migrateExisting(serverUrl, name, log)
    : (await ensureCatalogue(serverUrl, name, options.songs, { quiet: false, log })).url
  const publicSongs = Number((await queryColumn(url, "SELECT count(*) AS v FROM public_songs"))[0])
  const work = mkdtempSync(join(tmpdir(), "catalogue-bench-mirror-"))
  const snapshots = join(work, "snapshots")
  try {
    log(`snapshot of ${publicSongs} public songs`)
    const snapshot = await timed(["bun", "src/snapshot.ts", "--out", snapshots], { DATABASE_URL: url, LOG_LEVEL: "warn" })
    const snapshotBytes = bytesIn(snapshots)
    log(`snapshot: ${snapshot.seconds.toFixed(0)} s, peak RSS ${snapshot.peakMiB.toFixed(0)} MiB, ${(snapshotBytes / 2 ** 20).toFixed(0)} MiB of files`)

    const port = freePort()
    const service = await startServer("service (serving the snapshot)", ["bun", "--max-http-header-size=131072", "src/main.ts"], {
      DATABASE_URL: url,
      PORT: String(port),
      LOG_LEVEL: "warn",
      SNAPSHOT_DIR: snapshots,
      SNAPSHOT_INTERVAL_HOURS: "0"
    }, port)
    try {
      log("mirror from nothing to caught up")
      const mirror = await timed(["bun", "mirror/cli.ts", "--from", service.baseUrl, "--into", join(work, "mirror.sqlite")], {})
      const fileBytes = statSync(join(work, "mirror.sqlite")).size
      log(`mirror: ${mirror.seconds.toFixed(0)} s, peak RSS ${mirror.peakMiB.toFixed(0)} MiB, a ${(fileBytes / 2 ** 20).toFixed(0)} MiB file`)
      // the copy holds what the snapshot holds (no write ran since): every type's rows, counted
      const manifest = (await (await fetch(`${service.baseUrl}/v1/snapshots`)).json()) as { data: { files: Array<{ type: string; rows: number }> } }
      const copy = new Database(join(work, "mirror.sqlite"), { readonly: true })
      const counted = Object.fromEntries(copy.query<{ type: string; n: number }, []>("SELECT type, count(*) AS n FROM rows GROUP BY type").all().map((row) => [row.type, row.n]))
      copy.close()
      for (const file of manifest.data.files) {
        if ((counted[file.type] ?? 0) !== file.rows) throw new Error(`the mirror holds ${counted[file.type] ?? 0} ${file.type}, the snapshot ${file.rows}:\n${mirror.output.slice(-2000)}`)
      }
      const mirrored = manifest.data.files.reduce((sum, file) => sum + file.rows, 0)
      log(`mirror: ${mirrored} rows, as many as the snapshot's of every type`)
      const detailHours = publicSongs / 360 / 60
      const section = [
        `## Mirror at ${publicSongs.toLocaleString("en-US")} public songs`,
        "",
        `Written by \`bun run bench --mirror ${options.database === undefined ? `--songs ${options.songs}` : `--database ${name}`}\` ` +
          `(test/bench/README.md, "Mirror") on ${new Date().toISOString().slice(0, 16)}Z: database \`${name}\`, PostgreSQL ${await serverVersion(url)}. ` +
          `Load average at the end: ${loadavg()[0]!.toFixed(1)} (1 minute; 2 cores shared).`,
        "",
        "| step | target | measured | met |",
        "|---|---|---|---|",
        `| \`bun run snapshot\` of every public row (${(snapshotBytes / 2 ** 20).toFixed(0)} MiB of gzip files) | <= 5 min | ${snapshot.seconds.toFixed(0)} s | ${snapshot.seconds <= 300 ? "yes" : "**no**"} |`,
        `| its peak RSS | <= 300 MiB | ${snapshot.peakMiB.toFixed(0)} MiB | ${snapshot.peakMiB <= 300 ? "yes" : "**no**"} |`,
        `| \`bun run mirror\` from nothing to caught up through the service's HTTP (download, load of ${mirrored.toLocaleString("en-US")} rows, feed) | <= 10 min | ${mirror.seconds.toFixed(0)} s | ${mirror.seconds <= 600 ? "yes" : "**no**"} |`,
        `| the same through song details alone at the public rate (360 a minute) | | ~${detailHours.toFixed(0)} h | |`
      ].join("\n")
      console.log(`\n${section}`)
      writeResultsSection(`mirror ${publicSongs}`, section)
      log("wrote the mirror section to test/bench/RESULTS.md")
    } finally {
      await service.stop()
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

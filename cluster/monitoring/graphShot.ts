/**
 * A PNG of Prometheus's own graph page for one expression, taken by headless Chromium (Debian's
 * `chromium`). The cluster suite takes the request-rate and p99 panels after its traffic
 * (test/cluster/monitoring.cluster.ts); docs/operations.md shows them.
 *
 *   bun cluster/monitoring/graphShot.ts <prometheus url> <out dir> [range]
 *
 * takes both of a running Prometheus (`bun run cluster start`, after some traffic) into <out dir>.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { panelTargets } from "./dashboard.js"

/** The dashboard panels the pictures show, by file name. */
export const GRAPHS = {
  "prometheus-request-rate.png": "Requests per second by route",
  "prometheus-p99.png": "Latency by route: p50, p90, p99"
} as const

/** A panel's expression with the dashboard's variables set to All, as Prometheus itself takes it. */
export const withAllSelected = (expr: string, rateInterval = "1m") =>
  expr.replaceAll("$instance", ".*").replaceAll("$route", ".*").replaceAll("$__rate_interval", rateInterval)

/** The expression a picture draws: the panel's (the p99 one alone of the latency panel's three). */
export const graphExpression = (file: keyof typeof GRAPHS) => {
  const targets = panelTargets().filter((target) => target.panel.startsWith(GRAPHS[file]))
  const target = targets.find((candidate) => candidate.legend.endsWith("p99")) ?? targets[0]
  if (target === undefined) throw new Error(`no dashboard panel "${GRAPHS[file]}"`)
  return withAllSelected(target.expr)
}

/** Prometheus's graph page (2.x from Debian: the classic one; 3.x: /graph) for one expression over `range`. */
const graphPage = (prometheus: string, expr: string, range: string, classic: boolean) =>
  `${prometheus}/${classic ? "classic/graph" : "graph"}?${new URLSearchParams({ "g0.expr": expr, "g0.tab": classic ? "0" : "graph", "g0.range_input": range })}`

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

export const chromiumInstalled = () => spawnSync("sh", ["-c", "command -v chromium"]).status === 0

/** Takes the page into `file` (1400x900); throws when Chromium writes no PNG. */
export const graphScreenshot = async (prometheus: string, expr: string, file: string, range = "5m") => {
  const version = (await (await fetch(`${prometheus}/api/v1/status/buildinfo`)).json()) as { data: { version: string } }
  const profile = mkdtempSync(join(tmpdir(), "chromium-"))
  try {
    const result = spawnSync("chromium", [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      `--user-data-dir=${profile}`, `--screenshot=${file}`, "--window-size=1400,900",
      // the page draws after its own query returns: give its scripts time to
      "--virtual-time-budget=10000",
      graphPage(prometheus, expr, range, version.data.version.startsWith("2."))
    ], { encoding: "utf8", timeout: 60_000 })
    const png = readFileSync(file)
    if (!png.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error(`chromium wrote no PNG: ${result.stderr.slice(-500)}`)
    return png.length
  } finally {
    rmSync(profile, { recursive: true, force: true })
  }
}

if (import.meta.main) {
  const [prometheus, outDir, range] = process.argv.slice(2)
  if (prometheus === undefined || outDir === undefined) {
    console.error("usage: bun cluster/monitoring/graphShot.ts <prometheus url> <out dir> [range]")
    process.exit(2)
  }
  for (const file of Object.keys(GRAPHS) as Array<keyof typeof GRAPHS>) {
    const bytes = await graphScreenshot(prometheus, graphExpression(file), join(outDir, file), range)
    console.log(`wrote ${join(outDir, file)} (${bytes} bytes)`)
  }
}

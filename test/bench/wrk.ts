/** wrk on loopback: installed from Debian packages when missing, run with a scenario script, parsed. */
import { resolve } from "node:path"

const SCRIPTS = resolve(import.meta.dir, "wrk")

export interface WrkResult {
  readonly requests: number
  readonly seconds: number
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p95Ms: number
  readonly p99Ms: number
  readonly maxMs: number
  /** responses other than 2xx/3xx (the 429s of the flood) */
  readonly non2xx: number
  /** connect, read, write errors and timeouts */
  readonly socketErrors: number
}

const hasWrk = () => Bun.spawnSync(["sh", "-c", "command -v wrk"]).exitCode === 0

/** Issue 7: wrk comes from Debian packages when it is missing. */
export const ensureWrk = (log: (line: string) => void) => {
  if (hasWrk()) return
  log("wrk is missing: apt-get install -y wrk")
  const sudo = process.getuid?.() === 0 ? [] : ["sudo", "-n"]
  const install = (args: Array<string>) =>
    Bun.spawnSync([...sudo, "apt-get", ...args], {
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
      stdout: "inherit",
      stderr: "inherit"
    })
  if (install(["install", "-y", "-qq", "wrk"]).exitCode !== 0) {
    install(["update", "-qq"])
    install(["install", "-y", "-qq", "wrk"])
  }
  if (!hasWrk()) throw new Error("wrk is not installed and apt-get could not install it (apt-get install -y wrk)")
}

export interface WrkRun {
  readonly baseUrl: string
  /** uniform.lua or zipf.lua */
  readonly script: "uniform" | "zipf"
  /** file of request paths, one a line */
  readonly listFile: string
  readonly connections: number
  readonly threads: number
  readonly seconds: number
}

export const runWrk = async (run: WrkRun): Promise<WrkResult> => {
  const child = Bun.spawn(
    [
      "wrk",
      `-t${run.threads}`,
      `-c${run.connections}`,
      `-d${run.seconds}s`,
      "--timeout",
      "10s",
      "-s",
      `${run.script}.lua`,
      run.baseUrl
    ],
    { cwd: SCRIPTS, env: { ...process.env, BENCH_LIST: run.listFile }, stdout: "pipe", stderr: "pipe" }
  )
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited
  ])
  const line = /^BENCH_JSON (.*)$/m.exec(stdout)?.[1]
  if (code !== 0 || line === undefined) throw new Error(`wrk failed (${code}):\n${stdout}\n${stderr}`)
  const raw = JSON.parse(line) as Record<string, number>
  const n = (key: string) => raw[key] ?? 0
  const seconds = n("duration_us") / 1e6
  return {
    requests: n("requests"),
    seconds,
    requestsPerSecond: n("requests") / seconds,
    p50Ms: n("p50_us") / 1000,
    p95Ms: n("p95_us") / 1000,
    p99Ms: n("p99_us") / 1000,
    maxMs: n("max_us") / 1000,
    non2xx: n("non_2xx_3xx"),
    socketErrors: n("connect_errors") + n("read_errors") + n("write_errors") + n("timeouts")
  }
}

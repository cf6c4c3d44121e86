/**
 * The servers under test as child processes, and what /proc says about them: CPU time
 * (utime + stime) and peak resident memory (VmHWM).
 */
import { readFileSync } from "node:fs"
import { resolve } from "node:path"

const ROOT = resolve(import.meta.dir, "../..")

export interface ServerProcess {
  readonly name: string
  readonly baseUrl: string
  readonly pid: number
  readonly stop: () => Promise<void>
  readonly output: () => string
}

const CLOCK_TICKS = (() => {
  const result = Bun.spawnSync(["getconf", "CLK_TCK"])
  const ticks = Number(result.stdout.toString().trim())
  return Number.isFinite(ticks) && ticks > 0 ? ticks : 100
})()

/** CPU seconds used so far by `pid` (user + system). */
export const cpuSeconds = (pid: number): number => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
  // fields after the command name (which may hold spaces) start at field 3
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS
}

/** Peak resident set size of `pid` in MiB (VmHWM). */
export const peakRssMiB = (pid: number): number => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kib = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? NaN)
  return kib / 1024
}

/** A free TCP port on loopback (asked of the system, then released). */
export const freePort = (): number => {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() })
  const port = probe.port ?? 0
  probe.stop(true)
  return port
}

const waitUntilHealthy = async (child: Bun.Subprocess, url: string, output: () => string, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the server exited (${child.exitCode}):\n${output()}`)
    try {
      const response = await fetch(`${url}/v1/health`)
      await response.arrayBuffer()
      if (response.ok) return
    } catch {
      // not listening yet
    }
    await Bun.sleep(100)
  }
  throw new Error(`${url}: not healthy within ${timeoutMs} ms:\n${output()}`)
}

export const startServer = async (
  name: string,
  command: Array<string>,
  env: Record<string, string>,
  port: number
): Promise<ServerProcess> => {
  const child = Bun.spawn(command, {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe"
  })
  let text = ""
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) text = (text + decoder.decode(chunk, { stream: true })).slice(-20_000)
  }
  void collect(child.stdout)
  void collect(child.stderr)
  const baseUrl = `http://127.0.0.1:${port}`
  const stop = async () => {
    if (child.exitCode !== null) return
    child.kill("SIGTERM")
    const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(5_000).then(() => false)])
    if (!exited) {
      child.kill("SIGKILL")
      await child.exited
    }
  }
  try {
    await waitUntilHealthy(child, baseUrl, () => text)
  } catch (error) {
    await stop()
    throw error
  }
  return { name, baseUrl, pid: child.pid, stop, output: () => text }
}

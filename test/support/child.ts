import { readFileSync } from "node:fs"
import { resolve } from "node:path"

const ROOT = resolve(import.meta.dir, "../..")

/** The command of `bun run start`, word for word from package.json. */
export const START_COMMAND: ReadonlyArray<string> = (
  JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8")) as { scripts: { start: string } }
).scripts.start.split(" ")

/** A loopback port nobody listens on right now. */
export const freePort = () => {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() })
  const port = probe.port
  probe.stop(true)
  if (port === undefined) throw new Error("no free port")
  return port
}

/** The service as an operator starts it (`bun run start`): a child process with only the given environment. */
export interface ServiceProcess {
  readonly process: Bun.Subprocess<"ignore", "pipe", "pipe">
  /** Everything written so far to stdout and stderr. */
  readonly stdout: () => string
  readonly stderr: () => string
  /** Resolves with the first stdout line matching `pattern` (rejects after `timeoutMs`). */
  readonly waitForLine: (pattern: RegExp, timeoutMs?: number) => Promise<string>
  /** The base URL once the service logs that it listens. */
  readonly baseUrl: (timeoutMs?: number) => Promise<string>
  readonly exited: Promise<number>
}

const collect = (stream: ReadableStream<Uint8Array>, onText: (text: string) => void) =>
  (async () => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) onText(decoder.decode(chunk, { stream: true }))
  })()

export const spawnService = (env: Record<string, string>): ServiceProcess => {
  const child = Bun.spawn([...START_COMMAND], {
    cwd: ROOT,
    // No demo catalogue: an empty embedded database starts in seconds. No snapshot written into the repository.
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", PORT: "0", DEMO_SEED_SONGS: "0", SNAPSHOT_INTERVAL_HOURS: "0", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe"
  })
  let out = ""
  let err = ""
  const listeners = new Set<() => void>()
  const notify = () => listeners.forEach((listener) => listener())
  const outDone = collect(child.stdout, (text) => ((out += text), notify()))
  const errDone = collect(child.stderr, (text) => ((err += text), notify()))
  const exited = Promise.all([child.exited, outDone, errDone]).then(([code]) => (notify(), code))

  const waitForLine = (pattern: RegExp, timeoutMs = 60_000) =>
    new Promise<string>((resolvePromise, reject) => {
      const check = () => {
        const line = out.split("\n").find((candidate) => pattern.test(candidate))
        if (line !== undefined) {
          cleanup()
          resolvePromise(line)
        } else if (child.exitCode !== null) {
          cleanup()
          reject(new Error(`the service exited (${child.exitCode}) before logging ${pattern}:\n${out}\n${err}`))
        }
      }
      const timer = setTimeout(() => {
        cleanup()
        reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${out}\n${err}`))
      }, timeoutMs)
      const cleanup = () => {
        clearTimeout(timer)
        listeners.delete(check)
      }
      listeners.add(check)
      check()
    })

  return {
    process: child,
    stdout: () => out,
    stderr: () => err,
    waitForLine,
    baseUrl: async (timeoutMs) => {
      const line = await waitForLine(/Listening on http:\/\/[^:\s"]+:\d+/, timeoutMs)
      const port = /Listening on http:\/\/[^:\s"]+:(\d+)/.exec(line)?.[1]
      return `http://127.0.0.1:${port}`
    },
    exited
  }
}

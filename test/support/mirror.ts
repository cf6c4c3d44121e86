import { expect } from "bun:test"
import { Database } from "bun:sqlite"
import { resolve } from "node:path"
import { request } from "./http.js"

/**
 * The reference mirror client (`bun run mirror`, mirror/) as a user runs it, and its SQLite file
 * held against the API's answers (test/mirror.test.ts, test/mirror-exact.test.ts).
 */
const ROOT = resolve(import.meta.dir, "../..")
const MIRROR_COMMAND = ["bun", "mirror/cli.ts"]

export interface MirrorRun {
  readonly process: Bun.Subprocess<"ignore", "pipe", "pipe">
  readonly output: () => string
  readonly waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<void>
  /** resolves with the exit code once both streams are read */
  readonly exited: Promise<number>
}

/** The client as a user starts it, in a child process. */
export const spawnMirror = (args: ReadonlyArray<string>): MirrorRun => {
  const child = Bun.spawn([...MIRROR_COMMAND, ...args], { cwd: ROOT, stdin: "ignore", stdout: "pipe", stderr: "pipe" })
  let output = ""
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder()
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true })
  }
  const exited = Promise.all([child.exited, pump(child.stdout), pump(child.stderr)]).then(([code]) => code)
  const waitFor = async (pattern: RegExp, timeoutMs = 30_000) => {
    const until = Date.now() + timeoutMs
    while (!pattern.test(output)) {
      if (Date.now() > until || child.exitCode !== null) throw new Error(`no ${pattern} in the client's output:\n${output}`)
      await Bun.sleep(20)
    }
  }
  return { process: child, output: () => output, waitFor, exited }
}

/** One run of the client until it has caught up and exits; its output. */
export const mirrorOnce = async (baseUrl: string, file: string, ...args: ReadonlyArray<string>) => {
  const run = spawnMirror(["--from", baseUrl, "--into", file, ...args])
  const code = await run.exited
  expect({ code, output: run.output() }).toEqual({ code: 0, output: expect.stringContaining("caught up") })
  return run.output()
}

/** What the file holds: `type/id` -> json. */
export const fileRows = (file: string): Map<string, string> => {
  const db = new Database(file, { readonly: true })
  try {
    const rows = db.query<{ type: string; id: string; json: string }, []>("SELECT type, id, json FROM rows").all()
    return new Map(rows.map((row) => [`${row.type}/${row.id}`, row.json]))
  } finally {
    db.close()
  }
}

export const fileCursor = (file: string): string | undefined => {
  const db = new Database(file, { readonly: true })
  try {
    return db.query<{ cursor: string }, []>("SELECT cursor FROM state").get()?.cursor
  } finally {
    db.close()
  }
}

/** Every item of a paginated public list. */
const allItems = async (baseUrl: string, path: string): Promise<Array<any>> => {
  const items: Array<any> = []
  let cursor = ""
  for (;;) {
    const reply = await request(baseUrl, `${path}?limit=80${cursor ? `&cursor=${cursor}` : ""}`)
    expect(reply.status).toBe(200)
    items.push(...reply.body.data)
    cursor = reply.body.meta.next_cursor
    if (cursor === "") return items
  }
}

/** The exact text of the `data` member of a detail answer (the body is compact JSON). */
const detailData = async (baseUrl: string, path: string): Promise<string> => {
  const reply = await request(baseUrl, path)
  expect(reply.status).toBe(200)
  const data = JSON.stringify(reply.body.data)
  expect(reply.text).toBe(`{"data":${data}}`)
  return data
}

/** Every public row of every type as the API answers it now, in the file's keys. */
export const apiRows = async (baseUrl: string): Promise<Map<string, string>> => {
  const rows = new Map<string, string>()
  const details = async (type: string, list: string, detail: (item: any) => string, key = (item: any) => String(item.id)) => {
    for (const item of await allItems(baseUrl, list)) rows.set(`${type}/${key(item)}`, await detailData(baseUrl, detail(item)))
  }
  await details("songs", "/v1/songs", (song) => `/v1/songs/${song.id}`)
  await details("albums", "/v1/albums", (album) => `/v1/albums/${album.id}`)
  await details("curated_lists", "/v1/curated-lists", (list) => `/v1/curated-lists/${list.id}`)
  await details("artists", "/v1/artists", (artist) => `/v1/artists/${artist.id}`)
  await details("labels", "/v1/labels", (label) => `/v1/labels/${label.id}`)
  const genres = await request(baseUrl, "/v1/genres")
  for (const genre of genres.body.data) rows.set(`genres/${genre.id}`, await detailData(baseUrl, `/v1/genres/${genre.slug}`))
  for (const user of await allItems(baseUrl, "/v1/users")) rows.set(`users/${user.username}`, JSON.stringify(user))
  return rows
}

export const sortedEntries = (rows: Map<string, string>) => [...rows].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))

/**
 * The file equals the API: every public row, byte for byte, and nothing else. The feed may lag a
 * moment behind a commit (a transaction still open holds it back), so `catchUp` runs again between tries.
 */
export const expectFileEqualsApi = async (baseUrl: string, file: string, catchUp: () => Promise<unknown>) => {
  let mirrored: Map<string, string> = new Map()
  let expected: Map<string, string> = new Map()
  for (let attempt = 0; attempt < 15; attempt++) {
    await catchUp()
    ;[mirrored, expected] = [fileRows(file), await apiRows(baseUrl)]
    if (JSON.stringify(sortedEntries(mirrored)) === JSON.stringify(sortedEntries(expected))) break
    await Bun.sleep(300)
  }
  expect(sortedEntries(mirrored)).toEqual(sortedEntries(expected))
  return mirrored
}

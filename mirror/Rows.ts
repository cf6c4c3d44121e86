import type { Polite } from "./Http.js"

/**
 * Reading one public row as the mirror keeps it: the `data` of its detail answer; for a user, who
 * has no detail path, its entry in `/v1/users`. `json` is undefined when the row is not public (404,
 * or no such entry): the mirror drops it.
 */
export interface RowReader {
  readonly read: (type: string, id: string) => Promise<RowRead>
  /** Forgets what it learnt of the genre list (call once per feed page). */
  readonly refresh: () => void
}

/**
 * `recheckMs`: some answer of the read came from the service's response cache (`X-Cache: hit`),
 * which may have kept it from before the change the feed announced; the row is read again after
 * this long, once that copy has expired (the answer's `max-age`, plus a second).
 */
export interface RowRead {
  readonly json: string | undefined
  readonly recheckMs: number | undefined
}

const DETAIL_PATHS: Readonly<Record<string, string>> = {
  songs: "/v1/songs/",
  albums: "/v1/albums/",
  curated_lists: "/v1/curated-lists/",
  artists: "/v1/artists/",
  labels: "/v1/labels/"
}

interface Answer {
  /** the body parsed; undefined on 404 */
  readonly body: any
  readonly cachedMs: number | undefined
}

export const makeRowReader = (http: Polite, base: string): RowReader => {
  /** An answer's body parsed, or undefined on 404; any other refusal stops the run. */
  const getJson = async (path: string): Promise<Answer> => {
    const response = await http.get(base + path)
    const text = await response.text()
    const maxAge = Number(/max-age=(\d+)/.exec(response.headers.get("cache-control") ?? "")?.[1] ?? 60)
    const cachedMs = response.headers.get("x-cache") === "hit" ? (maxAge + 1) * 1000 : undefined
    if (response.status === 404) return { body: undefined, cachedMs }
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${text.slice(0, 200)}`)
    return { body: JSON.parse(text), cachedMs }
  }

  const later = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.max(a, b))

  const detail = async (path: string, cachedBefore?: number): Promise<RowRead> => {
    const { body, cachedMs } = await getJson(path)
    return { json: body === undefined ? undefined : JSON.stringify(body.data), recheckMs: later(cachedBefore, cachedMs) }
  }

  // the feed names a genre by id; its detail path takes the slug, read from the (whole) genre list
  let genres: Promise<{ readonly slugs: Map<string, string>; readonly cachedMs: number | undefined }> | undefined
  const genre = async (id: string): Promise<RowRead> => {
    genres ??= getJson("/v1/genres").then(({ body, cachedMs }) => ({
      slugs: new Map((body.data as Array<{ id: number; slug: string }>).map((entry) => [String(entry.id), entry.slug])),
      cachedMs
    }))
    const { slugs, cachedMs } = await genres
    const slug = slugs.get(id)
    return slug === undefined ? { json: undefined, recheckMs: cachedMs } : detail(`/v1/genres/${encodeURIComponent(slug)}`, cachedMs)
  }

  /** A user's entry in `/v1/users`: found through `q` first, else by walking the whole list. */
  const user = async (username: string): Promise<RowRead> => {
    let recheckMs: number | undefined
    const walk = async (filter: string) => {
      let cursor = ""
      for (;;) {
        const { body, cachedMs } = await getJson(`/v1/users?${filter}sort=name&limit=80${cursor === "" ? "" : `&cursor=${cursor}`}`)
        recheckMs = later(recheckMs, cachedMs)
        if (body === undefined) return undefined
        const entry = (body.data as Array<{ username: string }>).find((item) => item.username === username)
        if (entry !== undefined) return JSON.stringify(entry)
        cursor = body.meta.next_cursor
        if (cursor === "") return undefined
      }
    }
    const q = username.trim()
    const found = q.length >= 1 && q.length <= 100 ? await walk(`q=${encodeURIComponent(q)}&`).catch(() => undefined) : undefined
    // q folds text for search: a handle it does not find (rare: the feed named it as public) is
    // looked for in the whole list before the mirror drops it
    const json = found ?? (await walk(""))
    return { json, recheckMs }
  }

  return {
    read: async (type, id) => {
      const path = DETAIL_PATHS[type]
      if (path !== undefined) return detail(path + encodeURIComponent(id))
      if (type === "genres") return genre(id)
      if (type === "users") return user(id)
      throw new Error(`the feed named an unknown type: ${type}`)
    },
    refresh: () => {
      genres = undefined
    }
  }
}

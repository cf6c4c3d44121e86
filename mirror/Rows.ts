import type { Polite } from "./Http.js"

/**
 * Reading one public row as the mirror keeps it: the `data` of its detail answer; for a user, who
 * has no detail path, its entry in `/v1/users`. Undefined when the row is not public (404, or no
 * such entry): the mirror drops it.
 */
export interface RowReader {
  readonly read: (type: string, id: string) => Promise<string | undefined>
  /** Forgets what it learnt of the genre list (call once per feed page). */
  readonly refresh: () => void
}

const DETAIL_PATHS: Readonly<Record<string, string>> = {
  songs: "/v1/songs/",
  albums: "/v1/albums/",
  curated_lists: "/v1/curated-lists/",
  artists: "/v1/artists/",
  labels: "/v1/labels/"
}

export const ROW_TYPES = ["songs", "albums", "curated_lists", "artists", "genres", "labels", "users"] as const

export const makeRowReader = (http: Polite, base: string): RowReader => {
  const url = (path: string) => new URL(path, base).toString()

  /** The answer's body parsed, or undefined on 404; any other refusal stops the run. */
  const getJson = async (path: string): Promise<any> => {
    const response = await http.get(url(path))
    const text = await response.text()
    if (response.status === 404) return undefined
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${text.slice(0, 200)}`)
    return JSON.parse(text)
  }

  const detail = async (path: string) => {
    const body = await getJson(path)
    return body === undefined ? undefined : JSON.stringify(body.data)
  }

  // the feed names a genre by id; its detail path takes the slug, read from the (whole) genre list
  let genreSlugs: Promise<Map<string, string>> | undefined
  const genreSlug = async (id: string) => {
    genreSlugs ??= getJson("/v1/genres").then(
      (body) => new Map((body.data as Array<{ id: number; slug: string }>).map((genre) => [String(genre.id), genre.slug]))
    )
    return (await genreSlugs).get(id)
  }

  /** A user's entry in `/v1/users`: found through `q` first, else by walking the whole list. */
  const userEntry = async (username: string) => {
    const walk = async (filter: string) => {
      let cursor = ""
      for (;;) {
        const body = await getJson(`/v1/users?${filter}sort=name&limit=80${cursor === "" ? "" : `&cursor=${cursor}`}`)
        if (body === undefined) return undefined
        const entry = (body.data as Array<{ username: string }>).find((user) => user.username === username)
        if (entry !== undefined) return JSON.stringify(entry)
        cursor = body.meta.next_cursor
        if (cursor === "") return undefined
      }
    }
    const q = username.trim()
    const found = q.length >= 1 && q.length <= 100 ? await walk(`q=${encodeURIComponent(q)}&`).catch(() => undefined) : undefined
    // q folds text for search: a handle it does not find (a rare case: it was public when the feed
    // named it) is looked for in the whole list before the mirror drops it
    return found ?? (await walk(""))
  }

  return {
    read: async (type, id) => {
      const path = DETAIL_PATHS[type]
      if (path !== undefined) return detail(path + encodeURIComponent(id))
      if (type === "genres") {
        const slug = await genreSlug(id)
        return slug === undefined ? undefined : detail(`/v1/genres/${encodeURIComponent(slug)}`)
      }
      if (type === "users") return userEntry(id)
      throw new Error(`the feed named an unknown type: ${type}`)
    },
    refresh: () => {
      genreSlugs = undefined
    }
  }
}

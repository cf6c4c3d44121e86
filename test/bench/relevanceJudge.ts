/**
 * The relevance judge: which results answer a query as rightly as the song (or artist) it was made
 * from. Every query is judged; none is left out for being ambiguous. A query that fits several
 * results equally is kept, and any of them first is a hit. The rule is stated in docs/search.md,
 * "Relevance: how it is judged", and lives here only: it is frozen in its own commit before a
 * figure at 1M songs is recorded (test/bench/README.md, "Search relevance").
 */
import type { Query, Rows } from "./relevanceQueries.js"

/** What one query was answered with. */
export interface Answer {
  readonly query: Query
  readonly ids: ReadonlyArray<number>
  readonly ms: number
}

interface SongFacts {
  /** fold_name(title) */
  readonly title: string
  /** the title's words as search reads them (search_spaced: a Han, kana or hangul character is a word) */
  readonly words: ReadonlyArray<string>
  /** vidsvc_views, -1 when unknown */
  readonly views: number
  /** fold_name of each performing artist's name */
  readonly performers: ReadonlyArray<string>
}

export interface Facts {
  /** the songs found and the target songs */
  readonly songs: ReadonlyMap<number, SongFacts>
  /** the folded name of every artist found */
  readonly artists: ReadonlyMap<number, string>
  /** each query's words, folded and read as search reads them */
  readonly queryWords: ReadonlyMap<string, ReadonlyArray<string>>
}

const idArray = (ids: Iterable<number>) => `{${[...new Set(ids)].join(",")}}`
const textArray = (texts: Iterable<string>) => [...new Set(texts)]

/** What the judge needs of the results found, of the targets and of the queries, read from the same catalogue. */
export const readFacts = async (rows: Rows, answers: ReadonlyArray<Answer>): Promise<Facts> => {
  const idsOf = (type: Query["type"]) => answers.filter((answer) => answer.query.type === type).flatMap((answer) => answer.ids)
  const songIds = [...idsOf("songs"), ...answers.map((answer) => answer.query.target.songId)]
  const songs = new Map<number, SongFacts>()
  for (const row of await rows(
    `SELECT s.id::int AS id, fold_name(s.title) AS title, coalesce(s.vidsvc_views, -1)::float8 AS views,
       array(SELECT w FROM unnest(string_to_array(search_spaced(fold_name(s.title)), ' ')) WITH ORDINALITY u(w, i)
             WHERE w <> '' ORDER BY i) AS words,
       array(SELECT fold_name(a.name) FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
             JOIN artists a ON a.id = c.artist_id WHERE c.song_id = s.id) AS performers
     FROM songs s WHERE s.id = ANY($1::int[])`,
    [idArray(songIds)]
  )) {
    songs.set(Number(row.id), {
      title: String(row.title),
      words: (row.words as ReadonlyArray<string>) ?? [],
      views: Number(row.views),
      performers: (row.performers as ReadonlyArray<string>) ?? []
    })
  }
  const artists = new Map<number, string>()
  for (const row of await rows(`SELECT id::int AS id, fold_name(name) AS name FROM artists WHERE id = ANY($1::int[])`, [idArray(idsOf("artists"))])) {
    artists.set(Number(row.id), String(row.name))
  }
  const queryWords = new Map<string, ReadonlyArray<string>>()
  for (const row of await rows(
    `SELECT q, array(SELECT w FROM unnest(string_to_array(search_spaced(fold_name(q)), ' ')) WITH ORDINALITY u(w, i)
                     WHERE w <> '' ORDER BY i) AS words
     FROM unnest($1::text[]) q`,
    [textArray(answers.map((answer) => answer.query.made.text))]
  )) queryWords.set(String(row.q), (row.words as ReadonlyArray<string>) ?? [])
  return { songs, artists, queryWords }
}

/**
 * How a title fits a query's words (the last one possibly typed in part, as search reads every
 * query): beyond holding them all, it may begin with them in the order typed, hold them in that
 * order, have no word besides them, and hold the last one as a whole word.
 */
type Fit = "begins" | "in order" | "covered" | "last word whole"

const matches = (queryWord: string, titleWord: string, last: boolean) =>
  titleWord === queryWord || (last && titleWord.startsWith(queryWord))

/** The ways `title` fits `query`, or undefined when it does not hold every word of the query. */
const fitOf = (query: ReadonlyArray<string>, title: ReadonlyArray<string>): ReadonlySet<Fit> | undefined => {
  if (query.length === 0) return undefined
  const lastAt = query.length - 1
  const holds = query.every((word, i) => title.some((titleWord) => matches(word, titleWord, i === lastAt)))
  if (!holds) return undefined
  const fits = new Set<Fit>()
  if (title.length >= query.length && query.every((word, i) => matches(word, title[i]!, i === lastAt))) fits.add("begins")
  let at = 0
  for (const titleWord of title) if (at < query.length && matches(query[at]!, titleWord, at === lastAt)) at++
  if (at === query.length) fits.add("in order")
  if (title.every((titleWord) => query.some((word, i) => matches(word, titleWord, i === lastAt)))) fits.add("covered")
  if (title.includes(query[lastAt]!)) fits.add("last word whole")
  return fits
}

const isSubset = <A>(a: ReadonlySet<A>, b: ReadonlySet<A>) => [...a].every((x) => b.has(x))

/**
 * The rule. A result is accepted when it is the target, or the query cannot tell it from the
 * target: a song of the target's folded title (and, when the query names the artist, performed by
 * an artist of the target artist's folded name: a namesake); an artist of the target artist's
 * folded name. A query naming the title alone also accepts a song whose title holds every word
 * of the query (the last possibly typed in part) and fits it in a way the target's title does not
 * ("memori" fits Memori as a whole title, where Memori Pertama holds it), or in every way the
 * target's does and is at least as popular (the query cannot tell them apart, and the one more
 * people watch is the better guess).
 */
export const accepts = (query: Query, id: number, facts: Facts): boolean => {
  const { target } = query
  if (query.type === "artists") return id === target.artist?.id || facts.artists.get(id) === target.artist?.folded
  if (id === target.songId) return true
  const song = facts.songs.get(id)
  if (song === undefined) return false
  if (song.title === target.folded) return !query.namesArtist || song.performers.includes(target.artist?.folded ?? "")
  if (query.namesArtist) return false
  const words = facts.queryWords.get(query.made.text) ?? []
  const fits = fitOf(words, song.words)
  if (fits === undefined) return false
  const targetFits = fitOf(words, facts.songs.get(target.songId)?.words ?? []) ?? new Set<Fit>()
  if (!isSubset(fits, targetFits)) return true
  return fits.size === targetFits.size && song.views >= target.views
}

/** The rank (1-based) of the first accepted result, 0 when none of the results is accepted. */
export const rankOf = (answer: Answer, facts: Facts): number => answer.ids.findIndex((id) => accepts(answer.query, id, facts)) + 1

/**
 * The relevance suite's queries, made from the catalogue itself with a seeded generator: target
 * songs read through the public views (half among the most viewed, half at random), and one
 * query per target and class, each class a named generator below. A target that cannot make a
 * class is skipped for it, with the reason counted. See test/bench/README.md, "Search relevance".
 */
import { combine, hashString, Random } from "../../src/Seed/random.js"
import { SCRIPT_CLASSES } from "./relevanceScripts.js"

/** Reads rows from the catalogue (a `pg` client in the bench, the test server's own connection in CI). */
export type Rows = (text: string, params?: ReadonlyArray<unknown>) => Promise<ReadonlyArray<Record<string, unknown>>>

export interface TargetArtist {
  readonly id: number
  readonly name: string
  /** fold_name(name) */
  readonly folded: string
  readonly honorific: string | null
  /** fold_name(honorific || ' ' || name) */
  readonly foldedFull: string
}

export interface Target {
  readonly songId: number
  readonly title: string
  /** fold_name(title) */
  readonly folded: string
  /** vidsvc_views, -1 when unknown (the order search ranks by) */
  readonly views: number
  /**
   * how it was drawn: among the most viewed or at random (the sample every class uses), or for a
   * class whose kind of title or artist the sample holds few of (only that class uses it)
   */
  readonly drawn: Drawn
  /** the first performing artist (credit position order), when the song has one */
  readonly artist: TargetArtist | null
}

export type SearchedType = "songs" | "artists"

/** The sample's two halves, and the extra targets of the classes that need a rare kind of song. */
export type Drawn = "most viewed" | "random" | ExtraPool

/**
 * A kind of target some classes need more of than the sample holds: `where` over `s` (the song,
 * public_songs) and `a` (its first performer, public_artists); `onePerArtist` when the classes
 * ask for the artist, so that each extra target makes another query.
 */
interface PoolDefinition {
  readonly where: string
  readonly onePerArtist: boolean
}

/** The extra pools, in the order they are drawn (a song is drawn once). */
export const EXTRA_POOLS = {
  honorific: { where: "a.prefix_title IS NOT NULL", onePerArtist: true },
  "non-Latin": { where: "s.title ~ '[\\u4e00-\\u9fff\\u0b80-\\u0bff]'", onePerArtist: false },
  "three words": { where: "cardinality(string_to_array(fold_name(s.title), ' ')) >= 3", onePerArtist: false }
} as const satisfies Record<string, PoolDefinition>
export type ExtraPool = keyof typeof EXTRA_POOLS

/** What a class's query was made from, for the judge and for the tests of each class's property. */
export interface Made {
  readonly text: string
  /** typo classes: the word before and after the edit */
  readonly edited?: { readonly from: string; readonly to: string }
}

export interface QueryClass {
  readonly name: string
  readonly example: string
  readonly type: SearchedType
  /** the query names the performing artist (the judge: test/bench/relevanceJudge.ts) */
  readonly namesArtist: boolean
  /** also asked of extra targets of this kind: the sample holds too few (an honorific: ~3% of its artists) */
  readonly extra?: ExtraPool
  /** a query, or why this target cannot make one */
  readonly make: (target: Target, context: { readonly rng: Random; readonly vocabulary: ReadonlySet<string> }) => Made | string
}

export interface Query {
  readonly className: string
  readonly type: SearchedType
  readonly namesArtist: boolean
  readonly target: Target
  readonly made: Made
}

export interface Generated {
  readonly seed: number
  readonly targets: ReadonlyArray<Target>
  readonly queries: ReadonlyArray<Query>
  /** per class: reason -> targets skipped */
  readonly skipped: ReadonlyMap<string, ReadonlyMap<string, number>>
}

/** `q` is 1 to 100 characters (docs/search.md). */
const MAX_QUERY = 100
const TYPING_SHARE = 0.6
const TYPO_MIN_LETTERS = 4
const NON_LATIN = /\p{Script=Han}|\p{Script=Tamil}/u

const graphemes = (text: string) => [...new Intl.Segmenter("und", { granularity: "grapheme" }).segment(text)].map((s) => s.segment)
const words = (folded: string) => folded.split(" ").filter((word) => word !== "")

/** The first 60% of `text`, cut inside a word (the last word typed in part), or undefined when no cut is inside a word. */
export const typedPrefix = (text: string): string | undefined => {
  const chars = graphemes(text)
  if (chars.length < 2) return undefined
  let n = Math.max(1, Math.min(chars.length - 1, Math.ceil(chars.length * TYPING_SHARE)))
  while (n < chars.length && (chars[n - 1] === " " || chars[n] === " ")) n++
  return n < chars.length ? chars.slice(0, n).join("") : undefined
}

const ALPHABET = "abcdefghijklmnopqrstuvwxyz"

/** One Damerau edit of `word` (substitute, insert, delete, swap two adjacent different letters). */
const damerauEdit = (word: string, rng: Random): string => {
  const at = rng.int(0, word.length - 1)
  const letter = () => rng.pick([...ALPHABET].filter((c) => c !== word[at]))
  switch (rng.pick(["substitute", "insert", "delete", "swap"] as const)) {
    case "substitute":
      return word.slice(0, at) + letter() + word.slice(at + 1)
    case "insert":
      return word.slice(0, at) + rng.pick([...ALPHABET]) + word.slice(at)
    case "delete":
      return word.slice(0, at) + word.slice(at + 1)
    case "swap": {
      const i = Math.min(at, word.length - 2)
      return word[i] === word[i + 1] ? word : word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2)
    }
  }
}

/** Optimal string alignment distance (Damerau: an adjacent swap counts once). */
export const damerauDistance = (a: string, b: string): number => {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[a.length]![b.length]!
}

/** `folded` with one word of 4+ Latin letters carrying one edit that makes no word of the catalogue. */
const withTypo = (folded: string, rng: Random, vocabulary: ReadonlySet<string>): Made | string => {
  const all = words(folded)
  const candidates = all.flatMap((word, i) => (new RegExp(`^[a-z]{${TYPO_MIN_LETTERS},}$`).test(word) ? [i] : []))
  if (candidates.length === 0) return `no word of ${TYPO_MIN_LETTERS}+ Latin letters`
  for (let attempt = 0; attempt < 30; attempt++) {
    const i = rng.pick(candidates)
    const from = all[i]!
    const to = damerauEdit(from, rng)
    if (to === from || vocabulary.has(to)) continue
    return { text: all.map((word, j) => (j === i ? to : word)).join(" "), edited: { from, to } }
  }
  return "every edit tried makes a catalogue word"
}

const fits = (made: Made): Made | string => (made.text.length <= MAX_QUERY ? made : `longer than ${MAX_QUERY} characters`)

const needArtist = (target: Target) => target.artist ?? "no performing artist"

/** A title as typed so far: cut inside a word, the last word a prefix. */
const typed = (folded: string): Made | string => {
  const text = typedPrefix(folded)
  return text === undefined ? "no cut inside a word" : { text }
}

/** A song's title and its first performer's name, joined as `join` puts them. */
const titleWithArtist = (name: string, example: string, join: (title: string, artist: string) => string): QueryClass => ({
  name,
  example,
  type: "songs",
  namesArtist: true,
  make: (target) => {
    const artist = needArtist(target)
    return typeof artist === "string" ? artist : fits({ text: join(target.title, artist.name) })
  }
})

/** The classes, in the order of the table. */
export const QUERY_CLASSES: ReadonlyArray<QueryClass> = [
  {
    name: "title exact",
    example: "Tonight Coffee",
    type: "songs",
    namesArtist: false,
    make: (target) => ({ text: target.title })
  },
  {
    name: "title folded",
    example: "tonight coffee",
    type: "songs",
    namesArtist: false,
    make: (target) => ({ text: target.folded })
  },
  {
    name: "title 60% typed",
    example: "tonight co",
    type: "songs",
    namesArtist: false,
    make: (target) => typed(target.folded)
  },
  {
    name: "title one typo",
    example: "topight coffee",
    type: "songs",
    namesArtist: false,
    make: (target, { rng, vocabulary }) => withTypo(target.folded, rng, vocabulary)
  },
  {
    name: "title words reordered",
    example: "coffee tonight",
    type: "songs",
    namesArtist: false,
    make: (target, { rng }) => {
      const all = words(target.folded)
      if (all.length < 2) return "one word"
      if (new Set(all).size === 1) return "every word the same"
      for (let attempt = 0; attempt < 20; attempt++) {
        const shuffled = [...all]
        for (let i = shuffled.length - 1; i > 0; i--) {
          const j = rng.int(0, i)
          ;[shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!]
        }
        if (shuffled.join(" ") !== all.join(" ")) return { text: shuffled.join(" ") }
      }
      return { text: [...all.slice(1), all[0]!].join(" ") }
    }
  },
  titleWithArtist("title + artist", "Tonight Coffee Salmah binti Hussein", (title, artist) => `${title} ${artist}`),
  titleWithArtist("artist + title", "Salmah binti Hussein Tonight Coffee", (title, artist) => `${artist} ${title}`),
  {
    name: "title + artist, last word typed",
    example: "tonight coffee salmah binti huss",
    type: "songs",
    namesArtist: true,
    make: (target) => {
      const artist = needArtist(target)
      if (typeof artist === "string") return artist
      const all = words(`${target.folded} ${artist.folded}`)
      const last = graphemes(all.at(-1)!)
      if (last.length < 3) return "last word shorter than 3"
      const kept = Math.min(last.length - 1, Math.ceil(last.length * TYPING_SHARE))
      return fits({ text: [...all.slice(0, -1), last.slice(0, kept).join("")].join(" ") })
    }
  },
  {
    name: "title missing a word",
    example: "janji manis (of Janji Yang Manis)",
    type: "songs",
    namesArtist: false,
    extra: "three words",
    make: (target, { rng }) => {
      const all = words(target.folded)
      if (all.length < 3) return "fewer than 3 words"
      const dropped = rng.int(1, all.length - 2)
      return { text: all.filter((_, i) => i !== dropped).join(" ") }
    }
  },
  {
    name: "non-Latin title exact",
    example: "月亮代表",
    type: "songs",
    namesArtist: false,
    extra: "non-Latin",
    make: (target) => (NON_LATIN.test(target.title) ? { text: target.title } : "no Chinese or Tamil in the title")
  },
  {
    name: "non-Latin title typed",
    example: "月亮",
    type: "songs",
    namesArtist: false,
    extra: "non-Latin",
    make: (target) => {
      if (!NON_LATIN.test(target.title)) return "no Chinese or Tamil in the title"
      return typed(target.folded)
    }
  },
  {
    name: "artist exact",
    example: "Salmah binti Hussein",
    type: "artists",
    namesArtist: true,
    make: (target) => {
      const artist = needArtist(target)
      return typeof artist === "string" ? artist : { text: artist.name }
    }
  },
  {
    name: "artist one typo",
    example: "salmah binti hussen",
    type: "artists",
    namesArtist: true,
    make: (target, { rng, vocabulary }) => {
      const artist = needArtist(target)
      return typeof artist === "string" ? artist : withTypo(artist.folded, rng, vocabulary)
    }
  },
  {
    name: "artist with honorific",
    example: "dato sri siti nurhaliza",
    type: "artists",
    namesArtist: true,
    extra: "honorific",
    make: (target) => {
      const artist = needArtist(target)
      if (typeof artist === "string") return artist
      return artist.honorific === null ? "artist without honorific" : { text: artist.foldedFull }
    }
  },
  {
    name: "artist without its honorific",
    example: "siti nurhaliza",
    type: "artists",
    namesArtist: true,
    extra: "honorific",
    make: (target) => {
      const artist = needArtist(target)
      if (typeof artist === "string") return artist
      return artist.honorific === null ? "artist without honorific" : { text: artist.folded }
    }
  },
  ...SCRIPT_CLASSES
]

const POPULAR_POOL_FACTOR = 10
/** Extra targets per pool, as a share of the sample. */
const EXTRA_SHARE = 0.25

/** Each song's first performing artist, in credit order. */
const FIRST_PERFORMER = `SELECT c.artist_id FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
  WHERE c.song_id = s.id ORDER BY c.position LIMIT 1`

/**
 * The sample: `count` public songs, half drawn from the `10 x half` most viewed, half from the
 * others, each half in the order of md5(seed:id) (every public song when there are no more);
 * then, per extra pool, up to a quarter of `count` more songs of that kind, none drawn before.
 */
const drawTargets = async (rows: Rows, count: number, seed: number): Promise<ReadonlyArray<{ id: number; drawn: Drawn }>> => {
  const half = Math.ceil(count / 2)
  const drawn: Array<{ id: number; drawn: Drawn }> = (await rows(
    `WITH pool AS (
       SELECT id FROM public_songs ORDER BY vidsvc_views DESC NULLS LAST, id LIMIT $1::int
     ), popular AS (
       SELECT id FROM pool ORDER BY md5($3::text || ':' || id), id LIMIT $2::int
     )
     (SELECT id::int AS id, 'most viewed' AS drawn FROM popular ORDER BY md5($3::text || ':' || id), id)
     UNION ALL
     (SELECT id::int, 'random' FROM public_songs WHERE id NOT IN (SELECT id FROM popular)
      ORDER BY md5($3::text || ':' || id), id LIMIT $4::int)`,
    [half * POPULAR_POOL_FACTOR, half, String(seed), count - half]
  )).map((row) => ({ id: Number(row.id), drawn: String(row.drawn) as Drawn }))
  for (const [pool, { where, onePerArtist }] of Object.entries(EXTRA_POOLS) as ReadonlyArray<[ExtraPool, PoolDefinition]>) {
    const extra = await rows(
      `SELECT id FROM (
         SELECT DISTINCT ON (${onePerArtist ? "a.id" : "s.id"}) s.id::int AS id
         FROM public_songs s LEFT JOIN public_artists a ON a.id = (${FIRST_PERFORMER})
         WHERE s.id <> ALL ($1::int[]) AND ${where}
         ORDER BY ${onePerArtist ? "a.id" : "s.id"}, md5($2::text || ':' || s.id), s.id) x
       ORDER BY md5($2::text || ':' || id), id LIMIT $3::int`,
      [`{${drawn.map((target) => target.id).join(",")}}`, String(seed), Math.ceil(count * EXTRA_SHARE)]
    )
    drawn.push(...extra.map((row) => ({ id: Number(row.id), drawn: pool })))
  }
  return drawn
}

/** The drawn songs with what the classes make their queries of, read through the public views. */
const readTargets = async (rows: Rows, count: number, seed: number): Promise<ReadonlyArray<Target>> => {
  const drawn = await drawTargets(rows, count, seed)
  const details = new Map((await rows(
    `SELECT s.id::int AS id, s.title, fold_name(s.title) AS folded, coalesce(s.vidsvc_views, -1)::float8 AS views,
       a.id::int AS artist_id, a.name AS artist_name, a.prefix_title, fold_name(a.name) AS artist_folded,
       fold_name(coalesce(a.prefix_title || ' ', '') || a.name) AS artist_folded_full
     FROM public_songs s
     LEFT JOIN public_artists a ON a.id = (${FIRST_PERFORMER})
     WHERE s.id = ANY ($1::int[])`,
    [`{${drawn.map((target) => target.id).join(",")}}`]
  )).map((row) => [Number(row.id), row] as const))
  return drawn
    .flatMap(({ id, drawn }) => {
      const row = details.get(id)
      return row === undefined ? [] : [{
        songId: id,
        title: String(row.title),
        folded: String(row.folded),
        views: Number(row.views),
        drawn,
        artist: row.artist_id === null || row.artist_id === undefined ? null : {
          id: Number(row.artist_id),
          name: String(row.artist_name),
          folded: String(row.artist_folded),
          honorific: row.prefix_title === null || row.prefix_title === undefined ? null : String(row.prefix_title),
          foldedFull: String(row.artist_folded_full)
        }
      }]
    })
    .filter((target) => target.folded !== "")
}

/** Every folded word of public titles and public artists' names: a typo must make none of them. */
const readVocabulary = async (rows: Rows): Promise<ReadonlySet<string>> =>
  new Set((await rows(
    `SELECT w FROM public_songs s, regexp_split_to_table(s.search_title, ' ') w
     UNION SELECT w FROM public_artists a, regexp_split_to_table(a.search_full_name, ' ') w`
  )).map((row) => String(row.w)))

/** A query a class made already for another target (another song of the artist) is asked once. */
export const ASKED_ALREADY = "the same query as another target's"

/**
 * The suite for a seed: a sample of `count` targets (fewer when the catalogue has fewer public
 * songs), the extra targets of the rare kinds, and their queries, each text once per class.
 */
export const generateQueries = async (rows: Rows, options: { readonly targets: number; readonly seed: number }): Promise<Generated> => {
  const targets = await readTargets(rows, options.targets, options.seed)
  const vocabulary = await readVocabulary(rows)
  const queries: Array<Query> = []
  const skipped = new Map<string, Map<string, number>>()
  const skip = (className: string, reason: string) => {
    const reasons = skipped.get(className) ?? new Map<string, number>()
    reasons.set(reason, (reasons.get(reason) ?? 0) + 1)
    skipped.set(className, reasons)
  }
  for (const queryClass of QUERY_CLASSES) {
    const asked = new Set<string>()
    const sample = (target: Target) => target.drawn === "most viewed" || target.drawn === "random"
    for (const target of targets.filter((t) => sample(t) || t.drawn === queryClass.extra)) {
      const rng = new Random(combine(options.seed, hashString(queryClass.name), target.songId))
      const made = queryClass.make(target, { rng, vocabulary })
      if (typeof made === "string") skip(queryClass.name, made)
      else if (asked.has(made.text)) skip(queryClass.name, ASKED_ALREADY)
      else {
        asked.add(made.text)
        queries.push({ className: queryClass.name, type: queryClass.type, namesArtist: queryClass.namesArtist, target, made })
      }
    }
  }
  return { seed: options.seed, targets, queries, skipped }
}

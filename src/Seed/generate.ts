/**
 * The deterministic demo-catalogue generator.
 *
 * `seedCatalogue(sql, { songs })` fills an empty, migrated database with a Malaysian music
 * catalogue of the requested size: artists and bands (namesakes included), labels, members of
 * every kind, songs with credits, genres, labels and versions, albums, curated lists, loves and
 * contribution histories, plus unpublished and deleted rows so visibility rules are exercised.
 *
 * Determinism: every value is a function of (seed, songs, today). Nothing reads `Math.random`;
 * the only clock read is "today" (the UTC calendar date, overridable by `options.today`), and
 * every timestamp is derived from midnight UTC of that day, so two runs on the same day give
 * byte-identical tables.
 *
 * Scale: rows are generated in chunks and written with one `INSERT ... SELECT FROM
 * json_populate_recordset(...)` statement per table and batch (one JSON parameter per statement,
 * so there is no bind-parameter limit), all in one transaction; see `seedCatalogue` for how
 * foreign keys and secondary indexes are deferred to the end. Memory stays bounded:
 * besides the current chunk, only a few typed arrays indexed by song id (4 bytes per song) and
 * the set of member usernames are kept. Facts needed across chunks (an artist's name, a song's
 * base title) are recomputed from id-keyed random streams instead of being stored.
 */
import type { SqlClient } from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as W from "./names.js"
import { combine, hashString, mix32, Permutation, Random, streamFor } from "./random.js"

// ---------------------------------------------------------------------------------------------
// Options, plan, summary

export interface SeedProgressDetail {
  /** What is being generated: "reference", "members", "artists", "songs", "lists", "loves", "finish". */
  readonly phase: string
  /** Rows inserted so far, over all tables. */
  readonly rows: number
}

export interface SeedOptions {
  /** Number of songs; every other count is derived from it (see `planCatalogue`). */
  readonly songs: number
  /** RNG seed (default 1). The same seed and size give the same catalogue. */
  readonly seed?: number
  /**
   * The day the catalogue is generated for: release dates run up to it, "recent" songs fall in
   * the 30 days before it, "on this day" songs share its month and day. Only the UTC calendar
   * date is used. Default: the current date.
   */
  readonly today?: Date | string
  /** Maximum rows per INSERT statement (default 5,000). */
  readonly batchSize?: number
  /** Songs generated per chunk: one chunk is written while the next is generated (default 2,000). */
  readonly chunkSongs?: number
  /**
   * Defer foreign keys and plain secondary indexes to the end of the load (default true): they
   * are dropped and recreated with their exact definitions inside the seeding transaction.
   */
  readonly bulk?: boolean
  /** Called after every written chunk with work units done and the total. */
  readonly onProgress?: (done: number, total: number, detail: SeedProgressDetail) => void
}

export interface SeedPlan {
  readonly songs: number
  readonly artists: number
  readonly labels: number
  readonly members: number
  readonly curatedLists: number
  /** Approximate: albums are cut while walking the songs. */
  readonly albums: number
  readonly genres: number
  readonly roles: number
}

/** Derived sizes for a catalogue of `songs` songs. */
export const planCatalogue = (songs: number): SeedPlan => ({
  songs,
  artists: Math.max(200, Math.floor(songs / 4)),
  labels: Math.max(30, Math.floor(songs / 500)),
  members: Math.max(300, Math.floor(songs / 10)),
  curatedLists: Math.max(20, Math.floor(songs / 1000)),
  albums: Math.max(1, Math.floor(songs / 8)),
  genres: W.GENRES.length,
  roles: W.ROLES.length
})

export const SEED_TABLES = [
  "roles",
  "genres",
  "labels",
  "members",
  "artists",
  "artist_memberships",
  "songs",
  "albums",
  "credits",
  "song_genres",
  "song_labels",
  "song_versions",
  "album_tracks",
  "album_artists",
  "contributions",
  "curated_lists",
  "curated_list_songs",
  "curated_list_albums",
  "loves"
] as const
export type SeedTable = (typeof SEED_TABLES)[number]

/** Tables with an identity `id` column whose sequence is moved past the seeded ids. */
export const IDENTITY_TABLES = [
  "roles",
  "genres",
  "labels",
  "members",
  "artists",
  "songs",
  "albums",
  "curated_lists",
  "contributions"
] as const

export interface SeedSummary {
  readonly seed: number
  /** The generation day, YYYY-MM-DD. */
  readonly today: string
  readonly plan: SeedPlan
  /** Rows inserted per table. */
  readonly rows: Readonly<Record<SeedTable, number>>
  readonly totalRows: number
}

/** A bad option value (size, seed or date). */
export class SeedOptionsError extends Data.TaggedError("SeedOptionsError")<{ readonly message: string }> {}

// ---------------------------------------------------------------------------------------------
// Columns

const COLUMNS: Record<SeedTable, ReadonlyArray<string>> = {
  roles: ["id", "title", "slug", "tag", "sort_order"],
  genres: ["id", "slug", "title", "description", "color", "image_key"],
  labels: ["id", "name", "slug", "formerly_known_as"],
  members: ["id", "username", "name", "kind", "avatar_key", "joined_at", "email", "roles", "is_banned"],
  artists: ["id", "name", "slug", "prefix_title", "is_group", "avatar_key", "disambiguator", "member_id", "created_at"],
  artist_memberships: ["group_id", "member_id"],
  songs: [
    "id", "title", "slug", "released_at", "date_type", "published_at", "deleted_at", "artwork_key", "artwork_source",
    "artwork_dominant", "artwork_average", "notes", "lyrics", "views", "claps", "duration_ms", "vidsvc_video_id",
    "vidsvc_duration_seconds", "vidsvc_views", "vidsvc_views_per_day", "vidsvc_likes", "vidsvc_last_fetched",
    "streama_id", "streama_url", "streama_popularity", "streamb_id", "streamb_url", "created_at", "updated_at"
  ],
  albums: [
    "id", "title", "slug", "album_type", "released_at", "published_at", "label_id", "artwork_key",
    "artwork_dominant", "artwork_average", "created_at"
  ],
  credits: ["song_id", "position", "artist_id", "role_id"],
  song_genres: ["song_id", "genre_id"],
  song_labels: ["song_id", "label_id"],
  song_versions: ["song_id", "original_song_id", "kind"],
  album_tracks: ["album_id", "position", "song_id"],
  album_artists: ["album_id", "position", "artist_id"],
  contributions: ["id", "member_id", "song_id", "action", "action_at", "details"],
  curated_lists: [
    "id", "title", "description", "artwork_key", "artwork_dominant", "artwork_average", "content_type",
    "show_artists", "show_writers", "published_at", "updated_at"
  ],
  curated_list_songs: ["list_id", "position", "song_id"],
  curated_list_albums: ["list_id", "position", "album_id"],
  loves: ["member_id", "song_id", "loved_at"]
}

type Row = Record<string, unknown>
type Batch = Partial<Record<SeedTable, Array<Row>>>

/** Insert order: parents before children. */
const WRITE_ORDER: ReadonlyArray<SeedTable> = SEED_TABLES

const insertStatement = (table: SeedTable): string => {
  const columns = COLUMNS[table].join(", ")
  return `INSERT INTO ${table} (${columns}) SELECT ${columns} FROM json_populate_recordset(NULL::${table}, $1::json)`
}

// ---------------------------------------------------------------------------------------------
// Text helpers

const LATIN_LETTER = /\p{Script=Latin}/u
const OTHER_LETTER = /(?!\p{Script=Latin})\p{L}/u

/**
 * URL-safe, lower-case ASCII form of a title or name: diacritics folded, apostrophes dropped,
 * every other run of non-alphanumerics one hyphen. A mostly non-Latin text (Chinese, Tamil) or
 * one with nothing left gets `fallback`.
 */
export const slugify = (text: string, fallback: string): string => {
  let latin = 0
  let other = 0
  for (const char of text) {
    if (LATIN_LETTER.test(char)) latin++
    else if (OTHER_LETTER.test(char)) other++
  }
  if (other > latin) return fallback
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/ß/g, "ss")
    .replace(/[æÆ]/g, "ae")
    .replace(/[œŒ]/g, "oe")
    .replace(/[øØ]/g, "o")
    .replace(/[đĐ]/g, "d")
    .replace(/[łŁ]/g, "l")
    .toLowerCase()
    .replace(/['’‘`]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/, "")
  return /[a-z]/.test(slug) ? slug : fallback
}

const at = <A>(list: ReadonlyArray<A>, index: number): A => {
  const value = list[index]
  if (value === undefined) throw new Error(`index ${index} out of range`)
  return value
}

const hasDiacritics = (text: string) => /[\u0300-\u036f]/.test(text.normalize("NFKD"))
const stripDiacritics = (text: string) => text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").normalize("NFC")
const ACCENTED: Record<string, string> = { a: "á", e: "é", i: "í", o: "ó", u: "ú" }
const addDiacritic = (text: string): string => {
  const match = /[aeiou]/.exec(text)
  if (match === null) return text.toUpperCase()
  return text.slice(0, match.index) + (ACCENTED[match[0]] ?? match[0]) + text.slice(match.index + 1)
}

// ---------------------------------------------------------------------------------------------
// Dates

const DAY_MS = 86_400_000
const EARLIEST_YEAR = 1960
const CATALOGUE_START_MS = Date.UTC(2012, 0, 1)
const VIDSVC_START_DAY = Date.UTC(2006, 0, 1) / DAY_MS

const dayOf = (year: number, month: number, day: number) => Date.UTC(year, month - 1, day) / DAY_MS
const dateText = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10)
const timeText = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString()
const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

const parseToday = (today: Date | string | undefined): number => {
  if (today === undefined) return Math.floor(Date.now() / DAY_MS)
  if (typeof today === "string") {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(today)
    if (match === null) throw new Error(`today must be YYYY-MM-DD, got ${today}`)
    return dayOf(Number(match[1]), Number(match[2]), Number(match[3]))
  }
  return Math.floor(today.getTime() / DAY_MS)
}

type DateType = "FULL" | "MONTH" | "YEAR" | null

// ---------------------------------------------------------------------------------------------
// Random stream ids

const S = {
  artist: hashString("artist"),
  namesake: hashString("namesake"),
  group: hashString("group"),
  member: hashString("member"),
  label: hashString("label"),
  song: hashString("song"),
  title: hashString("title"),
  album: hashString("album"),
  albumClose: hashString("album-close"),
  walk: hashString("walk"),
  list: hashString("list"),
  loves: hashString("loves"),
  perm: hashString("perm")
} as const

// ---------------------------------------------------------------------------------------------
// Artist names: injective templates

type Culture = "malay" | "chinese" | "tamil" | "english"

interface SubTemplate {
  readonly lists: ReadonlyArray<ReadonlyArray<string>>
  readonly slots: number
  readonly female?: boolean
  readonly culture?: Culture
  readonly format: (parts: ReadonlyArray<string>, variant: number) => string
}

interface Template {
  readonly key: string
  readonly culture: Culture
  readonly isGroup: boolean
  readonly width: number
  readonly subs: ReadonlyArray<SubTemplate>
  /** Index into subs of the sub-template with the largest space; overflow of the others goes there. */
  readonly big: number
}

interface BaseArtist {
  readonly name: string
  readonly isGroup: boolean
  readonly culture: Culture
  readonly female: boolean
}

const joinParts = (parts: ReadonlyArray<string>) => parts.join(" ")
const LETTERS = "ABCDEFGHIJKLMNOPRSTVWYZ".split("").map((letter) => `${letter}.`)

const TEMPLATES: ReadonlyArray<Template> = [
  {
    key: "malay",
    culture: "malay",
    isGroup: false,
    width: 50,
    big: 2,
    subs: [
      { lists: [W.MALAY_MALE, W.MALAY_MALE], slots: 2, format: joinParts },
      { lists: [W.MALAY_FEMALE, W.MALAY_FEMALE], slots: 2, female: true, format: joinParts },
      { lists: [W.MALAY_MALE, W.MALAY_MALE, W.MALAY_MALE], slots: 3, format: joinParts },
      { lists: [W.MALAY_FEMALE, W.MALAY_FEMALE, W.MALAY_MALE], slots: 3, female: true, format: joinParts },
      { lists: [W.MALAY_MALE, W.MALAY_MALE], slots: 1, format: (p) => `${at(p, 0)} bin ${at(p, 1)}` },
      { lists: [W.MALAY_FEMALE, W.MALAY_MALE], slots: 1, female: true, format: (p) => `${at(p, 0)} binti ${at(p, 1)}` },
      { lists: [W.MALAY_MALE, W.MALAY_SECOND], slots: 1, format: joinParts },
      { lists: [W.MALAY_FEMALE, W.MALAY_SECOND], slots: 1, female: true, format: joinParts }
    ]
  },
  {
    key: "chinese",
    culture: "chinese",
    isGroup: false,
    width: 14,
    big: 0,
    subs: [
      {
        lists: [W.CHINESE_SURNAMES, W.CHINESE_SYLLABLES, W.CHINESE_SYLLABLES],
        slots: 1,
        // "Lee Chong Wei", sometimes "Lee Chong-Wei" (the hyphen folds to a space)
        format: (p, v) => (v % 5 === 0 ? `${at(p, 0)} ${at(p, 1)}-${at(p, 2)}` : joinParts(p))
      }
    ]
  },
  {
    key: "chinese-characters",
    culture: "chinese",
    isGroup: false,
    width: 4,
    big: 0,
    subs: [
      { lists: [W.CHINESE_CHAR_SURNAMES, W.CHINESE_CHAR_GIVEN, W.CHINESE_CHAR_GIVEN], slots: 3, format: (p) => p.join("") },
      { lists: [W.CHINESE_CHAR_SURNAMES, W.CHINESE_CHAR_GIVEN], slots: 1, format: (p) => p.join("") }
    ]
  },
  {
    key: "tamil",
    culture: "tamil",
    isGroup: false,
    width: 10,
    big: 2,
    subs: [
      { lists: [W.TAMIL_GIVEN, W.TAMIL_SECOND], slots: 1, format: joinParts },
      { lists: [W.TAMIL_INITIALS, W.TAMIL_GIVEN], slots: 1, format: joinParts },
      { lists: [W.TAMIL_INITIALS, W.TAMIL_GIVEN, W.TAMIL_SECOND], slots: 2, format: joinParts }
    ]
  },
  {
    key: "tamil-script",
    culture: "tamil",
    isGroup: false,
    width: 2,
    big: 2,
    subs: [
      { lists: [W.TAMIL_SCRIPT_GIVEN, W.TAMIL_SCRIPT_SECOND], slots: 1, format: joinParts },
      { lists: [W.TAMIL_SCRIPT_INITIALS, W.TAMIL_SCRIPT_GIVEN], slots: 1, format: joinParts },
      { lists: [W.TAMIL_SCRIPT_INITIALS, W.TAMIL_SCRIPT_GIVEN, W.TAMIL_SCRIPT_SECOND], slots: 2, format: joinParts }
    ]
  },
  {
    key: "english",
    culture: "english",
    isGroup: false,
    width: 8,
    big: 1,
    subs: [
      { lists: [W.ENGLISH_FIRST, W.ENGLISH_LAST], slots: 2, format: joinParts },
      { lists: [W.ENGLISH_FIRST, LETTERS, W.ENGLISH_LAST], slots: 1, format: joinParts }
    ]
  },
  {
    key: "mononym",
    culture: "malay",
    isGroup: false,
    width: 2,
    big: 1,
    subs: [
      { lists: [W.MONONYMS], slots: 1, format: joinParts },
      // "Amy Search"-style: a stage name with the band it is known from
      { lists: [W.MONONYMS, W.ENGLISH_BAND_NOUNS], slots: 0, format: joinParts }
    ]
  },
  {
    key: "group",
    culture: "malay",
    isGroup: true,
    width: 8,
    big: 9,
    subs: [
      { lists: [W.MALAY_NOUNS, W.MALAY_ADJECTIVES], slots: 3, format: joinParts },
      { lists: [W.MALAY_NOUNS, W.MALAY_NOUNS], slots: 1, format: joinParts },
      { lists: [W.ENGLISH_BAND_ADJECTIVES, W.ENGLISH_BAND_NOUNS], slots: 2, culture: "english", format: (p) => `The ${joinParts(p)}` },
      { lists: [W.ENGLISH_BAND_ADJECTIVES, W.ENGLISH_BAND_NOUNS], slots: 1, culture: "english", format: joinParts },
      { lists: [W.MALAY_NOUNS], slots: 1, format: (p) => `D'${at(p, 0)}` },
      {
        lists: [W.MALAY_NOUNS, W.BAND_SUFFIXES],
        slots: 1,
        format: (p) => (at(p, 1) === "Kumpulan" ? `Kumpulan ${at(p, 0)}` : joinParts(p))
      },
      {
        lists: [W.CHINESE_BAND_CHARS, W.CHINESE_BAND_CHARS, W.CHINESE_BAND_SUFFIXES],
        slots: 1,
        culture: "chinese",
        format: (p) => p.join("")
      },
      {
        lists: [W.TAMIL_BAND_WORDS, W.TAMIL_BAND_WORDS],
        slots: 1,
        culture: "tamil",
        format: (p) => `${joinParts(p)} ${W.TAMIL_BAND_SUFFIX}`
      },
      { lists: [W.MONONYMS, W.ENGLISH_BAND_NOUNS], slots: 1, culture: "english", format: (p) => `${at(p, 0)} & The ${at(p, 1)}` },
      { lists: [W.MALAY_NOUNS, W.MALAY_NOUNS, W.MALAY_ADJECTIVES], slots: 0, format: joinParts }
    ]
  }
]

/** Buckets 98 and 99 of every hundred artists are namesakes of an earlier artist (2%). */
const NAMESAKE_WIDTH = 2

/**
 * Size of a sub-template's name space. A component drawn from a list already used by an earlier
 * component skips the words taken ("Lokman Lokman" never happens), which keeps decoding a
 * bijection: the component has (length - earlier uses of that list) choices.
 */
const spaceOf = (sub: SubTemplate) =>
  sub.lists.reduce((product, list, index) => product * (list.length - sub.lists.slice(0, index).filter((other) => other === list).length), 1)

/** Decodes a mixed-radix index into the words of a sub-template (see `spaceOf`). */
const decode = (sub: SubTemplate, index: number): Array<string> => {
  const parts: Array<string> = []
  const taken: Array<{ readonly list: ReadonlyArray<string>; readonly index: number }> = []
  let rest = index
  for (const list of sub.lists) {
    const before = taken.filter((entry) => entry.list === list).map((entry) => entry.index).sort((a, b) => a - b)
    const radix = list.length - before.length
    let digit = rest % radix
    rest = Math.floor(rest / radix)
    for (const used of before) if (digit >= used) digit++
    taken.push({ list, index: digit })
    parts.push(at(list, digit))
  }
  return parts
}

class NameBook {
  private readonly bucketTemplate: Array<{ template: Template; start: number } | null> = []
  private readonly perms: Map<SubTemplate, Permutation> = new Map()
  /** Where each sub-template's overflow starts in its template's big sub-template. */
  private readonly overflowOffset: Map<SubTemplate, number> = new Map()

  constructor(
    private readonly seed: number,
    artists: number
  ) {
    let start = 0
    for (const template of TEMPLATES) {
      for (let i = 0; i < template.width; i++) this.bucketTemplate.push({ template, start })
      start += template.width
      const totalSlots = template.subs.reduce((sum, sub) => sum + sub.slots, 0)
      const maxRank = (Math.floor(artists / 100) + 1) * template.width
      let offset = 0
      template.subs.forEach((sub, index) => {
        this.perms.set(sub, new Permutation(spaceOf(sub), combine(seed, S.perm, hashString(template.key) + index)))
        this.overflowOffset.set(sub, offset)
        const maxQ = Math.ceil(maxRank / totalSlots) * sub.slots
        offset += Math.max(0, maxQ - spaceOf(sub))
      })
    }
    for (let i = 0; i < NAMESAKE_WIDTH; i++) this.bucketTemplate.push(null)
    if (this.bucketTemplate.length !== 100) throw new Error("artist template widths must add up to 100")
  }

  private static bucket(id: number) {
    return (id * 37 + 11) % 100
  }

  /** The earlier artist whose name a namesake copies, or undefined for a regular artist. */
  namesakeOf(id: number): number | undefined {
    if (this.bucketTemplate[NameBook.bucket(id)] !== null) return undefined
    const rng = streamFor(this.seed, S.namesake, id)
    let other = rng.int(1, Math.max(1, id - 1))
    while (other > 1 && this.bucketTemplate[NameBook.bucket(other)] === null) other--
    return other
  }

  isGroup(id: number): boolean {
    const original = this.namesakeOf(id)
    const slot = this.bucketTemplate[NameBook.bucket(original ?? id)]
    return slot?.template.isGroup ?? false
  }

  /** The name an artist has before namesake copying. */
  base(id: number): BaseArtist {
    const bucket = NameBook.bucket(id)
    const slot = this.bucketTemplate[bucket]
    if (slot === null || slot === undefined) throw new Error(`artist ${id} is a namesake`)
    const { template, start } = slot
    const rank = Math.floor(id / 100) * template.width + (bucket - start)
    const subs = template.subs
    let totalSlots = 0
    for (const sub of subs) totalSlots += sub.slots
    const cycle = Math.floor(rank / totalSlots)
    const slotIndex = rank % totalSlots
    let subIndex = 0
    let offset = 0
    for (; subIndex < subs.length; subIndex++) {
      const sub = at(subs, subIndex)
      if (slotIndex < offset + sub.slots) break
      offset += sub.slots
    }
    let sub = at(subs, subIndex)
    let q = cycle * sub.slots + (slotIndex - offset)
    if (q >= spaceOf(sub)) {
      const overflow = (this.overflowOffset.get(sub) ?? 0) + q - spaceOf(sub)
      sub = at(subs, template.big)
      const space = spaceOf(sub)
      q = space - 1 - (overflow % space)
    }
    const parts = decode(sub, (this.perms.get(sub) ?? new Permutation(spaceOf(sub), 0)).at(q))
    const variant = mix32(q ^ this.seed)
    return {
      name: sub.format(parts, variant),
      isGroup: template.isGroup,
      culture: sub.culture ?? template.culture,
      female: sub.female ?? (template.key === "malay" ? false : variant % 2 === 1)
    }
  }

  /** Name, kind and culture of any artist, namesakes included. */
  artist(id: number): BaseArtist & { readonly namesakeOf: number | undefined; readonly disambiguator: string | null } {
    const original = this.namesakeOf(id)
    if (original === undefined) return { ...this.base(id), namesakeOf: undefined, disambiguator: null }
    const base = this.base(original)
    const rng = streamFor(this.seed, S.namesake, id)
    rng.next()
    const variant = rng.weighted<"same" | "upper" | "lower" | "diacritics" | "punctuation">([
      ["same", 35],
      ["upper", 20],
      ["lower", 10],
      ["diacritics", 20],
      ["punctuation", 15]
    ])
    let name = base.name
    switch (variant) {
      case "upper":
        name = name.toUpperCase()
        break
      case "lower":
        name = name.toLowerCase()
        break
      case "diacritics":
        name = hasDiacritics(name) ? stripDiacritics(name) : addDiacritic(name)
        break
      case "punctuation":
        // a typed double space, or a hyphen between two given names; both fold away
        name = !name.includes(" ")
          ? name.toUpperCase()
          : / bin(ti)? /.test(name) || rng.chance(0.5)
            ? name.replace(" ", "  ")
            : name.replace(" ", "-")
        break
      case "same":
        break
    }
    return { ...base, name, namesakeOf: original, disambiguator: rng.chance(0.5) ? rng.pick(W.DISAMBIGUATORS) : null }
  }
}

// ---------------------------------------------------------------------------------------------
// Titles

const TITLE_PREFIXES = ["Jangan", "Kau", "Ku", "Biar Aku", "Mengapa Kau", "Aku", "Usah", "Masih"] as const
const ALBUM_TITLES = [
  "Koleksi Terbaik", "Unplugged", "Live in KL", "Edisi Istimewa", "Greatest Hits", "Sebuah Perjalanan", "Debut",
  "Era", "Kembali", "Satu", "Dua Dunia", "Anthology", "Sessions", "Karnival", "Nostalgia", "Bersama"
] as const

const versionSuffix = (kind: VersionKind, rng: Random): string => {
  switch (kind) {
    case "cover":
      return ""
    case "remix":
      return rng.pick([" (Remix)", " (DJ Remix)", " (Club Mix)", " (Remix 2.0)"])
    case "live":
      return rng.pick([" (Live)", " (Live di Stadium Merdeka)", " (Live at Axiata Arena)", " (Konsert)"])
    case "acoustic":
      return rng.pick([" (Versi Akustik)", " (Acoustic)", " (Unplugged)"])
    case "other":
      return rng.pick([" (Versi Orkestra)", " (Instrumental)", " (Versi Baharu)"])
  }
}

const makeTitle = (rng: Random): string => {
  const kind = rng.weighted<string>([
    ["noun-adj", 22],
    ["noun", 6],
    ["place", 4],
    ["verb", 8],
    ["untuk", 4],
    ["english", 12],
    ["the", 3],
    ["phrase", 8],
    ["special", 3],
    ["chinese", 5],
    ["tamil-script", 3],
    ["tamil", 4],
    ["double", 2]
  ])
  switch (kind) {
    case "noun-adj":
      return `${rng.pick(W.TITLE_NOUNS_MS)} ${rng.pick(W.TITLE_ADJECTIVES_MS)}`
    case "noun":
      return rng.pick(W.TITLE_NOUNS_MS)
    case "place":
      return `${rng.pick(W.TITLE_NOUNS_MS)} Di ${rng.pick(W.TITLE_PLACES)}`
    case "verb":
      return `${rng.pick(TITLE_PREFIXES)} ${rng.pick(W.TITLE_VERBS_MS)}`
    case "untuk":
      return rng.chance(0.5) ? `Untuk ${rng.pick(W.TITLE_NOUNS_MS)}` : `${rng.pick(W.TITLE_NOUNS_MS)} Untukmu`
    case "english":
      return `${rng.pick(W.TITLE_WORDS_EN)} ${rng.pick(W.TITLE_WORDS_EN)}`
    case "the":
      return `The ${rng.pick(W.TITLE_WORDS_EN)}`
    case "phrase":
      return rng.pick(W.TITLE_PHRASES_EN)
    case "special":
      return rng.pick(W.TITLE_SPECIAL)
    case "chinese": {
      const length = rng.int(2, 5)
      let title = ""
      for (let i = 0; i < length; i++) title += rng.pick(W.TITLE_CHINESE_CHARS)
      return title
    }
    case "tamil-script":
      return `${rng.pick(W.TITLE_TAMIL_WORDS)} ${rng.pick(W.TITLE_TAMIL_WORDS)}`
    case "tamil": {
      const length = rng.int(2, 3)
      const words: Array<string> = []
      for (let i = 0; i < length; i++) words.push(rng.pick(W.TITLE_TAMIL_ROMANISED))
      return words.join(" ")
    }
    default: {
      const noun = rng.pick(W.TITLE_NOUNS_MS).split(" ")[0] ?? "Rindu"
      return `${noun}-${noun}an`
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The generator proper (synchronous; the Effect below drives it and writes its batches)

type VersionKind = "cover" | "remix" | "live" | "acoustic" | "other"
type SongCategory = "today" | "recent" | "day" | "random"

interface Credit {
  readonly artist: number
  readonly role: number
}

interface OpenAlbum {
  readonly id: number
  readonly type: "album" | "ep" | "single"
  readonly size: number
  readonly artist: number
  readonly day: number
  readonly dateType: DateType
  readonly label: number | null
  readonly tracks: Array<number>
  firstTitle: string
}

const GENRE_WEIGHTS_BY_CULTURE: Record<Culture, ReadonlyArray<readonly [number, number]>> = (() => {
  const build = (culture: Culture) =>
    W.GENRES.flatMap((genre, index) =>
      genre.culture === "any" || genre.culture === culture ? [[index + 1, genre.weight] as const] : []
    )
  return { malay: build("malay"), chinese: build("chinese"), tamil: build("tamil"), english: build("english") }
})()
const ALL_GENRE_WEIGHTS: ReadonlyArray<readonly [number, number]> = W.GENRES.map((genre, index) => [index + 1, genre.weight] as const)

const VIDEO_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
const BASE62 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

export class CatalogueGenerator {
  readonly plan: SeedPlan
  readonly seed: number
  readonly todayDay: number
  private readonly todayMs: number
  private readonly todayYear: number
  private readonly todayMonth: number
  private readonly todayDate: number
  private readonly names: NameBook

  private readonly artistPopularity: Permutation
  private readonly writerPopularity: Permutation
  private readonly labelPopularity: Permutation
  private readonly memberActivity: Permutation
  /** Member id -> artist id, and back, for the members who are artists or groups. */
  private readonly artistOfMember: Map<number, number> = new Map()
  private readonly memberOfArtistId: Map<number, number> = new Map()
  private readonly songPopularity: Permutation
  private readonly categoryPerm: Permutation
  private readonly counts: { readonly today: number; readonly recent: number; readonly day: number }
  private readonly albumStartChance: number

  // Walk state (songs are generated in id order)
  private readonly songDays: Int32Array
  private readonly songPerformer: Int32Array
  private readonly songIsVersion: Uint8Array
  private readonly walk: Random
  private nextSong = 1
  private nextAlbum = 1
  private nextContribution = 1
  private openAlbum: OpenAlbum | null = null

  constructor(options: { readonly songs: number; readonly seed: number; readonly todayDay: number }) {
    const songs = options.songs
    this.plan = planCatalogue(songs)
    this.seed = options.seed >>> 0
    this.todayDay = options.todayDay
    this.todayMs = options.todayDay * DAY_MS
    const today = new Date(this.todayMs)
    this.todayYear = today.getUTCFullYear()
    this.todayMonth = today.getUTCMonth() + 1
    this.todayDate = today.getUTCDate()
    this.names = new NameBook(this.seed, this.plan.artists)
    const permSeed = (name: string) => combine(this.seed, S.perm, hashString(name))
    this.artistPopularity = new Permutation(this.plan.artists, permSeed("artist-popularity"))
    this.writerPopularity = new Permutation(this.plan.artists, permSeed("writer-popularity"))
    this.labelPopularity = new Permutation(this.plan.labels, permSeed("label-popularity"))
    this.memberActivity = new Permutation(this.plan.members, permSeed("member-activity"))
    // Every 25th artist and every fourth band have a member account (kind artist or group),
    // at member ids spread over the whole range.
    const memberLinks = new Permutation(this.plan.members, permSeed("member-links"))
    for (let artist = 1, k = 0; artist <= this.plan.artists && k < this.plan.members; artist++) {
      if (artist % 25 !== 0 && !(artist % 4 === 1 && this.names.isGroup(artist))) continue
      const member = memberLinks.at(k++) + 1
      this.artistOfMember.set(member, artist)
      this.memberOfArtistId.set(artist, member)
    }
    this.songPopularity = new Permutation(songs, permSeed("song-popularity"))
    this.categoryPerm = new Permutation(songs, permSeed("song-category"))
    const today8 = Math.floor(songs / 8)
    this.counts = {
      today: Math.min(Math.max(3, Math.round(songs * 0.003)), today8),
      recent: Math.min(Math.max(10, Math.round(songs * 0.005)), today8),
      day: Math.min(732, Math.floor(songs / 4))
    }
    // Albums take consecutive non-forced songs; pick the start chance so there are ~songs/8 albums.
    const free = Math.max(1, songs - this.counts.today - this.counts.recent - this.counts.day)
    const perSong = this.plan.albums / free
    const averageTracks = 0.35 * 11 + 0.25 * 5 + 0.4 * 1.2
    const denominator = 1 - (averageTracks - 1) * perSong
    this.albumStartChance = denominator > 0.05 ? Math.min(0.95, perSong / denominator) : 0.95
    this.songDays = new Int32Array(songs + 1)
    this.songPerformer = new Int32Array(songs + 1)
    this.songIsVersion = new Uint8Array(songs + 1)
    this.walk = new Random(combine(this.seed, S.walk, 0))
  }

  get todayText(): string {
    return dateText(this.todayDay)
  }

  /** Work units for progress: members, artists, songs, lists and the loves pass. */
  get totalUnits(): number {
    return this.plan.members * 2 + this.plan.artists + this.plan.songs + this.plan.curatedLists
  }

  get albumCount(): number {
    return this.nextAlbum - 1
  }

  // --- picking helpers -----------------------------------------------------------------------

  private pickArtist(rng: Random, popularity: Permutation): number {
    return rng.chance(0.6) ? popularity.at(rng.zipf(this.plan.artists)) + 1 : rng.int(1, this.plan.artists)
  }

  private pickPerformer(rng: Random) {
    return this.pickArtist(rng, this.artistPopularity)
  }

  private pickWriter(rng: Random) {
    let id = this.pickArtist(rng, this.writerPopularity)
    // bands rarely write as a band
    if (this.names.isGroup(id) && rng.chance(0.8)) id = (id % this.plan.artists) + 1
    return id
  }

  private pickLabel(rng: Random) {
    return this.labelPopularity.at(rng.zipf(this.plan.labels)) + 1
  }

  private pickContributor(rng: Random) {
    return rng.chance(0.7) ? this.memberActivity.at(rng.zipf(this.plan.members)) + 1 : rng.int(1, this.plan.members)
  }

  /** A timestamp between two instants, rounded to the second. */
  private between(rng: Random, fromMs: number, toMs: number) {
    return fromMs >= toMs ? fromMs : fromMs + Math.floor(rng.next() * (toMs - fromMs))
  }

  // --- reference data ------------------------------------------------------------------------

  roles(): Array<Row> {
    return W.ROLES.map((role, index) => ({
      id: index + 1,
      title: role.title,
      slug: role.slug,
      tag: role.tag,
      sort_order: index + 1
    }))
  }

  genres(): Array<Row> {
    return W.GENRES.map((genre, index) => ({
      id: index + 1,
      slug: genre.slug,
      title: genre.title,
      description: genre.description,
      color: genre.color,
      image_key: index % 5 === 4 ? null : `genres/${genre.slug}.jpg`
    }))
  }

  labels(): Array<Row> {
    const rows: Array<Row> = []
    const used = new Set<string>()
    const space = W.LABEL_PREFIXES.length * W.LABEL_MIDDLES.length * W.LABEL_SUFFIXES.length
    const perm = new Permutation(space, combine(this.seed, S.perm, hashString("labels")))
    let rank = 0
    const generated = () => {
      for (;;) {
        let index = perm.at(rank++ % space)
        const prefix = at(W.LABEL_PREFIXES, index % W.LABEL_PREFIXES.length)
        index = Math.floor(index / W.LABEL_PREFIXES.length)
        const middle = at(W.LABEL_MIDDLES, index % W.LABEL_MIDDLES.length)
        index = Math.floor(index / W.LABEL_MIDDLES.length)
        const suffix = at(W.LABEL_SUFFIXES, index % W.LABEL_SUFFIXES.length)
        const name = [prefix, middle, suffix].filter((part) => part !== "").join(" ")
        if (!used.has(W.foldWord(name)) || rank > space) return name
      }
    }
    for (let id = 1; id <= this.plan.labels; id++) {
      const rng = streamFor(this.seed, S.label, id)
      const name = id <= W.LABEL_NAMES.length ? at(W.LABEL_NAMES, id - 1) : generated()
      used.add(W.foldWord(name))
      let formerly: string | null = null
      if (rng.chance(0.12)) {
        formerly = rng.chance(0.5)
          ? `${name.replace(/ (Records|Music|Musik|Sound|Rekod|Entertainment)$/, "")} ${rng.pick(W.LABEL_SUFFIXES)}`
          : `${rng.pick(W.LABEL_PREFIXES)} ${rng.pick(W.LABEL_SUFFIXES)}`
        if (W.foldWord(formerly) === W.foldWord(name)) formerly = `${name} (${rng.int(1975, 2005)})`
      }
      rows.push({ id, name, slug: slugify(name, `label-${id}`), formerly_known_as: formerly })
    }
    return rows
  }

  // --- members -------------------------------------------------------------------------------

  private memberOfArtist(artist: number): number | null {
    return this.memberOfArtistId.get(artist) ?? null
  }

  private personName(rng: Random): string {
    const culture = rng.weighted<string>([
      ["malay", 55],
      ["chinese", 18],
      ["chinese-characters", 3],
      ["tamil", 11],
      ["tamil-script", 2],
      ["english", 9],
      ["handle", 2]
    ])
    switch (culture) {
      case "malay":
        return rng.chance(0.5)
          ? `${rng.pick(W.MALAY_MALE)} ${rng.pick(W.MALAY_MALE)}`
          : `${rng.pick(W.MALAY_FEMALE)} ${rng.pick(rng.chance(0.5) ? W.MALAY_FEMALE : W.MALAY_SECOND)}`
      case "chinese":
        return `${rng.pick(W.CHINESE_SURNAMES)} ${rng.pick(W.CHINESE_SYLLABLES)} ${rng.pick(W.CHINESE_SYLLABLES)}`
      case "chinese-characters":
        return rng.pick(W.CHINESE_CHAR_SURNAMES) + rng.pick(W.CHINESE_CHAR_GIVEN) + rng.pick(W.CHINESE_CHAR_GIVEN)
      case "tamil":
        return `${rng.pick(W.TAMIL_GIVEN)} ${rng.pick(W.TAMIL_SECOND)}`
      case "tamil-script":
        return `${rng.pick(W.TAMIL_SCRIPT_GIVEN)} ${rng.pick(W.TAMIL_SCRIPT_SECOND)}`
      case "english":
        return `${rng.pick(W.ENGLISH_FIRST)} ${rng.pick(W.ENGLISH_LAST)}`
      default:
        return `Peminat ${rng.pick(W.TITLE_NOUNS_MS)}`
    }
  }

  private usernameBase(name: string, rng: Random, official: boolean): string {
    const words = slugify(name, "").split("-").filter((word) => word.length > 0)
    let base: string
    if (words.length === 0) {
      base = `${rng.pick(W.HANDLE_WORDS)}${rng.pick(["", "_", "."])}${rng.pick(W.HANDLE_WORDS)}`
    } else if (official) {
      base = rng.chance(0.3) ? `${words.join("").slice(0, 16)}official` : words.join("")
    } else {
      const first = at(words, 0)
      const last = at(words, words.length - 1)
      switch (rng.int(0, 6)) {
        case 0:
          base = words.join("")
          break
        case 1:
          base = words.join("_")
          break
        case 2:
          base = `${first}.${last.charAt(0)}`
          break
        case 3:
          base = `${first}${rng.int(70, 99)}`
          break
        case 4:
          base = `${rng.pick(W.HANDLE_WORDS)}_${first}`
          break
        case 5:
          base = words.map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join("")
          break
        default:
          base = `${first}${last === first ? "" : "_" + last}`
      }
    }
    base = base.slice(0, 24).replace(/[._]+$/, "")
    return /^[a-z]/i.test(base) ? base : `u${base}`
  }

  /** Members in id order; `used` carries the lower-cased usernames taken so far. */
  members(from: number, to: number, used: Set<string>): Array<Row> {
    const rows: Array<Row> = []
    const span = this.todayMs - CATALOGUE_START_MS
    for (let id = from; id <= to; id++) {
      const rng = streamFor(this.seed, S.member, id)
      const artistId = this.artistOfMember.get(id) ?? null
      const artist = artistId === null ? undefined : this.names.artist(artistId)
      const kind = artist === undefined ? "fan" : artist.isGroup ? "group" : "artist"
      const name = artist?.name ?? this.personName(rng)
      let username: string | null = null
      if (artist !== undefined || !rng.chance(0.08)) {
        const base = this.usernameBase(name, rng, artist !== undefined)
        let candidate = base
        for (let attempt = 0; used.has(candidate.toLowerCase()); attempt++) {
          candidate = attempt < 4 ? `${base}${rng.int(2, 999)}` : `${base}_${id}${attempt === 4 ? "" : `_${attempt}`}`
        }
        used.add(candidate.toLowerCase())
        username = candidate
      }
      // joined roughly in id order, with some jitter
      const joined = Math.min(
        this.todayMs - 3_600_000,
        Math.max(CATALOGUE_START_MS, CATALOGUE_START_MS + Math.floor((span * (id - 1)) / this.plan.members) + rng.int(-30, 30) * DAY_MS)
      ) + rng.int(0, DAY_MS / 1000 - 1) * 1000
      const roles = id <= 2 ? ["member", "editor", "admin"] : rng.chance(0.05) ? ["member", "editor"] : ["member"]
      rows.push({
        id,
        username,
        name,
        kind,
        avatar_key: rng.chance(0.6) ? `avatars/members/${id}.jpg` : null,
        joined_at: timeText(Math.min(joined, this.todayMs - 1000)),
        email: `user${id}@mail.example`,
        roles,
        is_banned: id > 2 && rng.chance(0.02)
      })
    }
    return rows
  }

  // --- artists -------------------------------------------------------------------------------

  artists(from: number, to: number): Array<Row> {
    const rows: Array<Row> = []
    const span = this.todayMs - CATALOGUE_START_MS
    for (let id = from; id <= to; id++) {
      const rng = streamFor(this.seed, S.artist, id)
      const artist = this.names.artist(id)
      let prefix: string | null = null
      if (!artist.isGroup && rng.chance(0.04)) {
        prefix = rng.pick(artist.female ? W.HONORIFICS_FEMALE : W.HONORIFICS_MALE)
      }
      const created = CATALOGUE_START_MS + Math.floor((span * (id - 1)) / this.plan.artists) + rng.int(0, DAY_MS / 1000 - 1) * 1000
      rows.push({
        id,
        name: artist.name,
        slug: slugify(artist.name, `artist-${id}`),
        prefix_title: prefix,
        is_group: artist.isGroup,
        avatar_key: rng.chance(0.55) ? `avatars/artists/${id}.jpg` : null,
        disambiguator: artist.disambiguator,
        member_id: this.memberOfArtist(id),
        created_at: timeText(Math.min(created, this.todayMs - 1000))
      })
    }
    return rows
  }

  /** Band line-ups: every group gets 2 to 5 distinct solo artists. */
  memberships(from: number, to: number): Array<Row> {
    const rows: Array<Row> = []
    for (let group = from; group <= to; group++) {
      if (!this.names.isGroup(group)) continue
      const rng = streamFor(this.seed, S.group, group)
      const size = rng.int(2, 5)
      const chosen = new Set<number>()
      for (let attempt = 0; chosen.size < size && attempt < 50; attempt++) {
        let candidate = rng.int(1, this.plan.artists)
        for (let step = 0; step < 20 && (candidate === group || this.names.isGroup(candidate)); step++) {
          candidate = (candidate % this.plan.artists) + 1
        }
        if (candidate !== group && !this.names.isGroup(candidate)) chosen.add(candidate)
      }
      for (const member of [...chosen].sort((a, b) => a - b)) rows.push({ group_id: group, member_id: member })
    }
    return rows
  }

  // --- songs ---------------------------------------------------------------------------------

  private category(song: number): { readonly kind: SongCategory; readonly index: number } {
    const p = this.categoryPerm.at(song - 1)
    const { today, recent, day } = this.counts
    if (p < today) return { kind: "today", index: p }
    if (p < today + recent) return { kind: "recent", index: p - today }
    if (p < today + recent + day) return { kind: "day", index: p - today - recent }
    return { kind: "random", index: 0 }
  }

  /** An earlier year in which month/day exists (Feb 29 only in leap years). */
  private earlierYear(rng: Random, month: number, day: number): number {
    for (;;) {
      const year = rng.int(EARLIEST_YEAR, this.todayYear - 1)
      if (!(month === 2 && day === 29) || isLeap(year)) return year
    }
  }

  /** A release date: mostly recent decades, any precision. Never after today. */
  private randomRelease(rng: Random): { day: number; dateType: DateType } {
    const dateType = rng.weighted<DateType>([
      ["FULL", 75],
      ["MONTH", 10],
      ["YEAR", 8],
      [null, 7]
    ])
    const years = this.todayYear - EARLIEST_YEAR + 1
    const year = Math.min(this.todayYear, EARLIEST_YEAR + Math.floor(years * Math.pow(rng.next(), 0.55)))
    if (dateType === "YEAR") return { day: dayOf(year, 1, 1), dateType }
    if (dateType === "MONTH") {
      const month = rng.int(1, year === this.todayYear ? this.todayMonth : 12)
      return { day: dayOf(year, month, 1), dateType }
    }
    const start = dayOf(year, 1, 1)
    const end = Math.min(dayOf(year, 12, 31), this.todayDay)
    return { day: rng.int(start, end), dateType }
  }

  private forcedRelease(rng: Random, kind: SongCategory, index: number): number {
    switch (kind) {
      case "today":
        return dayOf(this.earlierYear(rng, this.todayMonth, this.todayDate), this.todayMonth, this.todayDate)
      case "recent":
        return this.todayDay - (index % 30)
      default: {
        // every calendar day of a leap year, in turn
        const calendar = new Date((dayOf(2000, 1, 1) + (index % 366)) * DAY_MS)
        const month = calendar.getUTCMonth() + 1
        const day = calendar.getUTCDate()
        return dayOf(this.earlierYear(rng, month, day), month, day)
      }
    }
  }

  /** Base title of a song, before any version suffix: a pure function of the id. */
  private baseTitle(song: number): string {
    return makeTitle(streamFor(this.seed, S.title, song))
  }

  private startAlbum(): OpenAlbum {
    const id = this.nextAlbum++
    const rng = streamFor(this.seed, S.album, id)
    const type = rng.weighted<OpenAlbum["type"]>([
      ["album", 35],
      ["ep", 25],
      ["single", 40]
    ])
    const size = type === "album" ? rng.int(8, 14) : type === "ep" ? rng.int(4, 6) : rng.chance(0.8) ? 1 : 2
    const release = this.randomRelease(rng)
    return {
      id,
      type,
      size,
      artist: this.pickPerformer(rng),
      day: release.day,
      dateType: release.dateType,
      label: rng.chance(0.85) ? this.pickLabel(rng) : null,
      tracks: [],
      firstTitle: ""
    }
  }

  private closeAlbum(album: OpenAlbum, batch: Batch) {
    if (album.tracks.length === 0) return
    const rng = streamFor(this.seed, S.albumClose, album.id)
    const title =
      album.type === "single" || rng.chance(0.4)
        ? album.firstTitle
        : rng.chance(0.75)
          ? makeTitle(rng)
          : rng.pick(ALBUM_TITLES)
    const created = this.between(rng, Math.max(CATALOGUE_START_MS, album.day * DAY_MS - 14 * DAY_MS), this.todayMs - 3_600_000)
    const visibility = rng.weighted<"past" | "null" | "future">([
      ["past", 93],
      ["null", 4],
      ["future", 3]
    ])
    const published =
      visibility === "null"
        ? null
        : visibility === "future"
          ? timeText(this.todayMs + rng.int(1, 90) * DAY_MS + rng.int(0, 86_399) * 1000)
          : timeText(Math.min(created + rng.int(0, 72 * 3600) * 1000, this.todayMs - 60_000))
    const hasArtwork = rng.chance(0.88)
    push(batch, "albums", {
      id: album.id,
      title,
      slug: slugify(title, `album-${album.id}`),
      album_type: album.type,
      released_at: dateText(album.day),
      published_at: published,
      label_id: album.label,
      artwork_key: hasArtwork ? `artwork/albums/${album.id}.jpg` : null,
      artwork_dominant: hasArtwork && rng.chance(0.9) ? rng.colour() : null,
      artwork_average: hasArtwork && rng.chance(0.9) ? rng.colour() : null,
      created_at: timeText(created)
    })
    album.tracks.forEach((song, index) => push(batch, "album_tracks", { album_id: album.id, position: index + 1, song_id: song }))
    if (rng.chance(0.65)) {
      push(batch, "album_artists", { album_id: album.id, position: 1, artist_id: album.artist })
      if (rng.chance(0.12)) {
        const second = this.pickPerformer(rng)
        if (second !== album.artist) push(batch, "album_artists", { album_id: album.id, position: 2, artist_id: second })
      }
    }
  }

  /** Generates the next `count` songs (in id order) with everything hanging off them. */
  songs(count: number, batch: Batch = {}): Batch {
    const last = Math.min(this.plan.songs, this.nextSong + count - 1)
    for (; this.nextSong <= last; this.nextSong++) this.song(this.nextSong, batch)
    if (this.nextSong > this.plan.songs && this.openAlbum !== null) {
      this.closeAlbum(this.openAlbum, batch)
      this.openAlbum = null
    }
    return batch
  }

  get songsDone(): number {
    return this.nextSong - 1
  }

  private song(id: number, batch: Batch) {
    const rng = streamFor(this.seed, S.song, id)
    const { kind: category, index } = this.category(id)
    const forced = category !== "random"

    // release date and album
    let day: number
    let dateType: DateType
    let performer: number
    let album: OpenAlbum | null = null
    if (forced) {
      day = this.forcedRelease(rng, category, index)
      dateType = "FULL"
      performer = this.pickPerformer(rng)
    } else {
      if (this.openAlbum === null && this.walk.chance(this.albumStartChance)) this.openAlbum = this.startAlbum()
      album = this.openAlbum
      if (album !== null) {
        day = album.day
        dateType = album.dateType
        performer = rng.chance(0.85) ? album.artist : this.pickPerformer(rng)
      } else {
        const release = this.randomRelease(rng)
        day = release.day
        dateType = release.dateType
        performer = this.pickPerformer(rng)
      }
    }

    // versions: ~3% of songs are a cover, remix or live take of an earlier song
    let original = 0
    let versionKind: VersionKind = "cover"
    if (!forced && id > 20 && rng.chance(0.05)) {
      for (let attempt = 0; attempt < 8 && original === 0; attempt++) {
        const candidate = rng.chance(0.5) ? this.songPopularity.at(rng.zipf(id - 1)) + 1 : rng.int(1, id - 1)
        if (candidate < id && this.songIsVersion[candidate] === 0 && (this.songDays[candidate] ?? 0) < day) original = candidate
      }
      if (original !== 0) {
        versionKind = rng.weighted<VersionKind>([
          ["cover", 50],
          ["remix", 20],
          ["live", 15],
          ["acoustic", 10],
          ["other", 5]
        ])
        if (versionKind !== "cover") performer = this.songPerformer[original] ?? performer
        else if (performer === this.songPerformer[original]) performer = (performer % this.plan.artists) + 1
      }
    }
    this.songDays[id] = day
    this.songPerformer[id] = performer
    this.songIsVersion[id] = original === 0 ? 0 : 1

    const title = original === 0 ? this.baseTitle(id) : this.baseTitle(original) + versionSuffix(versionKind, rng)
    if (album !== null) {
      if (album.tracks.length === 0) album.firstTitle = title
      album.tracks.push(id)
      if (album.tracks.length >= album.size) {
        this.closeAlbum(album, batch)
        this.openAlbum = null
      }
    }
    if (original !== 0) push(batch, "song_versions", { song_id: id, original_song_id: original, kind: versionKind })

    // credits: performers first, then writers, sometimes producers and players
    const credits: Array<Credit> = [{ artist: performer, role: W.ROLE_ID.vocals }]
    if (rng.chance(0.2)) {
      const featured = this.pickPerformer(rng)
      if (featured !== performer) credits.push({ artist: featured, role: W.ROLE_ID.featured })
    }
    let composer = 0
    if (rng.chance(0.85)) {
      composer = rng.chance(0.3) && !this.names.isGroup(performer) ? performer : this.pickWriter(rng)
      credits.push({ artist: composer, role: W.ROLE_ID.composer })
    }
    if (rng.chance(0.7)) {
      const lyricist = composer !== 0 && rng.chance(0.35) ? composer : this.pickWriter(rng)
      credits.push({ artist: lyricist, role: W.ROLE_ID.lyricist })
    }
    if (rng.chance(0.1)) credits.push({ artist: this.pickWriter(rng), role: W.ROLE_ID.arranger })
    if (rng.chance(0.2)) credits.push({ artist: this.pickWriter(rng), role: W.ROLE_ID.producer })
    if (rng.chance(0.1)) {
      credits.push({ artist: this.pickWriter(rng), role: rng.int(W.ROLE_ID.instrumentFirst, W.ROLE_ID.instrumentLast) })
    }
    credits.forEach((credit, position) =>
      push(batch, "credits", { song_id: id, position: position + 1, artist_id: credit.artist, role_id: credit.role })
    )

    // genres (1-3, the first fitting the performer's culture) and labels (0-2)
    const culture = this.names.artist(performer).culture
    const genres = new Set<number>([rng.weighted(GENRE_WEIGHTS_BY_CULTURE[culture])])
    const extraGenres = rng.weighted([
      [0, 55],
      [1, 33],
      [2, 12]
    ])
    for (let i = 0; i < extraGenres; i++) genres.add(rng.weighted(ALL_GENRE_WEIGHTS))
    for (const genre of genres) push(batch, "song_genres", { song_id: id, genre_id: genre })
    const labels = new Set<number>()
    if (album?.label !== null && album?.label !== undefined) labels.add(album.label)
    const labelCount = rng.weighted([
      [0, 25],
      [1, 60],
      [2, 15]
    ])
    while (labels.size < labelCount) labels.add(this.pickLabel(rng))
    for (const label of labels) push(batch, "song_labels", { song_id: id, label_id: label })

    // timestamps and visibility
    const releaseMs = day * DAY_MS
    const createdLow = Math.max(CATALOGUE_START_MS, releaseMs - 14 * DAY_MS)
    const createdHigh = this.todayMs - 3_600_000
    const created = createdLow >= createdHigh ? createdHigh - 600_000 : createdLow + Math.floor(Math.pow(rng.next(), 2) * (createdHigh - createdLow))
    const visibility = forced
      ? "past"
      : rng.weighted<"past" | "null" | "future">([
          ["past", 96],
          ["null", 3],
          ["future", 1]
        ])
    const publishedMs =
      visibility === "past" ? Math.min(created + rng.int(0, 72 * 3600) * 1000, this.todayMs - 60_000) : null
    const published =
      visibility === "null"
        ? null
        : visibility === "future"
          ? timeText(this.todayMs + rng.int(1, 60) * DAY_MS + rng.int(0, 86_399) * 1000)
          : timeText(publishedMs ?? created)
    const deleted = !forced && rng.chance(0.02) ? timeText(this.between(rng, created + 60_000, this.todayMs - 1000)) : null

    // media
    const slug = slugify(title, `song-${id}`)
    const ageDays = Math.max(1, this.todayDay - Math.max(day, VIDSVC_START_DAY) + 1)
    const hasVideo = rng.chance(day > this.todayDay - 365 * 15 ? 0.8 : 0.55)
    const durationMs = rng.chance(0.92) ? rng.int(120_000, 360_000) : null
    const videoId = hasVideo ? rng.chars(VIDEO_ALPHABET, 11) : null
    const vidsvcViews = hasVideo ? Math.floor(Math.exp(rng.next() * Math.log(50_000_000))) : null
    const hasStreamA = rng.chance(0.55)
    const hasStreamB = rng.chance(0.45)
    const streamaId = hasStreamA ? rng.chars(BASE62, 22) : null
    const streambId = hasStreamB ? String(rng.int(100_000_000, 1_999_999_999)) : null
    const source = rng.weighted<"Custom" | "StreamA" | "StreamB" | "VidSvc" | null>([
      ["Custom", 30],
      ["StreamA", hasStreamA ? 20 : 0],
      ["StreamB", hasStreamB ? 15 : 0],
      ["VidSvc", hasVideo ? 20 : 0],
      [null, 15]
    ])
    const artworkKey =
      source === "Custom"
        ? `artwork/songs/${id}.jpg`
        : source === "StreamA"
          ? `https://i.streama.example/image/${rng.hex(40)}`
          : source === "StreamB"
            ? `https://is1.streamb.example/image/thumb/${rng.hex(8)}/${streambId ?? id}/600x600bb.jpg`
            : source === "VidSvc"
              ? `https://i.vidsvc.example/vi/${videoId ?? "x"}/hqdefault.jpg`
              : null
    const hasColours = artworkKey !== null && rng.chance(0.85)
    const views = Math.floor(Math.exp(rng.next() * Math.log(200_000)))

    const notes = rng.chance(0.25)
      ? rng.chance(0.7)
        ? rng.pick(W.NOTE_SENTENCES)
        : `${rng.pick(W.NOTE_SENTENCES)} ${rng.pick(W.NOTE_SENTENCES)}`
      : null
    let lyrics: string | null = null
    if (rng.chance(0.35)) {
      const lines: Array<string> = []
      const count = rng.int(2, 6)
      for (let i = 0; i < count; i++) lines.push(rng.pick(W.LYRIC_LINES))
      lyrics = lines.join("\n")
    }

    // contributions: one add, about one edit on average
    const add = this.pickContributor(rng)
    push(batch, "contributions", {
      id: this.nextContribution++,
      member_id: add,
      song_id: id,
      action: "add",
      action_at: timeText(created),
      details: {}
    })
    const edits = rng.weighted([
      [0, 40],
      [1, 35],
      [2, 15],
      [3, 7],
      [4, 3]
    ])
    const editTimes: Array<number> = []
    for (let i = 0; i < edits; i++) editTimes.push(this.between(rng, created + 60_000, this.todayMs - 1000))
    editTimes.sort((a, b) => a - b)
    for (const time of editTimes) {
      const editor = rng.chance(0.4) ? add : this.pickContributor(rng)
      push(batch, "contributions", {
        id: this.nextContribution++,
        member_id: editor,
        song_id: id,
        action: "edit",
        action_at: timeText(time),
        details: this.editDetails(rng, credits)
      })
    }
    const updated = editTimes.length > 0 ? (editTimes[editTimes.length - 1] ?? created) : created

    push(batch, "songs", {
      id,
      title,
      slug,
      released_at: dateText(day),
      date_type: dateType,
      published_at: published,
      deleted_at: deleted,
      artwork_key: artworkKey,
      artwork_source: source,
      artwork_dominant: hasColours ? rng.colour() : null,
      artwork_average: hasColours ? rng.colour() : null,
      notes,
      lyrics,
      views,
      claps: Math.floor(views * rng.next() * 0.05),
      duration_ms: durationMs,
      vidsvc_video_id: videoId,
      vidsvc_duration_seconds: hasVideo ? Math.round((durationMs ?? rng.int(150_000, 300_000)) / 1000) + rng.int(0, 25) : null,
      vidsvc_views: vidsvcViews,
      vidsvc_views_per_day: vidsvcViews === null ? null : Math.floor((vidsvcViews / ageDays) * (0.3 + rng.next() * 1.4)),
      vidsvc_likes: vidsvcViews === null ? null : Math.floor(vidsvcViews * (0.005 + rng.next() * 0.035)),
      vidsvc_last_fetched: hasVideo ? timeText(this.todayMs - rng.int(3600, 7 * 86_400) * 1000) : null,
      streama_id: streamaId,
      streama_url: streamaId === null ? null : `https://streama.example/track/${streamaId}`,
      streama_popularity: hasStreamA
        ? Math.max(0, Math.min(100, Math.floor(Math.log10(views + 1) * 15) + rng.int(-15, 15)))
        : null,
      streamb_id: streambId,
      streamb_url: streambId === null ? null : `https://music.streamb.example/my/song/${slug}/${streambId}`,
      created_at: timeText(created),
      updated_at: timeText(updated)
    })
  }

  private editDetails(rng: Random, credits: ReadonlyArray<Credit>): Row {
    const roleTitle = (role: number) => at(W.ROLES, role - 1).title
    const added: Array<Row> = []
    const removed: Array<Row> = []
    const links: Array<Row> = []
    const focus = rng.weighted<string>([
      ["credits", 35],
      ["links", 25],
      ["text", 25],
      ["mixed", 15]
    ])
    if (focus === "credits" || focus === "mixed") {
      const count = rng.int(1, Math.min(2, credits.length))
      const first = rng.int(0, credits.length - 1)
      for (let i = 0; i < count; i++) {
        const credit = at(credits, (first + i) % credits.length)
        added.push({ artist_name: this.names.artist(credit.artist).name, role_name: roleTitle(credit.role) })
      }
      if (rng.chance(0.3)) {
        const gone = rng.int(1, this.plan.artists)
        removed.push({ artist_name: this.names.artist(gone).name, role_name: roleTitle(rng.int(1, W.ROLES.length)) })
      }
    }
    if (focus === "links" || focus === "mixed") {
      const count = rng.int(1, 2)
      const services = ["streamb", "streama", "vidsvc"]
      for (let i = 0; i < count; i++) {
        links.push({
          service: i === 0 ? rng.weighted([["streamb", 50], ["streama", 30], ["vidsvc", 20]]) : rng.pick(services),
          change: rng.weighted([["added", 70], ["changed", 20], ["removed", 10]])
        })
      }
    }
    const text = focus === "text" || focus === "mixed"
    return {
      added_credits: added,
      removed_credits: removed,
      changed_genres: rng.chance(text ? 0.4 : 0.1),
      changed_labels: rng.chance(text ? 0.2 : 0.05),
      changed_lyrics: rng.chance(text ? 0.4 : 0.05),
      changed_notes: rng.chance(text ? 0.3 : 0.05),
      changed_title: rng.chance(text ? 0.15 : 0.02),
      changed_release_date: rng.chance(text ? 0.25 : 0.05),
      changed_artwork: rng.chance(text ? 0.3 : 0.05),
      links
    }
  }

  // --- curated lists and loves ---------------------------------------------------------------

  curatedLists(): Batch {
    const batch: Batch = {}
    const albums = this.albumCount
    const songs = this.plan.songs
    for (let id = 1; id <= this.plan.curatedLists; id++) {
      const rng = streamFor(this.seed, S.list, id)
      const contentType = albums === 0 ? "songs" : id === 1 ? "songs" : id === 2 ? "albums" : rng.chance(0.25) ? "albums" : "songs"
      const baseTitle = at(W.LIST_TITLES, (id - 1) % W.LIST_TITLES.length)
      const round = Math.floor((id - 1) / W.LIST_TITLES.length)
      const title = round === 0 ? baseTitle : `${baseTitle} Vol. ${round + 1}`
      const updated = this.todayMs - rng.int(3600, 3 * 365 * 86_400) * 1000
      const visibility = rng.weighted<"past" | "null" | "future">([
        ["past", 95],
        ["null", 3],
        ["future", 2]
      ])
      const hasArtwork = rng.chance(0.8)
      push(batch, "curated_lists", {
        id,
        title,
        description: rng.chance(0.85)
          ? `${rng.pick(["Pilihan editor", "Curated by our editors", "Lagu-lagu terbaik", "A hand-picked selection"])}: ${title.toLowerCase()}.`
          : null,
        artwork_key: hasArtwork ? `artwork/lists/${id}.jpg` : null,
        artwork_dominant: hasArtwork && rng.chance(0.8) ? rng.colour() : null,
        artwork_average: hasArtwork && rng.chance(0.8) ? rng.colour() : null,
        content_type: contentType,
        show_artists: rng.chance(0.9),
        show_writers: rng.chance(0.3),
        published_at:
          visibility === "null"
            ? null
            : visibility === "future"
              ? timeText(this.todayMs + rng.int(1, 30) * DAY_MS)
              : timeText(updated - rng.int(0, 90 * 86_400) * 1000),
        updated_at: timeText(updated)
      })
      if (contentType === "songs") {
        const size = Math.min(songs, rng.int(10, 50))
        const chosen = new Set<number>()
        for (let attempt = 0; chosen.size < size && attempt < size * 20; attempt++) {
          chosen.add(rng.chance(0.6) ? this.songPopularity.at(rng.zipf(songs)) + 1 : rng.int(1, songs))
        }
        let position = 1
        for (const song of chosen) push(batch, "curated_list_songs", { list_id: id, position: position++, song_id: song })
      } else {
        const size = Math.min(albums, rng.int(5, 20))
        const chosen = new Set<number>()
        for (let attempt = 0; chosen.size < size && attempt < size * 20; attempt++) chosen.add(rng.int(1, albums))
        let position = 1
        for (const album of chosen) push(batch, "curated_list_albums", { list_id: id, position: position++, album_id: album })
      }
    }
    return batch
  }

  loves(from: number, to: number, joinedAt: (member: number) => number): Array<Row> {
    const rows: Array<Row> = []
    const songs = this.plan.songs
    for (let member = from; member <= to; member++) {
      const rng = streamFor(this.seed, S.loves, member)
      const roll = rng.next()
      const count = Math.min(
        songs,
        roll < 0.45 ? 0 : roll < 0.995 ? 1 + Math.floor(rng.exponential(2.1)) : rng.int(40, 200)
      )
      if (count === 0) continue
      const joined = joinedAt(member)
      const chosen = new Set<number>()
      for (let attempt = 0; chosen.size < count && attempt < count * 20; attempt++) {
        chosen.add(rng.chance(0.65) ? this.songPopularity.at(rng.zipf(songs)) + 1 : rng.int(1, songs))
      }
      for (const song of chosen) {
        rows.push({ member_id: member, song_id: song, loved_at: timeText(this.between(rng, joined, this.todayMs - 1000)) })
      }
    }
    return rows
  }
}

const push = (batch: Batch, table: SeedTable, row: Row) => {
  const rows = batch[table]
  if (rows === undefined) batch[table] = [row]
  else rows.push(row)
}

// ---------------------------------------------------------------------------------------------
// Writing

/** Lets the event loop run (socket writes, query results) between slices of generation. */
const yieldToEventLoop = Effect.async<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/**
 * Foreign keys and plain (non-unique) secondary indexes of the catalogue tables, with the DDL
 * to drop them and to recreate them exactly (`pg_get_constraintdef` / `pg_get_indexdef`).
 * Primary keys and unique indexes stay in place.
 */
const deferrableDdl = (sql: SqlClient) =>
  sql
    .unsafe<{ readonly kind: string; readonly drop_sql: string; readonly create_sql: string }>(
      `WITH t AS (SELECT to_regclass(name)::oid AS oid FROM unnest($1::text[]) AS name)
       SELECT 'index' AS kind, format('DROP INDEX %s', i.indexrelid::regclass) AS drop_sql,
              pg_get_indexdef(i.indexrelid) AS create_sql
         FROM pg_index i
        WHERE i.indrelid IN (SELECT oid FROM t) AND NOT i.indisunique AND NOT i.indisprimary
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
       UNION ALL
       SELECT 'fk', format('ALTER TABLE %s DROP CONSTRAINT %I', c.conrelid::regclass, c.conname),
              format('ALTER TABLE %s ADD CONSTRAINT %I %s', c.conrelid::regclass, c.conname, pg_get_constraintdef(c.oid))
         FROM pg_constraint c
        WHERE c.contype = 'f' AND c.conrelid IN (SELECT oid FROM t)
        ORDER BY 1 DESC, 2`,
      [[...SEED_TABLES]]
    )
    .pipe(
      Effect.map((rows) => {
        const indexes = rows.filter((row) => row.kind === "index")
        const foreignKeys = rows.filter((row) => row.kind === "fk")
        // drop constraints first; recreate indexes first (constraint validation is one query each)
        return {
          drop: [...foreignKeys, ...indexes].map((row) => row.drop_sql),
          create: [...indexes, ...foreignKeys].map((row) => row.create_sql)
        }
      })
    )

/**
 * The triggers of the catalogue tables that keep counts (sql/0003 and 0006: named *_count_*) or
 * feed the change log (sql/0010: feed_*), which a bulk load switches off and replaces with one
 * recount and one backfill of the change log at the end.
 */
const keptCountTriggers = (sql: SqlClient) =>
  sql.unsafe<{ readonly table: string; readonly name: string }>(
    `SELECT t.tgrelid::regclass::text AS table, quote_ident(t.tgname) AS name
       FROM pg_trigger t
      WHERE t.tgrelid IN (SELECT to_regclass(name) FROM unnest($1::text[]) AS name)
        AND NOT t.tgisinternal AND (t.tgname LIKE '%\\_count\\_%' OR t.tgname LIKE 'feed\\_%')
      ORDER BY 1, 2`,
    [[...SEED_TABLES]]
  )

/**
 * Fills an empty, migrated database with the demo catalogue.
 *
 * Everything runs in one transaction: a failure leaves the database as it was. With `bulk`
 * (the default) the foreign keys and non-unique secondary indexes of the catalogue tables are
 * dropped at the start of that transaction and recreated, with their exact definitions, at the
 * end; Postgres then checks each foreign key with one query and builds each index in one sort,
 * instead of doing both row by row. Generation of the next chunk overlaps the writing of the
 * previous one.
 */
export const seedCatalogue = (
  sql: SqlClient,
  options: SeedOptions
): Effect.Effect<SeedSummary, SqlError | SeedOptionsError> =>
  Effect.gen(function* () {
    const songs = options.songs
    if (!Number.isSafeInteger(songs) || songs < 1 || songs > 50_000_000) {
      return yield* Effect.fail(new SeedOptionsError({ message: `songs must be a whole number from 1 to 50,000,000, got ${songs}` }))
    }
    const seed = options.seed ?? 1
    if (!Number.isSafeInteger(seed)) {
      return yield* Effect.fail(new SeedOptionsError({ message: `seed must be a whole number, got ${seed}` }))
    }
    const todayDay = yield* Effect.try({
      try: () => parseToday(options.today),
      catch: (error) => new SeedOptionsError({ message: error instanceof Error ? error.message : String(error) })
    })
    const batchSize = Math.max(1, options.batchSize ?? 5000)
    const chunkSongs = Math.max(1, options.chunkSongs ?? 2000)
    const bulk = options.bulk ?? true
    const generator = new CatalogueGenerator({ songs, seed: seed >>> 0, todayDay })
    const plan = generator.plan

    const rows = Object.fromEntries(SEED_TABLES.map((table) => [table, 0])) as Record<SeedTable, number>
    let totalRows = 0
    let done = 0
    const total = generator.totalUnits
    const statements = Object.fromEntries(SEED_TABLES.map((table) => [table, insertStatement(table)])) as Record<SeedTable, string>

    const report = (phase: string, units: number) =>
      Effect.sync(() => {
        done += units
        options.onProgress?.(Math.min(done, total), total, { phase, rows: totalRows })
      })

    const insert = (table: SeedTable, tableRows: ReadonlyArray<Row>) =>
      Effect.gen(function* () {
        for (let start = 0; start < tableRows.length; start += batchSize) {
          const slice = tableRows.slice(start, start + batchSize)
          yield* sql.unsafe(statements[table], [JSON.stringify(slice)])
          rows[table] += slice.length
          totalRows += slice.length
        }
      })

    const writeBatch = (batch: Batch) =>
      Effect.gen(function* () {
        for (const table of WRITE_ORDER) {
          const tableRows = batch[table]
          if (tableRows !== undefined && tableRows.length > 0) yield* insert(table, tableRows)
        }
      })

    // One batch is written (in a forked fiber, on the transaction's connection) while the next
    // is generated; batches are written strictly in order, so parents precede children.
    let inflight: Fiber.RuntimeFiber<void, SqlError> | undefined
    const submit = (batch: Batch) =>
      Effect.gen(function* () {
        if (inflight !== undefined) yield* Fiber.join(inflight)
        inflight = yield* Effect.fork(writeBatch(batch))
        yield* yieldToEventLoop
      })
    const drain = Effect.suspend(() => (inflight === undefined ? Effect.void : Fiber.join(inflight)))

    const load = Effect.gen(function* () {
      yield* sql.unsafe("SET LOCAL statement_timeout = 0")
      yield* sql.unsafe("SET LOCAL synchronous_commit = off")
      yield* sql.unsafe("SET LOCAL maintenance_work_mem = '128MB'")
      const ddl = bulk ? yield* deferrableDdl(sql) : { drop: [], create: [] }
      for (const statement of ddl.drop) yield* sql.unsafe(statement)
      // The kept counts (sql/0003, 0006) are recounted once at the end instead of per batch.
      const countTriggers = bulk ? yield* keptCountTriggers(sql) : []
      for (const trigger of countTriggers) yield* sql.unsafe(`ALTER TABLE ${trigger.table} DISABLE TRIGGER ${trigger.name}`)

      yield* report("reference", 0)
      yield* submit({ roles: generator.roles(), genres: generator.genres(), labels: generator.labels() })

      const memberChunk = 5000
      const usernames = new Set<string>()
      const joined = new Float64Array(plan.members + 1)
      for (let from = 1; from <= plan.members; from += memberChunk) {
        const to = Math.min(plan.members, from + memberChunk - 1)
        const memberRows = generator.members(from, to, usernames)
        memberRows.forEach((row, index) => {
          const at = row["joined_at"]
          joined[from + index] = typeof at === "string" ? Date.parse(at) : 0
        })
        yield* submit({ members: memberRows })
        yield* report("members", to - from + 1)
      }
      usernames.clear()

      const artistChunk = 5000
      for (let from = 1; from <= plan.artists; from += artistChunk) {
        const to = Math.min(plan.artists, from + artistChunk - 1)
        yield* submit({ artists: generator.artists(from, to) })
        yield* report("artists", (to - from + 1) / 2)
      }
      for (let from = 1; from <= plan.artists; from += artistChunk) {
        const to = Math.min(plan.artists, from + artistChunk - 1)
        yield* submit({ artist_memberships: generator.memberships(from, to) })
        yield* report("artists", (to - from + 1) / 2)
      }

      const slice = Math.min(250, chunkSongs)
      while (generator.songsDone < plan.songs) {
        const before = generator.songsDone
        const batch: Batch = {}
        while (generator.songsDone < plan.songs && generator.songsDone - before < chunkSongs) {
          generator.songs(Math.min(slice, chunkSongs - (generator.songsDone - before)), batch)
          yield* yieldToEventLoop
        }
        yield* submit(batch)
        yield* report("songs", generator.songsDone - before)
      }

      yield* submit(generator.curatedLists())
      yield* report("lists", plan.curatedLists)

      for (let from = 1; from <= plan.members; from += memberChunk) {
        const to = Math.min(plan.members, from + memberChunk - 1)
        yield* submit({ loves: generator.loves(from, to, (member) => joined[member] ?? 0) })
        yield* report("loves", to - from + 1)
      }
      yield* drain

      yield* report("finish", 0)
      for (const statement of ddl.create) yield* sql.unsafe(statement)
      for (const table of IDENTITY_TABLES) {
        yield* sql.unsafe(
          `SELECT setval(pg_get_serial_sequence('${table}', 'id'), coalesce(max(id), 0) + 1, false) FROM ${table}`
        )
      }
      yield* sql.unsafe(`ANALYZE ${SEED_TABLES.join(", ")}`)
      // after ANALYZE: planned over the empty tables' statistics, 0003's per-label recount
      // ran for more than 15 minutes at 1M songs
      if (countTriggers.length > 0) {
        yield* sql.unsafe("SELECT recount_public_counts()")
        yield* sql.unsafe("SELECT recount_catalogue_counts()")
        // after the catalogue counts: these read their list of scheduled songs
        yield* sql.unsafe("SELECT recount_artist_song_counts()")
        yield* sql.unsafe("SELECT recount_member_settled_contributions()")
        // last: the feed's first entries read the catalogue as the counts left it
        yield* sql.unsafe("SELECT feed_backfill()")
      }
      for (const trigger of countTriggers) yield* sql.unsafe(`ALTER TABLE ${trigger.table} ENABLE TRIGGER ${trigger.name}`)
    })

    yield* sql.withTransaction(load)

    return {
      seed,
      today: generator.todayText,
      plan: { ...plan, albums: generator.albumCount },
      rows,
      totalRows
    } satisfies SeedSummary
  })

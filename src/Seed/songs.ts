/**
 * Songs, walked in id order, with everything hanging off them: release dates, versions of
 * earlier songs, credits, genres, labels, visibility, media links, notes, lyrics and the
 * contribution history; albums are cut from runs of consecutive songs on the way.
 */
import { closeAlbum, type OpenAlbum, startAlbum } from "./albums.js"
import type { Culture } from "./artistNames.js"
import { type Catalogue, drawVisibility } from "./catalogue.js"
import { Contributions } from "./contributions.js"
import { songCredits } from "./credits.js"
import { CATALOGUE_START_MS, type DateType, DAY_MS, dateText, dayOf, timeText, VIDSVC_START_DAY } from "./dates.js"
import * as W from "./names.js"
import { combine, Permutation, Random, streamFor } from "./random.js"
import { S } from "./streams.js"
import { type Batch, push } from "./tables.js"
import { slugify } from "./text.js"
import { makeTitle, type VersionKind, versionSuffix } from "./titles.js"

type SongCategory = "today" | "recent" | "day" | "random"

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

export class SongWalk {
  private readonly categoryPerm: Permutation
  private readonly counts: { readonly today: number; readonly recent: number; readonly day: number }
  private readonly albumStartChance: number
  private readonly contributions: Contributions
  private readonly songDays: Int32Array
  private readonly songPerformer: Int32Array
  private readonly songIsVersion: Uint8Array
  private readonly walk: Random
  private nextSong = 1
  private nextAlbum = 1
  private openAlbum: OpenAlbum | null = null

  constructor(private readonly cat: Catalogue) {
    const songs = cat.plan.songs
    this.categoryPerm = new Permutation(songs, cat.permutationSeed("song-category"))
    const today8 = Math.floor(songs / 8)
    this.counts = {
      today: Math.min(Math.max(3, Math.round(songs * 0.003)), today8),
      recent: Math.min(Math.max(10, Math.round(songs * 0.005)), today8),
      day: Math.min(732, Math.floor(songs / 4))
    }
    // Albums take consecutive non-forced songs; pick the start chance so there are ~songs/8 albums.
    const free = Math.max(1, songs - this.counts.today - this.counts.recent - this.counts.day)
    const perSong = cat.plan.albums / free
    const averageTracks = 0.35 * 11 + 0.25 * 5 + 0.4 * 1.2
    const denominator = 1 - (averageTracks - 1) * perSong
    this.albumStartChance = denominator > 0.05 ? Math.min(0.95, perSong / denominator) : 0.95
    this.contributions = new Contributions(cat)
    this.songDays = new Int32Array(songs + 1)
    this.songPerformer = new Int32Array(songs + 1)
    this.songIsVersion = new Uint8Array(songs + 1)
    this.walk = new Random(combine(cat.seed, S.walk, 0))
  }

  get songsDone(): number {
    return this.nextSong - 1
  }

  get albumCount(): number {
    return this.nextAlbum - 1
  }

  /** Generates the next `count` songs (in id order) with everything hanging off them. */
  songs(count: number, batch: Batch = {}): Batch {
    const last = Math.min(this.cat.plan.songs, this.nextSong + count - 1)
    for (; this.nextSong <= last; this.nextSong++) this.song(this.nextSong, batch)
    if (this.nextSong > this.cat.plan.songs && this.openAlbum !== null) {
      closeAlbum(this.cat, this.openAlbum, batch)
      this.openAlbum = null
    }
    return batch
  }

  private category(song: number): { readonly kind: SongCategory; readonly index: number } {
    const p = this.categoryPerm.at(song - 1)
    const { today, recent, day } = this.counts
    if (p < today) return { kind: "today", index: p }
    if (p < today + recent) return { kind: "recent", index: p - today }
    if (p < today + recent + day) return { kind: "day", index: p - today - recent }
    return { kind: "random", index: 0 }
  }

  private forcedRelease(rng: Random, kind: SongCategory, index: number): number {
    const cat = this.cat
    switch (kind) {
      case "today":
        return dayOf(cat.earlierYear(rng, cat.todayMonth, cat.todayDate), cat.todayMonth, cat.todayDate)
      case "recent":
        return cat.todayDay - (index % 30)
      default: {
        // every calendar day of a leap year, in turn
        const calendar = new Date((dayOf(2000, 1, 1) + (index % 366)) * DAY_MS)
        const month = calendar.getUTCMonth() + 1
        const day = calendar.getUTCDate()
        return dayOf(cat.earlierYear(rng, month, day), month, day)
      }
    }
  }

  /** Base title of a song, before any version suffix: a pure function of the id. */
  private baseTitle(song: number): string {
    return makeTitle(streamFor(this.cat.seed, S.title, song))
  }

  private song(id: number, batch: Batch) {
    const cat = this.cat
    const rng = streamFor(cat.seed, S.song, id)
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
      performer = cat.pickPerformer(rng)
    } else {
      if (this.openAlbum === null && this.walk.chance(this.albumStartChance)) this.openAlbum = startAlbum(cat, this.nextAlbum++)
      album = this.openAlbum
      if (album !== null) {
        day = album.day
        dateType = album.dateType
        performer = rng.chance(0.85) ? album.artist : cat.pickPerformer(rng)
      } else {
        const release = cat.randomRelease(rng)
        day = release.day
        dateType = release.dateType
        performer = cat.pickPerformer(rng)
      }
    }

    // versions: ~3% of songs are a cover, remix or live take of an earlier song
    let original = 0
    let versionKind: VersionKind = "cover"
    if (!forced && id > 20 && rng.chance(0.05)) {
      for (let attempt = 0; attempt < 8 && original === 0; attempt++) {
        const candidate = cat.pickSong(rng, id - 1, 0.5)
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
        else if (performer === this.songPerformer[original]) performer = (performer % cat.plan.artists) + 1
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
        closeAlbum(cat, album, batch)
        this.openAlbum = null
      }
    }
    if (original !== 0) push(batch, "song_versions", { song_id: id, original_song_id: original, kind: versionKind })

    const credits = songCredits(cat, rng, id, performer, batch)

    // genres (1-3, the first fitting the performer's culture) and labels (0-2)
    const culture = cat.names.artist(performer).culture
    const genres = new Set<number>([rng.weighted(GENRE_WEIGHTS_BY_CULTURE[culture])])
    const extraGenres = rng.weighted([
      [0, 55],
      [1, 33],
      [2, 12]
    ])
    for (let i = 0; i < extraGenres; i++) genres.add(rng.weighted(ALL_GENRE_WEIGHTS))
    for (const genre of genres) push(batch, "song_genres", { song_id: id, genre_id: genre, released_at: dateText(day) })
    const labels = new Set<number>()
    if (album?.label !== null && album?.label !== undefined) labels.add(album.label)
    const labelCount = rng.weighted([
      [0, 25],
      [1, 60],
      [2, 15]
    ])
    while (labels.size < labelCount) labels.add(cat.pickLabel(rng))
    for (const label of labels) push(batch, "song_labels", { song_id: id, label_id: label, released_at: dateText(day) })

    // timestamps and visibility
    const releaseMs = day * DAY_MS
    const createdLow = Math.max(CATALOGUE_START_MS, releaseMs - 14 * DAY_MS)
    const createdHigh = cat.todayMs - 3_600_000
    const created = createdLow >= createdHigh ? createdHigh - 600_000 : createdLow + Math.floor(Math.pow(rng.next(), 2) * (createdHigh - createdLow))
    const published = cat.publishedAt(rng, forced ? "past" : drawVisibility(rng, 96, 3, 1), created, 60)
    const deleted = !forced && rng.chance(0.02) ? timeText(cat.between(rng, created + 60_000, cat.todayMs - 1000)) : null

    // media
    const slug = slugify(title, `song-${id}`)
    const ageDays = Math.max(1, cat.todayDay - Math.max(day, VIDSVC_START_DAY) + 1)
    const hasVideo = rng.chance(day > cat.todayDay - 365 * 15 ? 0.8 : 0.55)
    const durationMs = rng.chance(0.92) ? rng.int(120_000, 360_000) : null
    const videoId = hasVideo ? rng.chars(VIDEO_ALPHABET, 11) : null
    const vidsvcViews = hasVideo ? Math.floor(Math.exp(rng.next() * Math.log(50_000_000))) : null
    const hasStreamA = rng.chance(0.55)
    const hasStreamB = rng.chance(0.45)
    const streamaId = hasStreamA ? rng.chars(BASE62, 22) : null
    // unique as the schema wants (songs_streamb_id_key): the song's id in the high digits
    const streambId = hasStreamB ? String(100_000_000 + id * 1000 + rng.int(0, 999)) : null
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

    const updated = this.contributions.forSong(rng, id, created, credits, batch)

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
      vidsvc_last_fetched: hasVideo ? timeText(cat.todayMs - rng.int(3600, 7 * 86_400) * 1000) : null,
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
}

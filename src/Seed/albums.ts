/**
 * Albums: cut while walking the songs (see songs.ts). An album is opened with its type, size,
 * artist, date and label; the songs walked next become its tracks; it is written when full.
 */
import { type Catalogue, drawVisibility } from "./catalogue.js"
import { CATALOGUE_START_MS, type DateType, DAY_MS, dateText, timeText } from "./dates.js"
import { streamFor } from "./random.js"
import { S } from "./streams.js"
import { type Batch, push } from "./tables.js"
import { slugify } from "./text.js"
import { ALBUM_TITLES, makeTitle } from "./titles.js"

export interface OpenAlbum {
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

export const startAlbum = (cat: Catalogue, id: number): OpenAlbum => {
  const rng = streamFor(cat.seed, S.album, id)
  const type = rng.weighted<OpenAlbum["type"]>([
    ["album", 35],
    ["ep", 25],
    ["single", 40]
  ])
  const size = type === "album" ? rng.int(8, 14) : type === "ep" ? rng.int(4, 6) : rng.chance(0.8) ? 1 : 2
  const release = cat.randomRelease(rng)
  return {
    id,
    type,
    size,
    artist: cat.pickPerformer(rng),
    day: release.day,
    dateType: release.dateType,
    label: rng.chance(0.85) ? cat.pickLabel(rng) : null,
    tracks: [],
    firstTitle: ""
  }
}

export const closeAlbum = (cat: Catalogue, album: OpenAlbum, batch: Batch) => {
  if (album.tracks.length === 0) return
  const rng = streamFor(cat.seed, S.albumClose, album.id)
  const title =
    album.type === "single" || rng.chance(0.4)
      ? album.firstTitle
      : rng.chance(0.75)
        ? makeTitle(rng)
        : rng.pick(ALBUM_TITLES)
  const created = cat.between(rng, Math.max(CATALOGUE_START_MS, album.day * DAY_MS - 14 * DAY_MS), cat.todayMs - 3_600_000)
  const published = cat.publishedAt(rng, drawVisibility(rng, 93, 4, 3), created, 90)
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
      const second = cat.pickPerformer(rng)
      if (second !== album.artist) push(batch, "album_artists", { album_id: album.id, position: 2, artist_id: second })
    }
  }
}


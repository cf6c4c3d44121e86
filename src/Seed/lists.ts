/** Curated lists: editors' selections of songs or of albums. */
import { type Catalogue, distinct, drawVisibility } from "./catalogue.js"
import { DAY_MS, timeText } from "./dates.js"
import * as W from "./names.js"
import { streamFor } from "./random.js"
import { S } from "./streams.js"
import { type Batch, push } from "./tables.js"
import { at } from "./text.js"

const DESCRIPTIONS = ["Pilihan editor", "Curated by our editors", "Lagu-lagu terbaik", "A hand-picked selection"]

/** The curated lists, once the songs and the `albums` albums are known. */
export const curatedListBatch = (cat: Catalogue, albums: number): Batch => {
  const batch: Batch = {}
  const songs = cat.plan.songs
  for (let id = 1; id <= cat.plan.curatedLists; id++) {
    const rng = streamFor(cat.seed, S.list, id)
    const contentType = albums === 0 ? "songs" : id === 1 ? "songs" : id === 2 ? "albums" : rng.chance(0.25) ? "albums" : "songs"
    const baseTitle = at(W.LIST_TITLES, (id - 1) % W.LIST_TITLES.length)
    const round = Math.floor((id - 1) / W.LIST_TITLES.length)
    const title = round === 0 ? baseTitle : `${baseTitle} Vol. ${round + 1}`
    const updated = cat.todayMs - rng.int(3600, 3 * 365 * 86_400) * 1000
    const visibility = drawVisibility(rng, 95, 3, 2)
    const hasArtwork = rng.chance(0.8)
    push(batch, "curated_lists", {
      id,
      title,
      description: rng.chance(0.85) ? `${rng.pick(DESCRIPTIONS)}: ${title.toLowerCase()}.` : null,
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
            ? timeText(cat.todayMs + rng.int(1, 30) * DAY_MS)
            : timeText(updated - rng.int(0, 90 * 86_400) * 1000),
      updated_at: timeText(updated)
    })
    if (contentType === "songs") {
      const chosen = distinct(Math.min(songs, rng.int(10, 50)), () => cat.pickSong(rng, songs, 0.6))
      let position = 1
      for (const song of chosen) push(batch, "curated_list_songs", { list_id: id, position: position++, song_id: song })
    } else {
      const chosen = distinct(Math.min(albums, rng.int(5, 20)), () => rng.int(1, albums))
      let position = 1
      for (const album of chosen) push(batch, "curated_list_albums", { list_id: id, position: position++, album_id: album })
    }
  }
  return batch
}

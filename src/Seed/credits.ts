/** A song's credits: performers first, then writers, sometimes producers and players. */
import type { Catalogue } from "./catalogue.js"
import * as W from "./names.js"
import type { Random } from "./random.js"
import { type Batch, push } from "./tables.js"

export interface Credit {
  readonly artist: number
  readonly role: number
}

/** Draws the credits of song `song` sung by `performer` and adds their rows to `batch`. */
export const songCredits = (cat: Catalogue, rng: Random, song: number, performer: number, batch: Batch): ReadonlyArray<Credit> => {
  const credits: Array<Credit> = [{ artist: performer, role: W.ROLE_ID.vocals }]
  if (rng.chance(0.2)) {
    const featured = cat.pickPerformer(rng)
    if (featured !== performer) credits.push({ artist: featured, role: W.ROLE_ID.featured })
  }
  let composer = 0
  if (rng.chance(0.85)) {
    composer = rng.chance(0.3) && !cat.names.isGroup(performer) ? performer : cat.pickWriter(rng)
    credits.push({ artist: composer, role: W.ROLE_ID.composer })
  }
  if (rng.chance(0.7)) {
    const lyricist = composer !== 0 && rng.chance(0.35) ? composer : cat.pickWriter(rng)
    credits.push({ artist: lyricist, role: W.ROLE_ID.lyricist })
  }
  if (rng.chance(0.1)) credits.push({ artist: cat.pickWriter(rng), role: W.ROLE_ID.arranger })
  if (rng.chance(0.2)) credits.push({ artist: cat.pickWriter(rng), role: W.ROLE_ID.producer })
  if (rng.chance(0.1)) {
    credits.push({ artist: cat.pickWriter(rng), role: rng.int(W.ROLE_ID.instrumentFirst, W.ROLE_ID.instrumentLast) })
  }
  credits.forEach((credit, position) =>
    push(batch, "credits", { song_id: song, position: position + 1, artist_id: credit.artist, role_id: credit.role })
  )
  return credits
}

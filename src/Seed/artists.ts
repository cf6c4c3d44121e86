/** Artists and bands, and the line-ups of the bands. */
import type { Catalogue } from "./catalogue.js"
import { DAY_MS, timeText } from "./dates.js"
import * as W from "./names.js"
import { streamFor } from "./random.js"
import { S } from "./streams.js"
import type { Row } from "./tables.js"
import { slugify } from "./text.js"

export const artistRows = (cat: Catalogue, from: number, to: number): Array<Row> => {
  const rows: Array<Row> = []
  for (let id = from; id <= to; id++) {
    const rng = streamFor(cat.seed, S.artist, id)
    const artist = cat.names.artist(id)
    let prefix: string | null = null
    if (!artist.isGroup && rng.chance(0.04)) {
      prefix = rng.pick(artist.female ? W.HONORIFICS_FEMALE : W.HONORIFICS_MALE)
    }
    const created = cat.spreadOver(id, cat.plan.artists) + rng.int(0, DAY_MS / 1000 - 1) * 1000
    rows.push({
      id,
      name: artist.name,
      slug: slugify(artist.name, `artist-${id}`),
      prefix_title: prefix,
      is_group: artist.isGroup,
      avatar_key: rng.chance(0.55) ? `avatars/artists/${id}.jpg` : null,
      disambiguator: artist.disambiguator,
      member_id: cat.memberOfArtist(id),
      created_at: timeText(Math.min(created, cat.todayMs - 1000))
    })
  }
  return rows
}

/** Band line-ups: every group gets 2 to 5 distinct solo artists. */
export const membershipRows = (cat: Catalogue, from: number, to: number): Array<Row> => {
  const rows: Array<Row> = []
  for (let group = from; group <= to; group++) {
    if (!cat.names.isGroup(group)) continue
    const rng = streamFor(cat.seed, S.group, group)
    const size = rng.int(2, 5)
    const chosen = new Set<number>()
    for (let attempt = 0; chosen.size < size && attempt < 50; attempt++) {
      let candidate = rng.int(1, cat.plan.artists)
      for (let step = 0; step < 20 && (candidate === group || cat.names.isGroup(candidate)); step++) {
        candidate = (candidate % cat.plan.artists) + 1
      }
      if (candidate !== group && !cat.names.isGroup(candidate)) chosen.add(candidate)
    }
    for (const member of [...chosen].sort((a, b) => a - b)) rows.push({ group_id: group, member_id: member })
  }
  return rows
}

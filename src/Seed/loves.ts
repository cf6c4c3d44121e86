/** Loves: most members love a few songs, a few love many; popular songs are loved more. */
import { type Catalogue, distinct } from "./catalogue.js"
import { timeText } from "./dates.js"
import { streamFor } from "./random.js"
import { S } from "./streams.js"
import type { Row } from "./tables.js"

/** The loves of members `from..to`; a love comes after the member joined (`joinedAt`, in ms). */
export const loveRows = (cat: Catalogue, from: number, to: number, joinedAt: (member: number) => number): Array<Row> => {
  const rows: Array<Row> = []
  const songs = cat.plan.songs
  for (let member = from; member <= to; member++) {
    const rng = streamFor(cat.seed, S.loves, member)
    const roll = rng.next()
    const count = Math.min(songs, roll < 0.45 ? 0 : roll < 0.995 ? 1 + Math.floor(rng.exponential(2.1)) : rng.int(40, 200))
    if (count === 0) continue
    const joined = joinedAt(member)
    const chosen = distinct(count, () => cat.pickSong(rng, songs, 0.65))
    for (const song of chosen) {
      rows.push({ member_id: member, song_id: song, loved_at: timeText(cat.between(rng, joined, cat.todayMs - 1000)) })
    }
  }
  return rows
}

/** Members: fans, editors and the accounts of artists and bands. */
import type { Catalogue } from "./catalogue.js"
import { CATALOGUE_START_MS, DAY_MS, timeText } from "./dates.js"
import * as W from "./names.js"
import { type Random, streamFor } from "./random.js"
import { S } from "./streams.js"
import type { Row } from "./tables.js"
import { at, slugify } from "./text.js"

const personName = (rng: Random): string => {
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

const usernameBase = (name: string, rng: Random, official: boolean): string => {
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
export const memberRows = (cat: Catalogue, from: number, to: number, used: Set<string>): Array<Row> => {
  const rows: Array<Row> = []
  for (let id = from; id <= to; id++) {
    const rng = streamFor(cat.seed, S.member, id)
    const artistId = cat.artistOfMember(id)
    const artist = artistId === null ? undefined : cat.names.artist(artistId)
    const kind = artist === undefined ? "fan" : artist.isGroup ? "group" : "artist"
    const name = artist?.name ?? personName(rng)
    let username: string | null = null
    if (artist !== undefined || !rng.chance(0.08)) {
      const base = usernameBase(name, rng, artist !== undefined)
      let candidate = base
      for (let attempt = 0; used.has(candidate.toLowerCase()); attempt++) {
        candidate = attempt < 4 ? `${base}${rng.int(2, 999)}` : `${base}_${id}${attempt === 4 ? "" : `_${attempt}`}`
      }
      used.add(candidate.toLowerCase())
      username = candidate
    }
    // joined roughly in id order, with some jitter
    const joined = Math.min(
      cat.todayMs - 3_600_000,
      Math.max(CATALOGUE_START_MS, cat.spreadOver(id, cat.plan.members) + rng.int(-30, 30) * DAY_MS)
    ) + rng.int(0, DAY_MS / 1000 - 1) * 1000
    const roles = id <= 2 ? ["member", "editor", "admin"] : rng.chance(0.05) ? ["member", "editor"] : ["member"]
    rows.push({
      id,
      username,
      name,
      kind,
      avatar_key: rng.chance(0.6) ? `avatars/members/${id}.jpg` : null,
      joined_at: timeText(Math.min(joined, cat.todayMs - 1000)),
      email: `user${id}@mail.example`,
      roles,
      is_banned: id > 2 && rng.chance(0.02)
    })
  }
  return rows
}

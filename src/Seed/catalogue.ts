/**
 * What every part of the seed shares: the plan, the seed, the generation day, the artist
 * names, who is popular, which members are artists, and release dates.
 *
 * Determinism: every value is a function of (seed, songs, today). Facts needed across chunks
 * (an artist's name, a song's base title) are recomputed from id-keyed random streams
 * instead of being stored.
 */
import { NameBook } from "./artistNames.js"
import { CATALOGUE_START_MS, type DateType, DAY_MS, dateText, dayOf, EARLIEST_YEAR, isLeap, timeText } from "./dates.js"
import { planCatalogue, type SeedPlan } from "./plan.js"
import { combine, hashString, Permutation, type Random } from "./random.js"
import { S } from "./streams.js"

/** One of `1..n`: a popular one (by `popularity`) with probability `chance`, else any. */
export const popular = (rng: Random, popularity: Permutation, n: number, chance: number): number =>
  rng.chance(chance) ? popularity.at(rng.zipf(n)) + 1 : rng.int(1, n)

/** Up to `size` distinct picks (20 tries a pick), in the order first drawn. */
export const distinct = (size: number, pick: () => number): Set<number> => {
  const chosen = new Set<number>()
  for (let attempt = 0; chosen.size < size && attempt < size * 20; attempt++) chosen.add(pick())
  return chosen
}

/** Published in the past, not at all, or in the future (scheduled). */
export type Visibility = "past" | "null" | "future"

/** Draws a row's visibility with the weights given for past, none and future. */
export const drawVisibility = (rng: Random, past: number, none: number, future: number): Visibility =>
  rng.weighted<Visibility>([
    ["past", past],
    ["null", none],
    ["future", future]
  ])

export class Catalogue {
  readonly plan: SeedPlan
  readonly seed: number
  readonly todayDay: number
  readonly todayMs: number
  readonly todayYear: number
  readonly todayMonth: number
  readonly todayDate: number
  readonly names: NameBook
  readonly songPopularity: Permutation

  private readonly artistPopularity: Permutation
  private readonly writerPopularity: Permutation
  private readonly labelPopularity: Permutation
  private readonly memberActivity: Permutation
  /** Member id -> artist id, and back, for the members who are artists or groups. */
  private readonly artistOfMemberId: Map<number, number> = new Map()
  private readonly memberOfArtistId: Map<number, number> = new Map()

  constructor(options: { readonly songs: number; readonly seed: number; readonly todayDay: number }) {
    this.plan = planCatalogue(options.songs)
    this.seed = options.seed >>> 0
    this.todayDay = options.todayDay
    this.todayMs = options.todayDay * DAY_MS
    const today = new Date(this.todayMs)
    this.todayYear = today.getUTCFullYear()
    this.todayMonth = today.getUTCMonth() + 1
    this.todayDate = today.getUTCDate()
    this.names = new NameBook(this.seed, this.plan.artists)
    this.artistPopularity = new Permutation(this.plan.artists, this.permutationSeed("artist-popularity"))
    this.writerPopularity = new Permutation(this.plan.artists, this.permutationSeed("writer-popularity"))
    this.labelPopularity = new Permutation(this.plan.labels, this.permutationSeed("label-popularity"))
    this.memberActivity = new Permutation(this.plan.members, this.permutationSeed("member-activity"))
    this.songPopularity = new Permutation(this.plan.songs, this.permutationSeed("song-popularity"))
    // Every 25th artist and every fourth band have a member account (kind artist or group),
    // at member ids spread over the whole range.
    const memberLinks = new Permutation(this.plan.members, this.permutationSeed("member-links"))
    for (let artist = 1, k = 0; artist <= this.plan.artists && k < this.plan.members; artist++) {
      if (artist % 25 !== 0 && !(artist % 4 === 1 && this.names.isGroup(artist))) continue
      const member = memberLinks.at(k++) + 1
      this.artistOfMemberId.set(member, artist)
      this.memberOfArtistId.set(artist, member)
    }
  }

  permutationSeed(name: string): number {
    return combine(this.seed, S.perm, hashString(name))
  }

  get todayText(): string {
    return dateText(this.todayDay)
  }

  /** Work units for progress: members, artists, songs, lists and the loves pass. */
  get totalUnits(): number {
    return this.plan.members * 2 + this.plan.artists + this.plan.songs + this.plan.curatedLists
  }

  artistOfMember(member: number): number | null {
    return this.artistOfMemberId.get(member) ?? null
  }

  memberOfArtist(artist: number): number | null {
    return this.memberOfArtistId.get(artist) ?? null
  }

  // --- picking -------------------------------------------------------------------------------

  pickPerformer(rng: Random): number {
    return popular(rng, this.artistPopularity, this.plan.artists, 0.6)
  }

  pickWriter(rng: Random): number {
    let id = popular(rng, this.writerPopularity, this.plan.artists, 0.6)
    // bands rarely write as a band
    if (this.names.isGroup(id) && rng.chance(0.8)) id = (id % this.plan.artists) + 1
    return id
  }

  pickLabel(rng: Random): number {
    return this.labelPopularity.at(rng.zipf(this.plan.labels)) + 1
  }

  pickContributor(rng: Random): number {
    return popular(rng, this.memberActivity, this.plan.members, 0.7)
  }

  /** A song among the first `upTo`, popular ones with probability `chance`. */
  pickSong(rng: Random, upTo: number, chance: number): number {
    return popular(rng, this.songPopularity, upTo, chance)
  }

  /** A timestamp between two instants, rounded to the second. */
  between(rng: Random, fromMs: number, toMs: number): number {
    return fromMs >= toMs ? fromMs : fromMs + Math.floor(rng.next() * (toMs - fromMs))
  }

  /** When a row made at `created` is published (none, or `futureDays` at most ahead) as drawn. */
  publishedAt(rng: Random, visibility: Visibility, created: number, futureDays: number): string | null {
    switch (visibility) {
      case "null":
        return null
      case "future":
        return timeText(this.todayMs + rng.int(1, futureDays) * DAY_MS + rng.int(0, 86_399) * 1000)
      case "past":
        return timeText(Math.min(created + rng.int(0, 72 * 3600) * 1000, this.todayMs - 60_000))
    }
  }

  /** Where the `index`-th of `count` rows falls when they were made evenly since the catalogue began. */
  spreadOver(index: number, count: number): number {
    return CATALOGUE_START_MS + Math.floor(((this.todayMs - CATALOGUE_START_MS) * (index - 1)) / count)
  }

  // --- release dates -------------------------------------------------------------------------

  /** An earlier year in which month/day exists (Feb 29 only in leap years). */
  earlierYear(rng: Random, month: number, day: number): number {
    for (;;) {
      const year = rng.int(EARLIEST_YEAR, this.todayYear - 1)
      if (!(month === 2 && day === 29) || isLeap(year)) return year
    }
  }

  /** A release date: mostly recent decades, any precision. Never after today. */
  randomRelease(rng: Random): { day: number; dateType: DateType } {
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
}

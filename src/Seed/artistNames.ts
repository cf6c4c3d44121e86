/**
 * Artist names: injective templates per culture, so that no two artists share a name by
 * accident; 2% of artists are deliberate namesakes of an earlier artist, spelled with small
 * differences that fold away in search.
 */
import * as W from "./names.js"
import { combine, hashString, mix32, Permutation, streamFor } from "./random.js"
import { S } from "./streams.js"
import { addDiacritic, at, hasDiacritics, stripDiacritics } from "./text.js"

export type Culture = "malay" | "chinese" | "tamil" | "english"

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

export interface BaseArtist {
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

export class NameBook {
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


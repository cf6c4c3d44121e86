/**
 * The relevance suite's classes for other spellings (docs/search.md, "Other spellings"): Han titles
 * by pinyin, Tamil-script titles in Latin letters, Malay titles texted with short forms, and a whole
 * word typed where a longer word begins with it. Each is made from the target's title by a general
 * rule of its own (pinyin-pro's conversion, two romanisations of Tamil, the short forms people
 * text), never by the service's tables.
 */
import { pinyin } from "pinyin-pro"
import type { Made, QueryClass } from "./relevanceQueries.js"

const HAN = /\p{Script=Han}/u
const TAMIL = /\p{Script=Tamil}/u
const TYPING_SHARE = 0.6

/** The title's words, each Han character read in pinyin without tones (pinyin-pro reads polyphonic ones in context). */
const pinyinWords = (title: string): ReadonlyArray<{ readonly text: string; readonly han: boolean }> =>
  pinyin(title, { toneType: "none", type: "all", nonZh: "consecutive" })
    .flatMap((part) => (part.isZh ? [{ text: part.pinyin, han: true }] : part.origin.split(/\s+/).map((text) => ({ text, han: false }))))
    .filter((word) => word.text.trim() !== "")

const hanTitle = (title: string, make: (words: ReadonlyArray<{ readonly text: string; readonly han: boolean }>) => Made | string): Made | string =>
  HAN.test(title) ? make(pinyinWords(title)) : "no Han character in the title"

/** Runs of Han syllables joined two by two ("yueliang daibiao"), other words as they are. */
const joinedByTwo = (words: ReadonlyArray<{ readonly text: string; readonly han: boolean }>) => {
  const out: Array<string> = []
  let run: Array<string> = []
  const flush = () => {
    for (let i = 0; i < run.length; i += 2) out.push(run.slice(i, i + 2).join(""))
    run = []
  }
  for (const word of words) {
    if (word.han) run.push(word.text)
    else {
      flush()
      out.push(word.text)
    }
  }
  flush()
  return out.join(" ")
}

/** Tamil letters, for the two romanisations below: each consonant's Latin, each vowel's, short and long. */
interface Romanisation {
  readonly consonants: Readonly<Record<string, string>>
  readonly vowels: Readonly<Record<string, string>>
  readonly signs: Readonly<Record<string, string>>
}

const VIRAMA = "்"
const CONSONANTS_COMMON: Record<string, string> = {
  "க": "k", "ங": "ng", "ச": "s", "ஞ": "nj", "ட": "d", "ண": "n", "த": "th", "ந": "n", "ப": "p", "ம": "m", "ய": "y",
  "ர": "r", "ல": "l", "வ": "v", "ழ": "zh", "ள": "l", "ற": "r", "ன": "n", "ஜ": "j", "ஷ": "sh", "ஸ": "s", "ஹ": "h", "ஶ": "sh"
}

/** What most people type: long vowels doubled (aa, ee, oo), த as th, ட as d, ழ as zh. */
const COMMON: Romanisation = {
  consonants: CONSONANTS_COMMON,
  vowels: { "அ": "a", "ஆ": "aa", "இ": "i", "ஈ": "ee", "உ": "u", "ஊ": "oo", "எ": "e", "ஏ": "ae", "ஐ": "ai", "ஒ": "o", "ஓ": "o", "ஔ": "au" },
  signs: { "ா": "aa", "ி": "i", "ீ": "ee", "ு": "u", "ூ": "oo", "ெ": "e", "ே": "ae", "ை": "ai", "ொ": "o", "ோ": "o", "ௌ": "au" }
}

/** A second spelling: vowel length not written, த as dh, ட as t, ழ as l, ச as ch. */
const SECOND: Romanisation = {
  consonants: { ...CONSONANTS_COMMON, "த": "dh", "ட": "t", "ழ": "l", "ச": "ch" },
  vowels: { "அ": "a", "ஆ": "a", "இ": "i", "ஈ": "i", "உ": "u", "ஊ": "u", "எ": "e", "ஏ": "e", "ஐ": "ai", "ஒ": "o", "ஓ": "o", "ஔ": "au" },
  signs: { "ா": "a", "ி": "i", "ீ": "i", "ு": "u", "ூ": "u", "ெ": "e", "ே": "e", "ை": "ai", "ொ": "o", "ோ": "o", "ௌ": "au" }
}

/** A folded title with its Tamil words in Latin letters by `rule`; other words as they are. */
export const romanise = (folded: string, rule: Romanisation): string => {
  let out = ""
  const chars = [...folded]
  for (let i = 0; i < chars.length; i++) {
    const char = chars[i]!
    const consonant = rule.consonants[char]
    if (consonant !== undefined) {
      const next = chars[i + 1] ?? ""
      out += consonant
      if (next === VIRAMA) i++
      else if (rule.signs[next] !== undefined) {
        out += rule.signs[next]
        i++
      } else out += "a"
    } else out += rule.vowels[char] ?? (rule.signs[char] !== undefined || char === VIRAMA ? "" : char)
  }
  return out
}

const tamilTitle = (folded: string, rule: Romanisation): Made | string =>
  TAMIL.test(folded) ? { text: romanise(folded, rule) } : "no Tamil in the title"

/** The common texting forms of Malay words, as people write them (the list and a few more). */
const SHORT_FORMS: Readonly<Record<string, string>> = {
  yang: "yg", untuk: "utk", dengan: "dgn", tidak: "x", tak: "x", saya: "sy", aku: "ak", kau: "ko", lagi: "lg",
  jangan: "jgn", tapi: "tp", sangat: "sgt", dalam: "dlm", pada: "pd", kepada: "kpd", orang: "org", boleh: "blh",
  macam: "mcm", sebab: "sbb", bukan: "bkn", sekarang: "skrg", itu: "tu", ini: "ni", sahaja: "je", hendak: "nk"
}

export const SCRIPT_CLASSES: ReadonlyArray<QueryClass> = [
  {
    name: "Han title by pinyin",
    example: "yue liang dai biao",
    type: "songs",
    namesArtist: false,
    extra: "non-Latin",
    make: (target) => hanTitle(target.title, (words) => ({ text: words.map((word) => word.text).join(" ") }))
  },
  {
    name: "Han title by pinyin joined",
    example: "yueliang daibiao",
    type: "songs",
    namesArtist: false,
    extra: "non-Latin",
    make: (target) => hanTitle(target.title, (words) => ({ text: joinedByTwo(words) }))
  },
  {
    name: "Han title by pinyin typed",
    example: "yue liang dai bi",
    type: "songs",
    namesArtist: false,
    extra: "non-Latin",
    make: (target) =>
      hanTitle(target.title, (words) => {
        const last = words.at(-1)!
        if (!last.han || last.text.length < 2) return "the title does not end in a Han character of 2+ letters"
        const cut = last.text.slice(0, Math.min(last.text.length - 1, Math.ceil(last.text.length * TYPING_SHARE)))
        return { text: [...words.slice(0, -1).map((word) => word.text), cut].join(" ") }
      })
  },
  {
    name: "Tamil title romanised",
    example: "kaadhal (of காதல்)",
    type: "songs",
    namesArtist: false,
    extra: "non-Latin",
    make: (target) => tamilTitle(target.folded, COMMON)
  },
  {
    name: "Tamil title, second spelling",
    example: "kadhal (of காதல்)",
    type: "songs",
    namesArtist: false,
    extra: "non-Latin",
    make: (target) => tamilTitle(target.folded, SECOND)
  },
  {
    name: "Malay title with short forms",
    example: "ghazal utk rabiah",
    type: "songs",
    namesArtist: false,
    make: (target) => {
      const words = target.folded.split(" ")
      if (!words.some((word) => SHORT_FORMS[word] !== undefined)) return "no word with a short form"
      return { text: words.map((word) => SHORT_FORMS[word] ?? word).join(" ") }
    }
  },
  {
    name: "whole word before prefix",
    example: "nadi (beside Nadia)",
    type: "songs",
    namesArtist: false,
    make: (target, { vocabulary }) => {
      const last = target.folded.split(" ").at(-1)!
      for (const word of vocabulary) if (word.length > last.length && word.startsWith(last)) return { text: target.folded }
      return "no catalogue word begins with the title's last word"
    }
  }
]

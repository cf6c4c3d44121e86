/** Song and album titles, and the suffixes that mark a song's versions. */
import * as W from "./names.js"
import type { Random } from "./random.js"

export type VersionKind = "cover" | "remix" | "live" | "acoustic" | "other"

const TITLE_PREFIXES = ["Jangan", "Kau", "Ku", "Biar Aku", "Mengapa Kau", "Aku", "Usah", "Masih"] as const
export const ALBUM_TITLES = [
  "Koleksi Terbaik", "Unplugged", "Live in KL", "Edisi Istimewa", "Greatest Hits", "Sebuah Perjalanan", "Debut",
  "Era", "Kembali", "Satu", "Dua Dunia", "Anthology", "Sessions", "Karnival", "Nostalgia", "Bersama"
] as const

export const versionSuffix = (kind: VersionKind, rng: Random): string => {
  switch (kind) {
    case "cover":
      return ""
    case "remix":
      return rng.pick([" (Remix)", " (DJ Remix)", " (Club Mix)", " (Remix 2.0)"])
    case "live":
      return rng.pick([" (Live)", " (Live di Stadium Merdeka)", " (Live at Axiata Arena)", " (Konsert)"])
    case "acoustic":
      return rng.pick([" (Versi Akustik)", " (Acoustic)", " (Unplugged)"])
    case "other":
      return rng.pick([" (Versi Orkestra)", " (Instrumental)", " (Versi Baharu)"])
  }
}

export const makeTitle = (rng: Random): string => {
  const kind = rng.weighted<string>([
    ["noun-adj", 22],
    ["noun", 6],
    ["place", 4],
    ["verb", 8],
    ["untuk", 4],
    ["english", 12],
    ["the", 3],
    ["phrase", 8],
    ["special", 3],
    ["chinese", 5],
    ["tamil-script", 3],
    ["tamil", 4],
    ["double", 2]
  ])
  switch (kind) {
    case "noun-adj":
      return `${rng.pick(W.TITLE_NOUNS_MS)} ${rng.pick(W.TITLE_ADJECTIVES_MS)}`
    case "noun":
      return rng.pick(W.TITLE_NOUNS_MS)
    case "place":
      return `${rng.pick(W.TITLE_NOUNS_MS)} Di ${rng.pick(W.TITLE_PLACES)}`
    case "verb":
      return `${rng.pick(TITLE_PREFIXES)} ${rng.pick(W.TITLE_VERBS_MS)}`
    case "untuk":
      return rng.chance(0.5) ? `Untuk ${rng.pick(W.TITLE_NOUNS_MS)}` : `${rng.pick(W.TITLE_NOUNS_MS)} Untukmu`
    case "english":
      return `${rng.pick(W.TITLE_WORDS_EN)} ${rng.pick(W.TITLE_WORDS_EN)}`
    case "the":
      return `The ${rng.pick(W.TITLE_WORDS_EN)}`
    case "phrase":
      return rng.pick(W.TITLE_PHRASES_EN)
    case "special":
      return rng.pick(W.TITLE_SPECIAL)
    case "chinese": {
      const length = rng.int(2, 5)
      let title = ""
      for (let i = 0; i < length; i++) title += rng.pick(W.TITLE_CHINESE_CHARS)
      return title
    }
    case "tamil-script":
      return `${rng.pick(W.TITLE_TAMIL_WORDS)} ${rng.pick(W.TITLE_TAMIL_WORDS)}`
    case "tamil": {
      const length = rng.int(2, 3)
      const words: Array<string> = []
      for (let i = 0; i < length; i++) words.push(rng.pick(W.TITLE_TAMIL_ROMANISED))
      return words.join(" ")
    }
    default: {
      const noun = rng.pick(W.TITLE_NOUNS_MS).split(" ")[0] ?? "Rindu"
      return `${noun}-${noun}an`
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The generator proper (synchronous; the Effect below drives it and writes its batches)

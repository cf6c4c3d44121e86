/** Text helpers of the seed: slugs, and the diacritic changes a namesake's spelling may carry. */

const LATIN_LETTER = /\p{Script=Latin}/u
const OTHER_LETTER = /(?!\p{Script=Latin})\p{L}/u

/**
 * URL-safe, lower-case ASCII form of a title or name: diacritics folded, apostrophes dropped,
 * every other run of non-alphanumerics one hyphen. A mostly non-Latin text (Chinese, Tamil) or
 * one with nothing left gets `fallback`.
 */
export const slugify = (text: string, fallback: string): string => {
  let latin = 0
  let other = 0
  for (const char of text) {
    if (LATIN_LETTER.test(char)) latin++
    else if (OTHER_LETTER.test(char)) other++
  }
  if (other > latin) return fallback
  const slug = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/ß/g, "ss")
    .replace(/[æÆ]/g, "ae")
    .replace(/[œŒ]/g, "oe")
    .replace(/[øØ]/g, "o")
    .replace(/[đĐ]/g, "d")
    .replace(/[łŁ]/g, "l")
    .toLowerCase()
    .replace(/['’‘`]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/, "")
  return /[a-z]/.test(slug) ? slug : fallback
}

export const at = <A>(list: ReadonlyArray<A>, index: number): A => {
  const value = list[index]
  if (value === undefined) throw new Error(`index ${index} out of range`)
  return value
}

export const hasDiacritics = (text: string) => /[\u0300-\u036f]/.test(text.normalize("NFKD"))
export const stripDiacritics = (text: string) => text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").normalize("NFC")
const ACCENTED: Record<string, string> = { a: "á", e: "é", i: "í", o: "ó", u: "ú" }
export const addDiacritic = (text: string): string => {
  const match = /[aeiou]/.exec(text)
  if (match === null) return text.toUpperCase()
  return text.slice(0, match.index) + (ACCENTED[match[0]] ?? match[0]) + text.slice(match.index + 1)
}


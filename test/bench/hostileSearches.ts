/**
 * The hostile-query suite (test/bench/README.md, "Search relevance"): the queries a client could
 * type to make one search cost many (docs/search.md, "What a query costs"), by class, each asked
 * for every type and for songs alone at the largest limit. The CI test (test/search-cost.test.ts)
 * runs it over the fixture; `bun run bench --relevance` runs it at scale beside the relevance suite.
 */
import { percentile } from "./relevanceSuite.js"

export interface HostileClass {
  readonly name: string
  readonly queries: ReadonlyArray<string>
}

/** Characters from code point `from`, every `step`-th, `count` of them, as one string (or spaced). */
const run = (from: number, count: number, step: number, separator = "") =>
  Array.from({ length: count }, (_, i) => String.fromCodePoint(from + i * step)).join(separator)

const letters = "abcdefghijklmnopqrstuvwxyz"
const word = (length: number, shift: number) => Array.from({ length }, (_, i) => letters[(i * 7 + shift) % 26]).join("")
const clip = (text: string) => text.slice(0, 100)

export const HOSTILE_CLASSES: ReadonlyArray<HostileClass> = [
  { name: "100 Han characters", queries: [run(0x4e00, 100, 37), run(0x6000, 100, 53), "的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可自能过天对多然心学么都好看起发当没成只如事把还用第样想作种开美总从无情己面最女但现前些所本见经头爱歌月"] },
  { name: "100 kana", queries: [run(0x3041, 86, 1) + run(0x30a1, 14, 1), run(0x30a1, 90, 1) + run(0x3041, 10, 3)] },
  { name: "100 hangul syllables", queries: [run(0xac00, 100, 97), run(0xb000, 100, 67)] },
  { name: "50 one-letter words", queries: [clip(Array.from({ length: 50 }, (_, i) => letters[i % 26]).join(" ")), clip(Array.from({ length: 50 }, (_, i) => letters[(i * 5) % 26]).join(" "))] },
  { name: "40 numbers", queries: [clip(Array.from({ length: 40 }, (_, i) => String(i + 1)).join(" ")), clip(Array.from({ length: 40 }, (_, i) => String((i * 7) % 10)).join(" "))] },
  { name: "long words", queries: [word(100, 0), [word(24, 1), word(24, 2), word(24, 3), word(24, 4)].join(" "), [word(33, 5), word(33, 6), word(32, 7)].join(" ")] },
  { name: "repeated words", queries: [clip("cinta ".repeat(20)), clip("the love ".repeat(12)), clip("愛".repeat(100))] },
  { name: "every word a stop word", queries: ["the a of and to in is you that it for on my me i be", "yang di dan ini itu ke aku kau ku mu dia kita dari untuk", "the and of yang di dan you me my aku ku mu"] },
  { name: "20 two-letter words", queries: [clip(Array.from({ length: 20 }, (_, i) => letters[i]! + letters[25 - i]).join(" ")), "me to in of my so is it be we do go no on up us an at by he"] },
  { name: "mixed scripts", queries: ["cinta 爱 사랑 காதல் любовь アイ love rindu 月 சென்னை hati", "月亮 bulan 달 நிலா moon луна つき 月光 cahaya sinar light"] },
  { name: "pinyin syllables", queries: ["yi shi ji li xi qi zhi de le bu wo ni", "yishijilixiqizhidelebuwoni", clip("ai ".repeat(40)), "a e o i u yi wu yu er ai ei ao"] },
  { name: "short forms", queries: ["x yg utk dgn sy ak ko lg jgn tp sgt dlm", "tak tidak x takde xde tiada nak nk hendak je saja sahaja", clip("x ".repeat(50))] },
  { name: "Tamil letters", queries: [run(0x0b95, 40, 1, " "), clip("காதல்".repeat(20)), "அ ஆ இ ஈ உ ஊ எ ஏ ஐ ஒ ஓ ஔ", "kaadhal kadhal kathal kadal kaathal kadhalae"] },
  { name: "tsquery syntax", queries: ["cinta & hati | !rindu <-> 'x':* & (a | b)", "a:* & b:* & c:* & d:* & e:* & f:* & g:* & h:* & i:* & j:*", "!(!(!(!(!(cinta)))))) || && <2> <-> ::"] }
]

/** Every type, or songs alone: the two shapes a hostile client would pick. */
export const HOSTILE_TYPES = ["all", "songs"] as const
export type HostileTypes = (typeof HOSTILE_TYPES)[number]

export const hostilePath = (q: string, types: HostileTypes) =>
  `/v1/search?q=${encodeURIComponent(q)}&limit=20${types === "songs" ? "&types=songs" : ""}`

export interface HostileFigures {
  readonly name: string
  readonly types: HostileTypes
  readonly n: number
  readonly p50: number
  readonly p99: number
  readonly max: number
  /** answers other than 200, by status */
  readonly statuses: ReadonlyArray<number>
}

/**
 * Asks every class's queries `rounds` times for each shape, one at a time (after one unmeasured
 * pass), and sums up per class and shape.
 */
export const runHostile = async (baseUrl: string, rounds: number, log?: (line: string) => void): Promise<ReadonlyArray<HostileFigures>> => {
  const ask = async (path: string) => {
    const started = performance.now()
    const response = await fetch(baseUrl + path)
    await response.arrayBuffer()
    return { ms: performance.now() - started, status: response.status }
  }
  const figures: Array<HostileFigures> = []
  for (const hostile of HOSTILE_CLASSES) {
    for (const types of HOSTILE_TYPES) {
      const paths = hostile.queries.map((q) => hostilePath(q, types))
      for (const path of paths) await ask(path)
      const answers: Array<{ ms: number; status: number }> = []
      for (let round = 0; round < rounds; round++) for (const path of paths) answers.push(await ask(path))
      const ms = answers.map((a) => a.ms).sort((a, b) => a - b)
      const row: HostileFigures = {
        name: hostile.name,
        types,
        n: answers.length,
        p50: percentile(ms, 50),
        p99: percentile(ms, 99),
        max: ms.at(-1) ?? NaN,
        statuses: answers.filter((a) => a.status !== 200).map((a) => a.status)
      }
      log?.(`${hostile.name.padEnd(26)} ${types.padEnd(5)} p50 ${row.p50.toFixed(1)} p99 ${row.p99.toFixed(1)} max ${row.max.toFixed(1)} ms`)
      figures.push(row)
    }
  }
  return figures
}

/** What the suite must show at scale (docs/search.md, "What a query costs"). */
export const HOSTILE_BOUNDS = { rounds: 20, p99Ms: 60, timesRelevanceMedian: 3 } as const

/** The classes over a bound, or that none is. */
export const hostileVerdict = (figures: ReadonlyArray<HostileFigures>, relevanceMedian: number): string => {
  const over = figures.filter((f) => f.p99 > HOSTILE_BOUNDS.p99Ms || f.p50 > HOSTILE_BOUNDS.timesRelevanceMedian * relevanceMedian || f.statuses.length > 0)
  return over.length === 0
    ? `Every hostile class: p99 <= ${HOSTILE_BOUNDS.p99Ms} ms, median <= ${HOSTILE_BOUNDS.timesRelevanceMedian}x the relevance median, every answer 200.`
    : `Over a bound (p99 > ${HOSTILE_BOUNDS.p99Ms} ms, median > ${HOSTILE_BOUNDS.timesRelevanceMedian}x the relevance median, or not 200): ` +
      over.map((f) => `${f.name} (${f.types})`).join(", ") + "."
}

export const renderHostileTable = (figures: ReadonlyArray<HostileFigures>, relevanceMedian: number): string =>
  [
    "| class | types | n | p50 ms | p99 ms | max ms | p50 / relevance median | not 200 |",
    "|---|---|---:|---:|---:|---:|---:|---:|",
    ...figures.map((f) =>
      `| ${f.name} | ${f.types} | ${f.n} | ${f.p50.toFixed(1)} | ${f.p99.toFixed(1)} | ${f.max.toFixed(1)} | ${(f.p50 / relevanceMedian).toFixed(2)}x | ${f.statuses.length} |`
    )
  ].join("\n")

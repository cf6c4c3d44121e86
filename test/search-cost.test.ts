import { beforeAll, describe, expect, test } from "bun:test"
import { SEARCH_MAX_WORDS, SEARCH_TYPO_MAX_LENGTH } from "../src/Contract/SearchHit.js"
import { SEARCH_TYPES } from "../src/Search/Api.js"
import { searchText } from "../src/Search/Repo.js"
import { HOSTILE_CLASSES, HOSTILE_TYPES, hostilePath, type HostileTypes } from "./bench/hostileSearches.js"
import { sharedServer, type TestServer } from "./support/server.js"

/**
 * What one search may cost (docs/search.md, "What a query costs"): the hostile-query suite over the
 * fixture, and the bounds it relies on, read from the query's terms.
 */
let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
})

interface Term {
  readonly grp: number
  readonly word: string
  readonly edits: number
  readonly prefix: boolean
  readonly form: boolean
}

const termsOf = async (q: string): Promise<ReadonlyArray<Term>> => {
  const [row] = await server.sql<{ terms: ReadonlyArray<Term> }>(
    `SELECT coalesce(json_agg(t), '[]') AS terms FROM unnest(search_query_terms($1, $2, $3)) t`,
    [q, SEARCH_MAX_WORDS, SEARCH_TYPO_MAX_LENGTH]
  )
  return row!.terms
}

/**
 * The database's work for one search statement, in buffers read (planning and execution, the
 * functions it calls included): a count that does not move with the machine's load, as time does.
 */
const buffersOf = async (q: string, types: HostileTypes) => {
  const [row] = await server.sql<{ "QUERY PLAN": ReadonlyArray<{ Plan: Record<string, number>; Planning?: Record<string, number> }> }>(
    `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${searchText(types === "songs" ? ["songs"] : SEARCH_TYPES)}`,
    [[q, "20"]]
  )
  const { Plan: plan, Planning: planning = {} } = row!["QUERY PLAN"][0]!
  const sum = (x: Record<string, number>) => (x["Shared Hit Blocks"] ?? 0) + (x["Shared Read Blocks"] ?? 0)
  return sum(plan) + sum(planning)
}

describe("a hostile search", () => {
  for (const hostile of HOSTILE_CLASSES) {
    for (const types of HOSTILE_TYPES) {
      test(`${hostile.name} (${types}): answered 200, at about the cost of an ordinary search`, async () => {
        const ordinary = await buffersOf("cinta hati", types)
        for (const q of hostile.queries) {
          const response = await fetch(server.baseUrl + hostilePath(q, types))
          expect({ q, status: response.status }).toEqual({ q, status: 200 })
          const body = (await response.json()) as { data: Record<string, unknown> }
          expect(Object.keys(body.data).length).toBe(types === "songs" ? 1 : 7)
          // before the words were capped: 214,238 buffers for 100 Han characters of every type (8.8 s),
          // 33,487 for songs alone; the fixture's ordinary search: ~100-300
          const buffers = await buffersOf(q, types)
          expect({ q, buffers, within: buffers <= Math.max(4 * ordinary, 1500) }).toEqual({ q, buffers, within: true })
        }
      })
    }
  }
})

describe("the bounds of a query's terms", () => {
  test(`only the first ${SEARCH_MAX_WORDS} distinct words are searched, each Han character a word`, async () => {
    const han = "的一是不了人我在有他这为之大来以个中上们到说"
    const terms = await termsOf(han)
    expect(new Set(terms.map((t) => t.grp)).size).toBe(SEARCH_MAX_WORDS)
    expect(terms.filter((t) => t.edits === 0).map((t) => t.word).join("")).toBe(han.slice(0, SEARCH_MAX_WORDS))
    // repeated words count once
    expect(new Set((await termsOf("cinta ".repeat(16) + "hati")).map((t) => t.grp)).size).toBe(2)
  })

  test("the last word kept is a prefix only when it is the last word typed", async () => {
    const words = Array.from({ length: SEARCH_MAX_WORDS + 1 }, (_, i) => `w${i}x`)
    expect((await termsOf(words.join(" "))).filter((t) => t.prefix)).toEqual([])
    const kept = words.slice(0, SEARCH_MAX_WORDS)
    expect((await termsOf(kept.join(" "))).filter((t) => t.prefix).map((t) => t.word)).toEqual([kept.at(-1)!])
  })

  test("words that cannot have typos look none up", async () => {
    // one or two letters, numbers, one Han character, and words longer than the typo bound
    const long = "cinta".repeat(5).slice(0, SEARCH_TYPO_MAX_LENGTH + 1)
    const terms = await termsOf(`ci 12345 爱 ${long} xy`)
    expect(terms.filter((t) => t.edits > 0)).toEqual([])
    // their other spellings are one term each, looked up in no vocabulary: the pinyin forms
    expect(terms.filter((t) => t.form).map((t) => t.word)).toEqual(["~ci", "~xy"])
    // a word within the bound still finds its partner
    expect((await termsOf("hatu")).some((t) => t.word === "hati" && t.edits === 1)).toBe(true)
  })
})

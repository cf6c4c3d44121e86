/**
 * The ranking of /v1/search within a type, as docs/search.md ("Ranking and score") states it: each
 * step's short form (its words in bold there), in order. The OpenAPI document and docs/api.md say
 * these words; test/search-ranking.test.ts holds all three equal.
 */
export const SEARCH_RANKING = {
  /** The steps `score` is, as one number. */
  score: [
    "more query words found",
    "fewer typos",
    "more words found in the title or name, then in the other names (performers, honorific, former name, handle)",
    "fewer words found only in another spelling",
    "the title beginning with the query in the order typed",
    "the last word found whole before found only as the beginning of a longer one",
    "the title covered"
  ],
  /** What orders equal scores. */
  ties: ["popularity", "id"]
} as const

/** When `score` is 1. */
export const PERFECT_SCORE = "every word was found exactly in the title or name as typed, the last as a whole word, begins it in the order typed and covers it"

const inTurn = (steps: ReadonlyArray<string>) => steps.join(", then ")

/** The steps `score` holds, best first. */
export const SCORE_ORDER = inTurn(SEARCH_RANKING.score)

/** The whole order within a type: the score's steps, then what breaks ties. */
export const SEARCH_ORDER = inTurn([...SEARCH_RANKING.score, ...SEARCH_RANKING.ties])

/** The order of a section's items, in terms of `score`. */
export const SECTION_ORDER = inTurn(["score", ...SEARCH_RANKING.ties])

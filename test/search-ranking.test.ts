import { describe, expect, test } from "bun:test"
import * as OpenApi from "effect/http-api/OpenApi"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { Api } from "../src/Api.js"
import { PERFECT_SCORE, SCORE_ORDER, SEARCH_ORDER, SEARCH_RANKING } from "../src/Contract/SearchRanking.js"

/**
 * The search ranking is stated once, in docs/search.md ("Ranking and score"); src/Contract/SearchRanking.ts
 * holds its short forms, from which the OpenAPI document's texts are made, and docs/api.md quotes them.
 */
const ROOT = resolve(import.meta.dir, "..")
const oneLine = (text: string) => text.replace(/\s+/g, " ")
const read = (path: string) => oneLine(readFileSync(resolve(ROOT, path), "utf8"))

const rankingSection = (() => {
  const text = readFileSync(resolve(ROOT, "docs/search.md"), "utf8")
  const start = text.indexOf("### Ranking and score")
  expect(start).toBeGreaterThan(-1)
  return text.slice(start, text.indexOf("\n### ", start + 1))
})()

describe("the search ranking, stated once", () => {
  test("docs/search.md's steps, their words in bold, are SEARCH_RANKING's, in order", () => {
    const steps = [...rankingSection.matchAll(/^\d+\. \*\*([^*]+)\*\*/gm)].map((match) => oneLine(match[1]!))
    expect(steps).toEqual([...SEARCH_RANKING.score, ...SEARCH_RANKING.ties])
  })

  test("docs/search.md's score is the score's steps, and 1 exactly when PERFECT_SCORE", () => {
    const section = oneLine(rankingSection)
    expect(section).toContain(`\`score\` is steps 1 to ${SEARCH_RANKING.score.length} as one number`)
    expect(section).toContain(`**1 when ${PERFECT_SCORE}**`)
    expect(section).toContain(`equal scores are ordered by ${SEARCH_RANKING.ties.join(", then ")}.`)
  })

  test("docs/api.md says the same words", () => {
    expect(read("docs/api.md")).toContain(`1 when ${PERFECT_SCORE}. Within a type: ${SEARCH_ORDER}.`)
  })

  test("the OpenAPI document says them: the search operation and every hit's score", () => {
    const document = OpenApi.fromApi(Api) as unknown as {
      readonly paths: Record<string, { readonly get: { readonly description?: string } }>
      readonly components: { readonly schemas: Record<string, { readonly properties?: Record<string, { readonly description?: string }> }> }
    }
    expect(document.paths["/v1/search"]!.get.description).toContain(`Within a type: ${SEARCH_ORDER};`)
    const hits = Object.entries(document.components.schemas).filter(([name]) => name.endsWith("SearchHit"))
    expect(hits.length).toBe(7)
    for (const [, hit] of hits) {
      expect(hit.properties!.score!.description).toBe(
        `How well the hit matched, in (0, 1]: 1 when ${PERFECT_SCORE}. Higher ranks first: ${SCORE_ORDER}. Compare within one answer.`
      )
    }
  })
})

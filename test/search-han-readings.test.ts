import { beforeAll, describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { HAN_READINGS_FILE, hanReadingsSql, readingsOf } from "../src/Search/hanReadings.js"
import { sharedServer, type TestServer } from "./support/server.js"

/** The common-use list (通用规范汉字表, 8,105 characters), committed beside the fixture. */
const COMMON_USE = [...readFileSync(new URL("./fixture/common-use-han.txt", import.meta.url), "utf8")
  .split("\n").filter((line) => !line.startsWith("#")).join("").trim()]

let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
}, 60_000)

describe("the Han readings search matches pinyin against", () => {
  test("the schema file is the package's data (regenerate: bun src/Search/hanReadings.ts)", () => {
    expect(readFileSync(HAN_READINGS_FILE, "utf8") === hanReadingsSql()).toBe(true)
  })

  test("cover every character of the common-use list, polyphonic ones with each reading", async () => {
    expect(COMMON_USE.length).toBe(8105)
    expect(COMMON_USE.filter((han) => readingsOf(han).length === 0)).toEqual([])
    const [row] = await server.sql<{ missing: ReadonlyArray<string>; unsplit: ReadonlyArray<string> }>(
      `SELECT ARRAY(SELECT c FROM unnest($1::text[]) c WHERE NOT EXISTS (SELECT 1 FROM search_han_readings h WHERE h.han = c)) AS missing,
              ARRAY(SELECT c FROM unnest($1::text[]) c WHERE search_split(c) <> ARRAY[c]) AS unsplit`,
      [COMMON_USE]
    )
    // each is a word of its own too (the list holds characters beyond the basic block: 𬌗)
    expect(row).toEqual({ missing: [], unsplit: [] })
    const readings = await server.sql<{ han: string; reading: string }>(
      "SELECT han, reading FROM search_han_readings WHERE han IN ('乐', '绿', '行') ORDER BY han, rank, reading"
    )
    expect(readings.map((r) => `${r.han}${r.reading}`)).toEqual(["乐le", "乐yue", "乐yao", "乐lao", "绿lu", "绿lv", "行xing", "行hang", "行heng"])
  })
})

import { describe, expect, test } from "bun:test"
import * as fc from "fast-check"
import { Option } from "effect"
import { acceptsKey, decodeCursor, encodeCursor, type KeyType } from "../src/Queries/Cursor.js"
import { assertProperty, propertySeeds } from "./support/propertySeeds.js"

/** Values PostgreSQL takes for each key type, as the lists' statements produce them. */
const pad = (n: number, width: number) => String(n).padStart(width, "0")
const calendarDate = fc.date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true })
const VALID: Record<KeyType, fc.Arbitrary<string | number>> = {
  id: fc.integer({ min: 1, max: 2_147_483_647 }),
  int: fc.integer({ min: -2_147_483_648, max: 2_147_483_647 }),
  bigint: fc.maxSafeInteger(),
  text: fc.string({ maxLength: 200 }).filter((text) => !text.includes("\u0000")),
  date: calendarDate.map((date) => date.toISOString().slice(0, 10)),
  dateOrEmpty: fc.oneof(fc.constant(""), calendarDate.map((date) => date.toISOString().slice(0, 10))),
  timestamptz: fc.tuple(calendarDate, fc.integer({ min: 0, max: 999_999 })).map(([date, micros]) =>
    `${date.toISOString().slice(0, 19)}.${pad(micros, 6)}Z`),
  xid: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
  position: fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }).map(String),
  micros: fc.maxSafeNat()
}
const KEY_TYPES = Object.keys(VALID) as Array<KeyType>

const keyTypes = fc.tuple(fc.constantFrom(...KEY_TYPES), fc.constantFrom(...KEY_TYPES))
const scope = fc.string({ minLength: 1, maxLength: 60 })

describe("the cursor codec (property-based)", () => {
  test("what the lists encode decodes to the same position and key", () => {
    assertProperty(
      fc.property(keyTypes.chain((types) =>
        fc.tuple(fc.constant(types), scope, fc.integer({ min: 0, max: 2_147_483_647 }), VALID[types[0]], VALID[types[1]])
      ), ([types, scope, offset, value, tie]) => {
        const decoded = decodeCursor(encodeCursor(scope, offset, [value, tie]), scope, types)
        expect(decoded).toEqual(Option.some({ offset, key: [value, tie] }))
      }),
      20261123,
      { numRuns: 2000 }
    )
  })

  test("a cursor for another scope, or with a key PostgreSQL would refuse, does not decode", () => {
    const refused = fc.oneof(
      fc.constantFrom<unknown>(null, true, [], {}, 1.5, 2 ** 53, Number.NaN, "a\u0000b", "\ud800", "x".repeat(1001)),
      fc.constantFrom("2023-02-30", "2023-02-29", "0000-01-01", "2023-13-01", "2023-00-10", "2024-04-31"),
      fc.constantFrom("2023-02-30T00:00:00.000000Z", "2023-01-01T24:00:00.000000Z", "2023-01-01T00:60:00.000000Z"),
      fc.integer({ min: 2_147_483_648, max: Number.MAX_SAFE_INTEGER })
    )
    let checked = 0
    assertProperty(
      fc.property(keyTypes.chain((types) =>
        fc.tuple(fc.constant(types), VALID[types[0]], VALID[types[1]])
      ), scope, refused, fc.boolean(), ([types, value, tie], scope, bad, inTie) => {
        const at = inTie ? 1 : 0
        if (acceptsKey[types[at]](bad)) return // e.g. a big number is a fine bigint, "" a fine text
        checked += 1
        const key = inTie ? [value, bad] : [bad, tie]
        const cursor = Buffer.from(JSON.stringify({ s: scope, o: 0, k: key })).toString("base64url")
        expect(decodeCursor(cursor, scope, types)).toEqual(Option.none())
        expect(decodeCursor(encodeCursor(scope, 0, [value, tie]), `${scope}x`, types)).toEqual(Option.none())
      }),
      20261123,
      { numRuns: 2000 }
    )
    // more than half of each seed's runs forge a key
    const seeds = propertySeeds(20261123).length
    expect(checked).toBeGreaterThan(1000 * seeds)
    console.log(`cursor codec: 2000 round trips per seed (${seeds} seeds), ${checked} forged keys refused`)
  })

  test("a payload that is not {s: text, o: number, k: array} does not decode; other members are ignored", () => {
    const raw = (text: string) => Buffer.from(text).toString("base64url")
    const types = ["id", "id"] as const
    for (
      const text of [
        "not json", "", "null", "[]", "\"s\"", "1", "{}",
        `{"o":0,"k":[1,2]}`, `{"s":"x","k":[1,2]}`, `{"s":"x","o":0}`,
        `{"s":1,"o":0,"k":[1,2]}`, `{"s":"x","o":"0","k":[1,2]}`, `{"s":"x","o":0,"k":{"0":1,"1":2}}`,
        `{"s":"x","o":-1,"k":[1,2]}`, `{"s":"x","o":0.5,"k":[1,2]}`, `{"s":"x","o":1e999,"k":[1,2]}`,
        `{"s":"x","o":0,"k":[1]}`, `{"s":"x","o":0,"k":[1,2,3]}`, `[{"s":"x","o":0,"k":[1,2]}]`
      ]
    ) {
      expect(decodeCursor(raw(text), "x", types)).toEqual(Option.none())
    }
    expect(decodeCursor(raw(`{"k":[1,2],"extra":true,"o":7,"s":"x"}`), "x", types)).toEqual(
      Option.some({ offset: 7, key: [1, 2] })
    )
  })
})

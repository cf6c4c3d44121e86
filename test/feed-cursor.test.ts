import { beforeAll, describe, expect, test } from "bun:test"
import * as fc from "fast-check"
import { makeCursorSeal } from "../src/Changes/CursorSeal.js"
import { FEED_CURSOR_VERSION, feedCursor, type FeedPosition } from "../src/Changes/FeedCursor.js"
import { CURSOR_SECRET_SQL } from "./support/feedCursor.js"
import { request } from "./support/http.js"
import { sharedServer, type TestServer } from "./support/server.js"

/** The change feed's cursor codec (src/Changes/FeedCursor.ts): named, versioned, sealed; version 1 still read. */
const SECRET = Buffer.alloc(32, 7)
const seal = makeCursorSeal(SECRET)
const cursors = feedCursor(seal)

const decimal = (bits: bigint) => fc.bigInt({ min: 0n, max: 2n ** bits - 1n }).map(String)
const micros = fc.integer({ min: 0, max: 4_102_444_800_000_000 })
const key = fc.string({ maxLength: 40 }).filter((text) => !text.includes("\u0000"))
const positionArb: fc.Arbitrary<FeedPosition> = fc.record({
  xid: decimal(64n),
  position: decimal(63n),
  dueAt: micros,
  dueKind: fc.constantFrom("", "songs", "users"),
  dueKey: key,
  horizon: micros,
  lateXid: decimal(64n),
  lateDueAt: micros,
  lateKind: fc.constantFrom("", "albums"),
  lateKey: key
}).filter((position) => position.dueAt <= position.horizon + 1)

/** The text version 1 sealed: base64url JSON, the position's values in their fixed order. */
const versionOneText = (p: FeedPosition) =>
  Buffer.from(JSON.stringify({
    s: "changes",
    o: 0,
    k: [p.xid, p.position, p.dueAt, p.dueKind, p.dueKey, p.horizon, p.lateXid, p.lateDueAt, p.lateKind, p.lateKey]
  })).toString("base64url")

const sample: FeedPosition = {
  xid: "18446744073709551615",
  position: "42",
  dueAt: 1_764_400_000_000_000,
  dueKind: "songs",
  dueKey: "12",
  horizon: 1_764_400_000_000_001,
  lateXid: "812",
  lateDueAt: 0,
  lateKind: "",
  lateKey: ""
}

describe("the feed cursor codec", () => {
  test("a position comes back from its cursor, and one position always gives the same cursor", () => {
    fc.assert(fc.property(positionArb, (position) => {
      const cursor = cursors.encode(position)
      expect(cursors.decode(cursor)).toEqual(position)
      expect(cursors.encode(position)).toBe(cursor)
    }), { numRuns: 300 })
  })

  test("the sealed text names every field and the version", () => {
    expect(JSON.parse(seal.open(cursors.encode(sample))!)).toEqual({ v: FEED_CURSOR_VERSION, ...sample })
  })

  test("a version 1 cursor (positional) still decodes to its position", () => {
    fc.assert(fc.property(positionArb, (position) => {
      expect(cursors.decode(seal.seal(versionOneText(position)))).toEqual(position)
    }), { numRuns: 300 })
  })

  test("another version, a missing or mistyped field, a due time past the horizon, tampered bytes or another secret decode to nothing", () => {
    const named = (fields: Record<string, unknown>) => seal.seal(JSON.stringify(fields))
    const { lateKey: _, ...missing } = sample
    const rejected = [
      named({ ...sample, v: FEED_CURSOR_VERSION + 1 }),
      named({ ...sample, v: 1 }),
      named({ ...sample }),
      named({ v: FEED_CURSOR_VERSION, ...missing }),
      named({ v: FEED_CURSOR_VERSION, ...sample, xid: 812 }),
      named({ v: FEED_CURSOR_VERSION, ...sample, dueAt: -1 }),
      named({ v: FEED_CURSOR_VERSION, ...sample, dueKey: "a\u0000b" }),
      named({ v: FEED_CURSOR_VERSION, ...sample, dueAt: sample.horizon + 2 }),
      seal.seal(versionOneText(sample).slice(0, -4)),
      seal.seal(Buffer.from(JSON.stringify({ s: "songs", o: 0, k: [] })).toString("base64url")),
      (() => {
        const bytes = Buffer.from(cursors.encode(sample), "base64url")
        bytes[bytes.length - 20] = bytes[bytes.length - 20]! ^ 1
        return bytes.toString("base64url")
      })(),
      feedCursor(makeCursorSeal(Buffer.alloc(32, 8))).encode(sample),
      "abc",
      ""
    ]
    expect(rejected.map((cursor) => cursors.decode(cursor))).toEqual(rejected.map(() => undefined))
  })
})

describe("GET /v1/changes with cursors of each version", () => {
  let server: TestServer
  let databaseCursors: ReturnType<typeof feedCursor>
  let databaseSeal: ReturnType<typeof makeCursorSeal>
  beforeAll(async () => {
    server = await sharedServer()
    const [secret] = await server.sql<{ key: string }>(CURSOR_SECRET_SQL)
    databaseSeal = makeCursorSeal(Buffer.from(secret!.key, "hex"))
    databaseCursors = feedCursor(databaseSeal)
  }, 60_000)

  test("a version 1 cursor a client may hold is answered as its position; the next cursor is version 2", async () => {
    const first = await request(server.baseUrl, "/v1/changes?limit=1")
    expect(first.status).toBe(200)
    const position = databaseCursors.decode(first.body.meta.next_cursor)!
    expect(JSON.parse(databaseSeal.open(first.body.meta.next_cursor)!).v).toBe(FEED_CURSOR_VERSION)
    const [named, positional] = await Promise.all([
      request(server.baseUrl, `/v1/changes?limit=5&since=${first.body.meta.next_cursor}`),
      request(server.baseUrl, `/v1/changes?limit=5&since=${databaseSeal.seal(versionOneText(position))}`)
    ])
    expect(positional.status).toBe(200)
    expect(positional.body.data).toEqual(named.body.data)
  })

  test("a cursor of an unknown version or with tampered bytes is the bad_request envelope", async () => {
    const first = await request(server.baseUrl, "/v1/changes?limit=1")
    const position = databaseCursors.decode(first.body.meta.next_cursor)!
    const unknownVersion = databaseSeal.seal(JSON.stringify({ ...position, v: FEED_CURSOR_VERSION + 1 }))
    const bytes = Buffer.from(first.body.meta.next_cursor, "base64url")
    bytes[5] = bytes[5]! ^ 1
    for (const cursor of [unknownVersion, bytes.toString("base64url")]) {
      const reply = await request(server.baseUrl, `/v1/changes?since=${cursor}`)
      expect({ status: reply.status, body: reply.body }).toEqual({
        status: 400,
        body: { error: { code: "bad_request", message: expect.stringContaining("cursor") } }
      })
    }
  })
})

import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { Discovery } from "../src/Contract/Discovery.js"
import { DetailEnvelope } from "../src/Contract/Envelope.js"
import { decodeWith, request } from "./support/http.js"
import { startServer, type TestServer } from "./support/server.js"
import { PUBLIC_LIST_SUMMARIES } from "./support/fixture.js"

/**
 * Discovery depends on today's date, so this file runs its own server over its own database
 * and adds the dated songs it needs (ids 400-499) without changing the shared fixture's counts.
 */
let server: TestServer
beforeAll(async () => {
  server = await startServer()
  await server.sql(`
    INSERT INTO songs (id, title, slug, released_at, date_type, published_at, vidsvc_views, vidsvc_views_per_day) VALUES
      (400, 'Released Today', 'released-today', current_date, 'FULL', now() - interval '1 hour', 10, NULL),
      (401, 'Pre-release', 'pre-release', current_date + 3, 'FULL', now() - interval '1 hour', 10, NULL),
      (402, 'Thirty One Days Ago', 'thirty-one-days-ago', current_date - 31, 'FULL', now() - interval '1 hour', 10, NULL),
      (403, 'This Day Undated Precision', 'this-day-null-precision',
        make_date(2000, extract(month FROM current_date)::int, extract(day FROM current_date)::int), NULL, '2020-01-01', 5, NULL),
      (404, 'This Day Famous', 'this-day-famous',
        make_date(1996, extract(month FROM current_date)::int, extract(day FROM current_date)::int), 'FULL', '2020-01-01', 777, NULL)`)
  await server.sql(`INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (400, 1, 4, 1), (401, 1, 4, 1), (402, 1, 4, 1), (403, 1, 4, 1), (404, 1, 4, 1)`)
}, 120_000)

afterAll(async () => {
  await server.stop()
  await server.database.drop()
}, 60_000)

const Response = DetailEnvelope(Discovery, "DiscoveryResponse")

const discover = async () => {
  const reply = await request(server.baseUrl, "/v1/discovery")
  expect(reply.status).toBe(200)
  expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
  return { reply, data: decodeWith(Response, reply.body).data }
}

describe("discovery", () => {
  test("has the four selections, up to 12 each, never a hidden row", async () => {
    const { reply, data } = await discover()
    expect(Object.keys(reply.body.data)).toEqual(["new_releases", "trending", "featured_lists", "on_this_day"])
    for (const selection of Object.values(data)) expect(selection.length).toBeLessThanOrEqual(12)
    expect(data.trending.length).toBe(12)
    expect(reply.text).not.toContain("CANARY")
  })

  test("new releases are songs of the last 30 days, newest first, none in the future", async () => {
    const { data } = await discover()
    // song 8 came out five days ago; the future canary and the pre-release do not count
    expect(data.new_releases.map((s) => s.id)).toEqual([400, 8])
  })

  test("trending orders public songs by views per day", async () => {
    const { data } = await discover()
    expect(data.trending.slice(0, 3).map((s) => s.id)).toEqual([1, 2, 159])
    const perDay = data.trending.map((s) => s.vidsvc_views_per_day!)
    expect(perDay).toEqual([...perDay].sort((a, b) => b - a))
  })

  test("featured lists are the published lists without tracks, latest edit first", async () => {
    const { data } = await discover()
    expect(data.featured_lists).toEqual(PUBLIC_LIST_SUMMARIES)
  })

  test("on this day: exact dates on today's month and day in earlier years, most viewed first", async () => {
    const { data } = await discover()
    // not the song released today, nor the one whose date precision is unknown
    expect(data.on_this_day.map((s) => s.id)).toEqual([404, 13])
  })

  test("the answer is the same on every request of the day", async () => {
    const first = await discover()
    const second = await discover()
    expect(second.reply.text).toBe(first.reply.text)
  })
})

import { beforeAll, describe, expect, test } from "bun:test"
import { DetailEnvelope, ListEnvelope } from "../src/Contract/Envelope.js"
import { SongSummary } from "../src/Contract/Song.js"
import { Genre, GenreEntry } from "../src/Contract/Genre.js"
import { decodeWith, request } from "./support/http.js"
import { expectBadRequest, expectNotFound, expectNothingPrivate, walkByCursor, walkByOffset } from "./support/pages.js"
import { sharedServer, type TestServer } from "./support/server.js"

let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
}, 60_000)

const get = (path: string) => request(server.baseUrl, path)
const CDN = "https://cdn.test.example"
const SongList = ListEnvelope(SongSummary, "SongList")

// Fixture: pop has public songs 1, 3, 4, 6, 7, 9 (not the hidden 10, 11, 12); dangdut 5, 13 and
// the 60 filler songs; rock-kapak song 2; irama-malaysia songs 1, 8, 9.
describe("GET /v1/genres", () => {
  test("returns every genre whole, by title, with public song counts", async () => {
    const reply = await get("/v1/genres")
    expect(reply.status).toBe(200)
    expectNothingPrivate(reply)
    const list = decodeWith(ListEnvelope(GenreEntry, "GenreList"), reply.body)
    expect(list.data.map((g) => [g.slug, g.song_count])).toEqual([
      ["dangdut", 62],
      ["irama-malaysia", 3],
      ["pop", 6],
      ["rock-kapak", 1]
    ])
    expect(list.meta).toEqual({ total: 4, limit: 4, offset: 0, next_cursor: "" })
    expect(Object.keys(reply.body.data[0])).toEqual(["id", "slug", "title", "color", "image_url", "song_count"])
  })

  test("ignores page parameters: the list is not paginated", async () => {
    const reply = await get("/v1/genres?limit=1&offset=2")
    expect(reply.status).toBe(200)
    expect(reply.body.data).toHaveLength(4)
  })
})

describe("GET /v1/genres/{slug}", () => {
  test("answers the detail of a genre", async () => {
    const reply = await get("/v1/genres/pop")
    expect(reply.status).toBe(200)
    expect(decodeWith(DetailEnvelope(Genre, "GenreResponse"), reply.body).data).toEqual({
      id: 1,
      slug: "pop",
      title: "Pop",
      description: "Popular music sung in Malay and English.",
      color: "#e91e63",
      image_url: `${CDN}/genres/pop.jpg`,
      song_count: 6
    })
    expect(Object.keys(reply.body.data)).toEqual(["id", "slug", "title", "description", "color", "image_url", "song_count"])
  })

  test("fills an absent description with \"\" and an absent image with the placeholder", async () => {
    const genre = decodeWith(DetailEnvelope(Genre, "GenreResponse"), (await get("/v1/genres/dangdut")).body).data
    expect(genre.description).toBe("")
    expect(genre.image_url).toBe(`${CDN}/placeholders/genre-image.png`)
  })

  test("an unknown slug is not_found", async () => {
    expectNotFound(await get("/v1/genres/no-such-genre"))
    expectNotFound(await get("/v1/genres/POP"))
  })
})

describe("GET /v1/genres/{slug}/songs", () => {
  test("lists the genre's public songs as song summaries, newest first", async () => {
    const reply = await get("/v1/genres/pop/songs")
    expect(reply.status).toBe(200)
    expectNothingPrivate(reply)
    const list = decodeWith(SongList, reply.body)
    expect(list.data.map((song) => song.id)).toEqual([7, 3, 9, 6, 1, 4])
    expect(list.meta).toEqual({ total: 6, limit: 20, offset: 0, next_cursor: "" })
  })

  test("sort=popular puts songs without views last, ties by newest id", async () => {
    const list = decodeWith(SongList, (await get("/v1/genres/pop/songs?sort=popular")).body)
    expect(list.data.map((song) => song.id)).toEqual([1, 4, 9, 7, 6, 3])
  })

  test("walking 62 songs by cursor gives the same rows as by offset, for every sort", async () => {
    for (const sort of ["released", "popular", "title"]) {
      const byCursor = await walkByCursor(server.baseUrl, `/v1/genres/dangdut/songs?sort=${sort}`, 7)
      expect(byCursor).toHaveLength(62)
      expect(new Set(byCursor.map((song) => (song as { id: number }).id)).size).toBe(62)
      expect(byCursor).toEqual(await walkByOffset(server.baseUrl, `/v1/genres/dangdut/songs?sort=${sort}`, 7))
    }
  }, 60_000)

  test("bad parameters and foreign cursors are bad_request; an unknown slug is not_found", async () => {
    expectBadRequest(await get("/v1/genres/pop/songs?limit=81"), "limit")
    expectBadRequest(await get("/v1/genres/pop/songs?offset=-1"), "offset")
    expectBadRequest(await get("/v1/genres/pop/songs?sort=bogus"), "sort")
    const cursor = (await get("/v1/genres/dangdut/songs?limit=2")).body.meta.next_cursor
    expectBadRequest(await get(`/v1/genres/pop/songs?cursor=${cursor}`), "cursor")
    expectBadRequest(await get(`/v1/genres/dangdut/songs?sort=popular&cursor=${cursor}`), "cursor")
    const forged = Buffer.from(JSON.stringify({ s: "genre-songs|dangdut|released", o: 2, k: ["not a date", 3] })).toString("base64url")
    expectBadRequest(await get(`/v1/genres/dangdut/songs?cursor=${forged}`), "cursor")
    expectNotFound(await get("/v1/genres/no-such-genre/songs"))
  })
})

describe("kept public counts", () => {
  /** Rows where a kept count differs from counting the public rows directly. */
  const countsDiffer = () =>
    server.sql(`
      (SELECT 'member' AS kind, member_id AS id, contribution_count AS kept FROM public_member_contribution_counts
       EXCEPT
       SELECT 'member', m.id, (SELECT count(*) FROM contributions c JOIN public_songs s ON s.id = c.song_id WHERE c.member_id = m.id)
       FROM members m)
      UNION ALL
      (SELECT 'label-songs', label_id, song_count FROM public_label_counts
       EXCEPT
       SELECT 'label-songs', l.id, (SELECT count(*) FROM song_labels x JOIN public_songs s ON s.id = x.song_id WHERE x.label_id = l.id)
       FROM labels l)
      UNION ALL
      (SELECT 'label-albums', label_id, album_count FROM public_label_counts
       EXCEPT
       SELECT 'label-albums', l.id, (SELECT count(*) FROM public_albums a WHERE a.label_id = l.id) FROM labels l)
      UNION ALL
      (SELECT 'genre', genre_id, song_count FROM public_genre_counts
       EXCEPT
       SELECT 'genre', g.id, (SELECT count(*) FROM song_genres x JOIN public_songs s ON s.id = x.song_id WHERE x.genre_id = g.id)
       FROM genres g)`)

  test("follow publishing, unpublishing, deleting, scheduling and relinking", async () => {
    expect(await countsDiffer()).toEqual([])
    const [original] = await server.sql<{ published_at: string }>("SELECT published_at::text FROM songs WHERE id = 12")
    const steps: Array<[string, string]> = [
      ["UPDATE songs SET deleted_at = now() WHERE id = 4", "UPDATE songs SET deleted_at = NULL WHERE id = 4"],
      ["UPDATE songs SET published_at = NULL WHERE id IN (1, 2)",
        "UPDATE songs SET published_at = CASE id WHEN 1 THEN timestamptz '2020-01-01T00:00:00Z' ELSE timestamptz '2020-01-02T00:00:00Z' END WHERE id IN (1, 2)"],
      ["UPDATE songs SET published_at = now() - interval '1 second' WHERE id = 12",
        `UPDATE songs SET published_at = '${original!.published_at}' WHERE id = 12`],
      ["UPDATE songs SET published_at = now() - interval '1 day' WHERE id = 10", "UPDATE songs SET published_at = NULL WHERE id = 10"],
      ["INSERT INTO song_genres (song_id, genre_id) VALUES (2, 1)", "DELETE FROM song_genres WHERE song_id = 2 AND genre_id = 1"],
      ["UPDATE song_labels SET label_id = 3 WHERE song_id = 2", "UPDATE song_labels SET label_id = 2 WHERE song_id = 2"],
      ["UPDATE albums SET published_at = NULL WHERE id = 2", "UPDATE albums SET published_at = '2020-01-01T00:00:00Z' WHERE id = 2"],
      ["UPDATE albums SET label_id = 3 WHERE id = 1", "UPDATE albums SET label_id = 1 WHERE id = 1"],
      ["UPDATE contributions SET song_id = 2 WHERE id = 300", "UPDATE contributions SET song_id = 3 WHERE id = 300"]
    ]
    for (const [change, undo] of steps) {
      try {
        await server.sql(change)
        expect({ change, differ: await countsDiffer() }).toEqual({ change, differ: [] })
      } finally {
        await server.sql(undo)
      }
      expect({ undo, differ: await countsDiffer() }).toEqual({ undo, differ: [] })
    }
  }, 60_000)
})

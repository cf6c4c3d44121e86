import { beforeAll, describe, expect, test } from "bun:test"
import { ListEnvelope } from "../src/Contract/Envelope.js"
import { ContributionEntry, ContributorProfile } from "../src/Contract/Member.js"
import { SongSummary } from "../src/Contract/Song.js"
import { decodeWith, request, type Reply } from "./support/http.js"
import { expectBadRequest, expectNotFound, expectNothingPrivate, walkByCursor as walkCursor, walkByOffset as walkOffset } from "./support/pages.js"
import { sharedServer, type TestServer } from "./support/server.js"

let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
}, 60_000)

const get = (path: string) => request(server.baseUrl, path)
const ProfileList = ListEnvelope(ContributorProfile, "ProfileList")
const ContributionList = ListEnvelope(ContributionEntry, "ContributionList")
const SongList = ListEnvelope(SongSummary, "SongList")
const CDN = "https://cdn.test.example"

const walkByCursor = (path: string, limit: number) => walkCursor(server.baseUrl, path, limit)
const walkByOffset = (path: string, limit: number) => walkOffset(server.baseUrl, path, limit)

const expectList = (reply: Reply) => {
  expect(reply.status).toBe(200)
  expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
  expectNothingPrivate(reply)
}

const publicMemberCount = async () => {
  const [row] = await server.sql<{ n: number }>(
    "SELECT count(*)::int AS n FROM members WHERE username IS NOT NULL AND NOT is_banned"
  )
  return row!.n
}

describe("GET /v1/users", () => {
  test("lists public profiles with exactly the fields of a contributor profile, most contributions first", async () => {
    const reply = await get("/v1/users?limit=3")
    expectList(reply)
    const list = decodeWith(ProfileList, reply.body)
    expect(list.meta.total).toBe(await publicMemberCount())
    expect(list.meta.limit).toBe(3)
    expect(list.meta.offset).toBe(0)
    expect(list.meta.next_cursor).not.toBe("")
    // aishah_fan: 60 filler songs + songs 1 (twice) and 3; not the unpublished 10, deleted 11 or future 12
    expect(list.data[0]).toEqual({
      username: "aishah_fan",
      name: "Aishah Rahman",
      avatar_url: `${CDN}/avatars/1.jpg`,
      is_fan: true,
      is_artist: false,
      is_group: false,
      joined_at: "2020-01-05T10:00:00.000Z",
      contribution_count: 63
    })
    // zul: song 2 and an edit of song 3
    expect(list.data[1]).toMatchObject({ username: "zul", contribution_count: 2 })
    expect(Object.keys(reply.body.data[0])).toEqual([
      "username", "name", "avatar_url", "is_fan", "is_artist", "is_group", "joined_at", "contribution_count"
    ])
  })

  test("never lists banned members or members without a username, on any sort", async () => {
    for (const sort of ["contributions", "joined", "name"]) {
      const rows = (await walkByCursor(`/v1/users?sort=${sort}`, 80)) as Array<{ username: string; name: string }>
      expect(rows).toHaveLength(await publicMemberCount())
      expect(rows.map((row) => row.username)).not.toContain("canary_banned")
      expect(rows.some((row) => row.name.includes("CANARY"))).toBe(false)
    }
  }, 60_000)

  test("an absent avatar is the placeholder URL", async () => {
    const list = decodeWith(ProfileList, (await get("/v1/users?q=zul")).body)
    expect(list.data).toHaveLength(1)
    expect(list.data[0]!.avatar_url).toBe(`${CDN}/placeholders/avatar.png`)
  })

  test("sort=joined is newest first and sort=name is A-Z; order flips either", async () => {
    const joined = decodeWith(ProfileList, (await get("/v1/users?sort=joined&limit=80")).body).data
    const times = joined.map((row) => row.joined_at)
    expect(times).toEqual([...times].sort().reverse())
    const oldest = decodeWith(ProfileList, (await get("/v1/users?sort=joined&order=asc&limit=1")).body).data
    expect(oldest[0]!.username).toBe("sitinurhaliza")
    const byName = decodeWith(ProfileList, (await get("/v1/users?sort=name&limit=2")).body).data
    expect(byName.map((row) => row.username)).toEqual(["aishah_fan", "Nur_Diana"])
    const lastByName = decodeWith(ProfileList, (await get("/v1/users?sort=name&order=desc&limit=1")).body).data
    expect(lastByName[0]!.username).toBe("zul")
    const fewest = decodeWith(ProfileList, (await get("/v1/users?order=asc&limit=80")).body).data
    expect(fewest.at(-1)!.username).toBe("aishah_fan")
    expect(fewest[0]!.contribution_count).toBe(0)
  })

  test("q matches names and usernames, ignoring case and diacritics", async () => {
    const byName = decodeWith(ProfileList, (await get("/v1/users?q=DIANA")).body)
    expect(byName.data.map((row) => row.username)).toEqual(["Nur_Diana"])
    expect(byName.data[0]!.name).toBe("Nur Diána")
    const byUsername = decodeWith(ProfileList, (await get("/v1/users?q=sitinur")).body)
    expect(byUsername.data.map((row) => row.username)).toEqual(["sitinurhaliza"])
    // one or two letters (shorter than a trigram: src/Queries/NameFilter.ts) still match anywhere
    const usernames = async (q: string) =>
      decodeWith(ProfileList, (await get(`/v1/users?q=${encodeURIComponent(q)}&limit=80`)).body).data.map((row) => row.username)
    expect(await usernames("iá")).toContain("Nur_Diana")
    expect(await usernames("NU")).toEqual(expect.arrayContaining(["Nur_Diana", "sitinurhaliza"]))
    // LIKE's own characters and text that folds to nothing are just text: no name contains them
    for (const text of ["%", "_", "%%"]) expect(await usernames(text)).toEqual([])
    const nobody = decodeWith(ProfileList, (await get("/v1/users?q=canary")).body)
    expect(nobody.meta).toEqual({ total: 0, limit: 20, offset: 0, next_cursor: "" })
    const sqlText = await get("/v1/users?q=" + encodeURIComponent("' OR 1=1 --"))
    expect(sqlText.status).toBe(200)
    expect(sqlText.body.meta.total).toBe(0)
  })

  test("type keeps artists, fans or groups", async () => {
    const artists = decodeWith(ProfileList, (await get("/v1/users?type=artists")).body).data
    expect(artists.map((row) => row.username).sort()).toEqual(["Nur_Diana", "sitinurhaliza"])
    expect(artists.every((row) => row.is_artist && !row.is_fan && !row.is_group)).toBe(true)
    const groups = decodeWith(ProfileList, (await get("/v1/users?type=groups")).body).data
    expect(groups.map((row) => row.username)).toEqual(["search_band"])
    const fans = decodeWith(ProfileList, (await get("/v1/users?type=fans&limit=80")).body)
    expect(fans.data.every((row) => row.is_fan)).toBe(true)
    expect(fans.meta.total).toBe(62)
  })

  test("walking by cursor gives the same rows as walking by offset, for every sort and order", async () => {
    for (const query of ["sort=contributions", "sort=joined", "sort=name", "sort=name&order=desc", "order=asc", "type=fans&sort=joined"]) {
      const byCursor = await walkByCursor(`/v1/users?${query}`, 7)
      const byOffset = await walkByOffset(`/v1/users?${query}`, 7)
      expect(byCursor).toEqual(byOffset)
      expect(new Set(byCursor.map((row) => (row as { username: string }).username)).size).toBe(byCursor.length)
    }
  }, 60_000)

  test("the last page has an empty next_cursor", async () => {
    const total = await publicMemberCount()
    const reply = await get(`/v1/users?limit=10&offset=${total - 3}`)
    expect(reply.body.data).toHaveLength(3)
    expect(reply.body.meta.next_cursor).toBe("")
  })

  test("a cursor carries no internal member id", async () => {
    const reply = await get("/v1/users?limit=1")
    const payload = Buffer.from(reply.body.meta.next_cursor, "base64url").toString("utf8")
    expect(JSON.parse(payload).k).toEqual([63, "aishah_fan"])
  })

  test("bad parameter values are bad_request naming the parameter", async () => {
    expectBadRequest(await get("/v1/users?limit=0"), "limit")
    expectBadRequest(await get("/v1/users?limit=81"), "limit")
    expectBadRequest(await get("/v1/users?limit=1e3"), "limit")
    expectBadRequest(await get("/v1/users?limit=5&limit=6"), "limit")
    expectBadRequest(await get("/v1/users?offset=-1"), "offset")
    expectBadRequest(await get("/v1/users?sort=bogus"), "sort")
    expectBadRequest(await get("/v1/users?type=admins"), "type")
    expectBadRequest(await get("/v1/users?order=up"), "order")
    expectBadRequest(await get("/v1/users?q=%20%20"), "q")
    expectBadRequest(await get(`/v1/users?q=${"a".repeat(101)}`), "q")
  })

  test("a cursor of another sort, filter or endpoint, or a forged one, is bad_request", async () => {
    const byJoined = (await get("/v1/users?sort=joined&limit=2")).body.meta.next_cursor
    expectBadRequest(await get(`/v1/users?cursor=${byJoined}`), "cursor")
    expectBadRequest(await get(`/v1/users?sort=joined&order=asc&cursor=${byJoined}`), "cursor")
    expectBadRequest(await get(`/v1/users?sort=joined&type=fans&cursor=${byJoined}`), "cursor")
    const labels = (await get("/v1/labels?limit=1")).body.meta.next_cursor
    expectBadRequest(await get(`/v1/users?cursor=${labels}`), "cursor")
    const forged = Buffer.from(JSON.stringify({ s: "users|contributions|desc|q=|type=", o: 2, k: ["x", 1] })).toString("base64url")
    expectBadRequest(await get(`/v1/users?cursor=${forged}`), "cursor")
    expectBadRequest(await get("/v1/users?cursor=not-a-cursor"), "cursor")
  })
})

describe("GET /v1/users/{username}/contributions", () => {
  test("lists the member's contributions on public songs, newest first, with song summaries", async () => {
    const reply = await get("/v1/users/aishah_fan/contributions?limit=80")
    expectList(reply)
    const list = decodeWith(ContributionList, reply.body)
    expect(list.meta.total).toBe(63)
    expect(list.data).toHaveLength(63)
    const ids = list.data.map((row) => row.id)
    expect(ids).not.toContain(5) // unpublished song 10
    expect(ids).not.toContain(8) // deleted song 11
    expect(ids).not.toContain(301) // future song 12
    const times = list.data.map((row) => row.action_at)
    expect(times).toEqual([...times].sort().reverse())
    expect(list.data.at(-1)).toMatchObject({ id: 1, action: "add", action_at: "2020-01-01T00:00:00.000Z" })
    expect(list.data.at(-1)!.song).toMatchObject({ id: 1, title: "Cindai", artists: [{ id: 1, name: "Siti Nurhaliza" }] })
  })

  test("details carry exactly the interface's fields, with the stored values", async () => {
    const list = decodeWith(ContributionList, (await get("/v1/users/aishah_fan/contributions?limit=80")).body)
    expect(list.data.find((row) => row.id === 2)!.details).toEqual({
      added_credits: [{ artist_name: "M. Nasir", role_name: "Lyricist" }],
      removed_credits: [],
      changed_genres: true,
      changed_labels: false,
      changed_lyrics: false,
      changed_notes: false,
      changed_title: false,
      changed_release_date: false,
      changed_artwork: false,
      links: [{ service: "streamb", change: "added" }]
    })
  })

  test("absent or malformed details become defaults, and nothing else stored leaks", async () => {
    const reply = await get("/v1/users/zul/contributions")
    expectList(reply)
    const list = decodeWith(ContributionList, reply.body)
    expect(list.data.map((row) => row.id)).toEqual([300, 6])
    expect(list.data[0]!.details).toEqual({
      added_credits: [],
      removed_credits: [{ artist_name: "Amy", role_name: "" }],
      changed_genres: false,
      changed_labels: false,
      changed_lyrics: false,
      changed_notes: true,
      changed_title: false,
      changed_release_date: false,
      changed_artwork: false,
      links: [{ service: "streamb", change: "" }]
    })
    expect(list.data[1]!.details.added_credits).toEqual([])
    expect(list.data[1]!.details.changed_title).toBe(false)
  })

  test("the handle is matched case-insensitively", async () => {
    const reply = await get("/v1/users/AISHAH_FAN/contributions?limit=1")
    expect(reply.status).toBe(200)
    expect(reply.body.meta.total).toBe(63)
  })

  test("walking by cursor gives the same rows as by offset", async () => {
    const byCursor = await walkByCursor("/v1/users/aishah_fan/contributions", 9)
    expect(byCursor).toHaveLength(63)
    expect(byCursor).toEqual(await walkByOffset("/v1/users/aishah_fan/contributions", 9))
  }, 60_000)

  test("a member with no contributions has an empty list", async () => {
    const reply = await get("/v1/users/nur_diana/contributions")
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ data: [], meta: { total: 0, limit: 20, offset: 0, next_cursor: "" } })
  })
})

describe("GET /v1/users/{username}/loves", () => {
  test("lists public songs the member loves, most recently loved first", async () => {
    const reply = await get("/v1/users/aishah_fan/loves")
    expectList(reply)
    const list = decodeWith(SongList, reply.body)
    // loved: 1, 10 (unpublished), 2, 11 (deleted), 12 (future)
    expect(list.data.map((song) => song.id)).toEqual([2, 1])
    expect(list.meta).toEqual({ total: 2, limit: 20, offset: 0, next_cursor: "" })
  })

  test("loves at the same instant come newest song first, and pages do not repeat", async () => {
    const list = decodeWith(SongList, (await get("/v1/users/Nur_Diana/loves")).body)
    expect(list.data.map((song) => song.id)).toEqual([7, 4])
    const first = await get("/v1/users/nur_diana/loves?limit=1")
    expect(first.body.data[0].id).toBe(7)
    const second = await get(`/v1/users/nur_diana/loves?limit=1&cursor=${first.body.meta.next_cursor}`)
    expect(second.body.data.map((song: { id: number }) => song.id)).toEqual([4])
    expect(second.body.meta).toMatchObject({ total: 2, offset: 1, next_cursor: "" })
  })
})

describe("a username in the path", () => {
  for (const suffix of ["contributions", "loves"]) {
    test(`/${suffix}: a numeric user id is bad_request`, async () => {
      const reply = await get(`/v1/users/1/${suffix}`)
      expectBadRequest(reply, "user ids are not accepted; use the public username")
      expect(reply.headers.get("cache-control")).toBe("no-store")
    })

    test(`/${suffix}: a banned member, a member without a username and an unknown handle are not_found`, async () => {
      expectNotFound(await get(`/v1/users/canary_banned/${suffix}`))
      expectNotFound(await get(`/v1/users/CANARY_BANNED/${suffix}`))
      expectNotFound(await get(`/v1/users/nobody-has-this/${suffix}`))
      expectNotFound(await get(`/v1/users/${encodeURIComponent("CANARY No Handle")}/${suffix}`))
    })

    test(`/${suffix}: bad page parameters are bad_request`, async () => {
      expectBadRequest(await get(`/v1/users/aishah_fan/${suffix}?limit=81`), "limit")
      expectBadRequest(await get(`/v1/users/aishah_fan/${suffix}?offset=-1`), "offset")
      const other = (await get(`/v1/users/zul/${suffix}?limit=1`)).body.meta.next_cursor
      if (other !== "") expectBadRequest(await get(`/v1/users/aishah_fan/${suffix}?cursor=${other}`), "cursor")
      const users = (await get("/v1/users?limit=1")).body.meta.next_cursor
      expectBadRequest(await get(`/v1/users/aishah_fan/${suffix}?cursor=${users}`), "cursor")
    })
  }
})

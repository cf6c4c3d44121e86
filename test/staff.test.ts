import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { CryptoKey } from "jose"
import { DetailEnvelope, ListEnvelope } from "../src/Contract/Envelope.js"
import { ErrorEnvelope } from "../src/Contract/Errors.js"
import { StaffAlbumDetail } from "../src/Contract/Album.js"
import { StaffCuratedList } from "../src/Contract/CuratedList.js"
import { StaffSongSummary } from "../src/Contract/Song.js"
import { StaffSongDetail } from "../src/Contract/SongDetail.js"
import { StaffStats } from "../src/Contract/Stats.js"
import { decodeWith, request, type Reply } from "./support/http.js"
import { sharedServer, type TestServer } from "./support/server.js"
import { startEdgeServer } from "./support/edge.js"
import {
  ed25519KeyPair,
  eddsa,
  hmacWithKey,
  hs256,
  now,
  staffClaims,
  tamper,
  TEST_SECRET,
  unsigned
} from "./support/tokens.js"

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } })

const expectUnauthorized = (reply: Reply, tokenSent: boolean) => {
  expect(reply.status).toBe(401)
  expect(decodeWith(ErrorEnvelope, reply.body).error.code).toBe("unauthorized")
  expect(reply.headers.get("www-authenticate")).toBe(
    tokenSent ? `Bearer realm="staff", error="invalid_token"` : `Bearer realm="staff"`
  )
  expect(reply.headers.get("cache-control")).toBe("no-store")
  expect(reply.text).not.toContain("CANARY")
}

let shared: TestServer
beforeAll(async () => {
  shared = await sharedServer()
}, 60_000)

describe("staff tokens: the attack table (HS256 configured)", () => {
  const cases: Array<[string, () => Promise<string>]> = [
    ["alg none", async () => unsigned({ alg: "none", typ: "JWT" })],
    ["alg None", async () => unsigned({ alg: "None", typ: "JWT" })],
    ["alg NONE", async () => unsigned({ alg: "NONE", typ: "JWT" })],
    ["alg nOnE", async () => unsigned({ alg: "nOnE" })],
    ["a tampered signature", async () => tamper(await hs256())],
    ["a tampered payload", async () => {
      const [header, , signature] = (await hs256(staffClaims({ role: "fan" }))).split(".")
      return `${header}.${Buffer.from(JSON.stringify(staffClaims({ role: "admin" }))).toString("base64url")}.${signature}`
    }],
    ["another secret", async () => hs256(staffClaims(), "another-secret-of-at-least-32-characters!")],
    ["expired (beyond the 30 s skew)", async () => hs256(staffClaims({ iat: now() - 200, exp: now() - 31 }))],
    ["nbf in the future (beyond the 30 s skew)", async () => hs256(staffClaims({ nbf: now() + 60 }))],
    ["iat in the future", async () => hs256(staffClaims({ iat: now() + 120, exp: now() + 300 }))],
    ["exp before iat (both within the skew)", async () => hs256(staffClaims({ iat: now() + 20, exp: now() + 10 }))],
    ["exp equal to iat", async () => hs256(staffClaims({ iat: now(), exp: now() }))],
    ["the wrong audience", async () => hs256(staffClaims({ aud: "another-api" }))],
    ["no audience", async () => hs256(staffClaims({ aud: undefined }))],
    ["a lifetime over 900 s", async () => hs256(staffClaims({ iat: now(), exp: now() + 901 }))],
    ["no exp", async () => hs256(staffClaims({ exp: undefined }))],
    ["no iat (lifetime unknown)", async () => hs256(staffClaims({ iat: undefined }))],
    ["EdDSA when only HS256 is configured", async () => eddsa(staffClaims(), (await ed25519KeyPair()).privateKey)],
    ["garbage", async () => "not.a.jwt"],
    ["two segments", async () => (await hs256()).split(".").slice(0, 2).join(".")]
  ]

  for (const [name, mint] of cases) {
    test(`${name}: 401 invalid_token`, async () => {
      expectUnauthorized(await request(shared.baseUrl, "/v1/admin/stats", bearer(await mint())), true)
    })
  }

  test("no Authorization header: 401 without an error code", async () => {
    expectUnauthorized(await request(shared.baseUrl, "/v1/admin/stats"), false)
  })

  test("a Basic header is not a bearer token: 401", async () => {
    const basic = `Basic ${Buffer.from("admin:admin").toString("base64")}`
    expectUnauthorized(await request(shared.baseUrl, "/v1/admin/stats", { headers: { authorization: basic } }), false)
  })

  test("a valid token under another scheme of the same length is refused (the scheme is checked)", async () => {
    const token = await hs256()
    expectUnauthorized(await request(shared.baseUrl, "/v1/admin/stats", { headers: { authorization: `Token  ${token}` } }), false)
  })

  test("an empty Bearer: 401", async () => {
    for (const authorization of ["Bearer", "Bearer ", "Bearer    "]) {
      expectUnauthorized(await request(shared.baseUrl, "/v1/admin/stats", { headers: { authorization } }), false)
    }
  })

  test("a valid token without the staff role: 403 forbidden", async () => {
    for (const role of ["fan", "editor", undefined, ["staff"]]) {
      const reply = await request(shared.baseUrl, "/v1/admin/stats", bearer(await hs256(staffClaims({ role }))))
      expect(reply.status).toBe(403)
      expect(decodeWith(ErrorEnvelope, reply.body).error.code).toBe("forbidden")
      expect(reply.headers.get("cache-control")).toBe("no-store")
      expect(reply.headers.get("www-authenticate")).toBeNull()
    }
  })

  test("valid tokens: staff and admin roles, 30 s of clock skew, the scheme in any case", async () => {
    const tokens = [
      await hs256(staffClaims({ role: "admin" })),
      await hs256(staffClaims({ iat: now() - 100, exp: now() - 10 })), // expired 10 s ago: within the skew
      await hs256(staffClaims({ nbf: now() + 20 })),
      await hs256(staffClaims({ iat: now(), exp: now() + 900 })) // exactly the maximum lifetime
    ]
    for (const token of tokens) {
      expect((await request(shared.baseUrl, "/v1/admin/stats", bearer(token))).status).toBe(200)
    }
    const lower = await request(shared.baseUrl, "/v1/admin/stats", { headers: { authorization: `bearer ${tokens[0]}` } })
    expect(lower.status).toBe(200)
  })
})

describe("staff tokens with EdDSA (public key and HS256 both configured, issuer required)", () => {
  let server: TestServer
  let privateKey: CryptoKey
  let publicKeyPem: string
  beforeAll(async () => {
    const pair = await ed25519KeyPair()
    privateKey = pair.privateKey
    publicKeyPem = pair.publicKeyPem
    server = await startEdgeServer({ ADMIN_JWT_PUBLIC_KEY: publicKeyPem, ADMIN_JWT_ISSUER: "https://www.example.my" })
  }, 60_000)
  afterAll(() => server.stop())

  const claims = (overrides = {}) => staffClaims({ iss: "https://www.example.my", ...overrides })

  test("a token signed with the Ed25519 key is accepted; so is HS256 with the secret", async () => {
    expect((await request(server.baseUrl, "/v1/admin/stats", bearer(await eddsa(claims(), privateKey)))).status).toBe(200)
    expect((await request(server.baseUrl, "/v1/admin/stats", bearer(await hs256(claims())))).status).toBe(200)
  })

  test("algorithm confusion: HS256 keyed with the public key's PEM is refused", async () => {
    expectUnauthorized(await request(server.baseUrl, "/v1/admin/stats", bearer(hmacWithKey(claims(), publicKeyPem))), true)
  })

  test("the wrong or a missing issuer is refused", async () => {
    for (const iss of ["https://evil.example", undefined]) {
      expectUnauthorized(await request(server.baseUrl, "/v1/admin/stats", bearer(await eddsa(claims({ iss }), privateKey))), true)
    }
  })

  test("another Ed25519 key, or a tampered EdDSA signature, is refused", async () => {
    const other = await ed25519KeyPair()
    expectUnauthorized(await request(server.baseUrl, "/v1/admin/stats", bearer(await eddsa(claims(), other.privateKey))), true)
    expectUnauthorized(await request(server.baseUrl, "/v1/admin/stats", bearer(tamper(await eddsa(claims(), privateKey)))), true)
  })
})

describe("staff tokens from a JWKS file only", () => {
  let server: TestServer
  let privateKey: CryptoKey
  let dir: string
  beforeAll(async () => {
    const pair = await ed25519KeyPair()
    privateKey = pair.privateKey
    dir = mkdtempSync(join(tmpdir(), "jwks-"))
    writeFileSync(join(dir, "jwks.json"), JSON.stringify({ keys: [pair.publicJwk] }))
    server = await startEdgeServer({ ADMIN_JWT_SECRET: "", ADMIN_JWT_JWKS_FILE: join(dir, "jwks.json") })
  }, 60_000)
  afterAll(async () => {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  test("a key of the set verifies; HS256 is not on the allow-list without a secret", async () => {
    expect((await request(server.baseUrl, "/v1/admin/stats", bearer(await eddsa(staffClaims(), privateKey, "test-key")))).status)
      .toBe(200)
    expectUnauthorized(await request(server.baseUrl, "/v1/admin/stats", bearer(await hs256(staffClaims(), TEST_SECRET))), true)
  })
})

describe("without any staff key", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startEdgeServer({ ADMIN_JWT_SECRET: "" })
  }, 60_000)
  afterAll(() => server.stop())

  test("every staff request is 401, whatever the token", async () => {
    const reply = await request(server.baseUrl, "/v1/admin/stats", bearer(await hs256()))
    expectUnauthorized(reply, true)
    expect(reply.body.error.message).toContain("disabled")
  })
})

describe("staff endpoints", () => {
  let token: string
  beforeAll(async () => {
    token = await hs256()
  })
  const get = (path: string) => request(shared.baseUrl, path, bearer(token))

  test("responses are no-store with Vary: Authorization, no ETag, no public CORS, no rate-limit fields", async () => {
    const reply = await request(shared.baseUrl, "/v1/admin/stats", {
      headers: { authorization: `Bearer ${token}`, origin: "https://evil.example" }
    })
    expect(reply.status).toBe(200)
    expect(reply.headers.get("cache-control")).toBe("no-store")
    expect(reply.headers.get("vary")).toContain("Authorization")
    expect(reply.headers.get("etag")).toBeNull()
    expect(reply.headers.get("x-cache")).toBeNull()
    expect(reply.headers.get("access-control-allow-origin")).toBeNull()
    expect(reply.headers.get("ratelimit")).toBeNull()
  })

  test("stats: the public statistics plus unpublished and deleted songs", async () => {
    const reply = await get("/v1/admin/stats")
    const stats = decodeWith(DetailEnvelope(StaffStats, "S"), reply.body).data
    const publicStats = (await request(shared.baseUrl, "/v1/stats")).body.data
    expect({ ...stats, unpublished_songs: undefined, deleted_songs: undefined }).toEqual({
      ...publicStats, unpublished_songs: undefined, deleted_songs: undefined
    })
    // song 10 (never published) and 12 (scheduled); song 11 deleted
    expect(stats.unpublished_songs).toBe(2)
    expect(stats.deleted_songs).toBe(1)
  })

  test("songs: every state by default, newest first, with status, published_at and deleted_at", async () => {
    const reply = await get("/v1/admin/songs?limit=80")
    const page = decodeWith(ListEnvelope(StaffSongSummary, "L"), reply.body)
    expect(page.meta.total).toBe(73)
    const byId = new Map(page.data.map((song) => [song.id, song]))
    expect(byId.get(10)).toMatchObject({ status: "unpublished", published_at: null, deleted_at: null })
    expect(byId.get(11)).toMatchObject({ status: "deleted", published_at: "2020-01-01T00:00:00.000Z", deleted_at: "2021-01-01T00:00:00.000Z" })
    expect(byId.get(12)).toMatchObject({ status: "unpublished", deleted_at: null })
    expect(byId.get(12)!.published_at).toMatch(/^\d{4}-\d{2}-\d{2}T/)
    expect(byId.get(1)).toMatchObject({ status: "published", published_at: "2020-01-01T00:00:00.000Z", deleted_at: null })
    expect(page.data.map((song) => song.id)).toEqual([...page.data.map((song) => song.id)].sort((a, b) => b - a))
  })

  test("songs: the status filter and q", async () => {
    const ids = async (query: string) =>
      decodeWith(ListEnvelope(StaffSongSummary, "L"), (await get(`/v1/admin/songs?${query}`)).body).data.map((s) => s.id)
    expect(await ids("status=unpublished")).toEqual([12, 10])
    expect(await ids("status=deleted")).toEqual([11])
    expect((await ids("status=published&limit=80")).length).toBe(70)
    expect(await ids("q=canary")).toEqual([12, 11, 10])
    expect(await ids("q=CINDAI")).toEqual([9, 1])
    expect(await ids("q=cindai&status=deleted")).toEqual([])
    expect(await ids("q=lagu%2015")).toEqual([159, 158, 157, 156, 155, 154, 153, 152, 151, 150])
    // LIKE's own characters and text that folds to nothing are just text: no title contains them
    for (const text of ["%25", "_", "%25%25"]) expect(await ids(`q=${text}`)).toEqual([])
  })

  test("songs: pages follow next_cursor without repeats", async () => {
    const first = decodeWith(ListEnvelope(StaffSongSummary, "L"), (await get("/v1/admin/songs?limit=50")).body)
    const second = decodeWith(
      ListEnvelope(StaffSongSummary, "L"),
      (await get(`/v1/admin/songs?limit=50&cursor=${first.meta.next_cursor}`)).body
    )
    expect(second.meta.offset).toBe(50)
    expect(second.meta.next_cursor).toBe("")
    const all = [...first.data, ...second.data].map((song) => song.id)
    expect(new Set(all).size).toBe(73)
  })

  test("songs: a bad status is bad_request naming the values", async () => {
    const reply = await get("/v1/admin/songs?status=hidden")
    expect(reply.status).toBe(400)
    expect(reply.body.error.code).toBe("bad_request")
    expect(reply.body.error.message).toContain("status")
  })

  test("a song in any state, with its status; unknown ids not_found", async () => {
    for (const [id, status] of [[10, "unpublished"], [11, "deleted"], [12, "unpublished"], [1, "published"]] as const) {
      const song = decodeWith(DetailEnvelope(StaffSongDetail, "D"), (await get(`/v1/admin/songs/${id}`)).body).data
      expect(song.id).toBe(id)
      expect(song.status).toBe(status)
    }
    expect((await get("/v1/admin/songs/99999")).status).toBe(404)
    expect((await get("/v1/admin/songs/abc")).status).toBe(400)
  })

  test("an album in any state with hidden tracks marked", async () => {
    const album = decodeWith(DetailEnvelope(StaffAlbumDetail, "A"), (await get("/v1/admin/albums/1")).body).data
    expect(album.status).toBe("published")
    expect(album.songs.map((song) => [song.id, song.status])).toEqual([
      [1, "published"], [10, "unpublished"], [3, "published"], [11, "deleted"], [9, "published"]
    ])
    const hidden = decodeWith(DetailEnvelope(StaffAlbumDetail, "A"), (await get("/v1/admin/albums/3")).body).data
    expect(hidden.status).toBe("unpublished")
    expect((await request(shared.baseUrl, "/v1/albums/3")).status).toBe(404)
  })

  test("a curated list in any state with hidden entries marked", async () => {
    const list = decodeWith(DetailEnvelope(StaffCuratedList, "C"), (await get("/v1/admin/curated-lists/1")).body).data
    expect(list.songs.map((song) => [song.id, song.status])).toEqual([
      [3, "published"], [10, "unpublished"], [1, "published"], [11, "deleted"], [12, "unpublished"]
    ])
    const albums = decodeWith(DetailEnvelope(StaffCuratedList, "C"), (await get("/v1/admin/curated-lists/2")).body).data
    expect(albums.albums.map((album) => [album.id, album.status])).toEqual([[2, "published"], [3, "unpublished"], [1, "published"]])
    const hidden = decodeWith(DetailEnvelope(StaffCuratedList, "C"), (await get("/v1/admin/curated-lists/3")).body).data
    expect(hidden.status).toBe("unpublished")
  })

  test("never an email, role or ban state, even here", async () => {
    const texts = await Promise.all(
      ["/v1/admin/songs?limit=80", "/v1/admin/songs/1", "/v1/admin/songs/10", "/v1/admin/albums/1", "/v1/admin/curated-lists/1", "/v1/admin/stats"]
        .map(async (path) => (await get(path)).text)
    )
    for (const text of texts) expect(text).not.toMatch(/@mail\.example|is_banned|"roles?"\s*:\s*\[?"(member|editor|admin)/)
  })
})

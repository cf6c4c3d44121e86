import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { routes } from "../src/Http/Routes.js"
import { REAL_EDGE_ENV, startEdgeServer } from "./support/edge.js"
import { rawGet } from "./support/raw.js"
import { concrete, spellingsOf } from "./support/spellings.js"
import type { TestServer } from "./support/server.js"
import { hs256 } from "./support/tokens.js"

describe("paths match exactly as written; staff answers never go public, whatever the spelling", () => {
  let server: TestServer
  let token: string
  let checked = 0
  beforeAll(async () => {
    server = await startEdgeServer({ ...REAL_EDGE_ENV, RATE_LIMIT_CAPACITY: "1000000" })
    token = await hs256()
  }, 60_000)
  afterAll(async () => {
    console.log(`edge spelling: ${checked} requests over ${routes.length} routes`)
    await server.stop()
  })

  // exactly the target written: fetch would merge `//` itself
  const get = async (path: string, authorization?: string) => {
    checked++
    return rawGet(server.baseUrl, path, authorization === undefined ? {} : { authorization })
  }

  const expectStaffRules = (reply: { headers: Headers }) => {
    expect(reply.headers.get("cache-control")).toBe("no-store")
    expect(reply.headers.get("vary") ?? "").toContain("Authorization")
    expect(reply.headers.get("access-control-allow-origin")).toBeNull()
    expect(reply.headers.get("etag")).toBeNull()
    expect(reply.headers.get("x-cache")).toBeNull()
  }

  for (const route of routes) {
    const path = concrete(route.template)
    test(`${route.kind} ${route.template}: every other spelling`, async () => {
      for (const spelling of spellingsOf(path)) {
        for (const authorization of [`Bearer ${token}`, undefined]) {
          const reply = await get(spelling.path, authorization)
          const where = `${spelling.name} ${spelling.path} ${authorization === undefined ? "without" : "with"} a token`
          expect(reply.status ?? 0, where).toBeLessThan(500)
          if (!spelling.same) {
            // an escaped slash in a parameter's place is that parameter's value: a bad id, or an unknown slug
            const inParameter = spelling.name === "escaped slash" && /\/:\w+\/\w+$/.test(route.template)
            expect(inParameter ? [400, 404] : [404], where).toContain(reply.status ?? 0)
            expect(JSON.parse(reply.body), where).toEqual({
              error: { code: reply.status === 404 ? "not_found" : "bad_request", message: expect.any(String) }
            })
            expect(reply.headers.get("cache-control"), where).toBe("no-store")
          } else if (route.kind === "staff") {
            expect(reply.status, where).toBe(authorization === undefined ? 401 : 200)
            expectStaffRules(reply)
          }
        }
      }
      if (route.kind === "staff") {
        // the staff answer, then the same spelling without a token: never served from any cache
        const withToken = await get(path, `Bearer ${token}`)
        expect(withToken.status).toBe(200)
        expectStaffRules(withToken)
        const without = await get(path)
        expect(without.status).toBe(401)
        expectStaffRules(without)
        expect(without.body).not.toBe(withToken.body)
      }
    }, 60_000)
  }

  test("a public 200 is cacheable by anyone; the same route's 404 spelling does not touch its cache entry", async () => {
    const first = await get("/v1/songs/1")
    expect(first.headers.get("cache-control")).toBe("public, max-age=60, stale-while-revalidate=300, stale-if-error=86400")
    const second = await get("/v1/songs/1")
    expect(second.headers.get("x-cache")).toBe("hit")
    expect((await get("/V1/SONGS/1")).status).toBe(404)
    expect((await get("/v1/songs/%31")).status).toBe(404)
  })

  test("a parameter that is not valid percent-encoded UTF-8, or holds NUL, is bad_request naming it", async () => {
    for (const [path, name] of [["/v1/songs/%FF", "songId"], ["/v1/users/ab%00c/loves", "username"], ["/v1/genres/%E2%82", "slug"]] as const) {
      const reply = await get(path)
      expect(reply.status).toBe(400)
      expect(JSON.parse(reply.body).error.code).toBe("bad_request")
      expect(JSON.parse(reply.body).error.message).toContain(name)
    }
  })
})

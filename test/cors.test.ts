import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { request } from "./support/http.js"
import { sharedServer, type TestServer } from "./support/server.js"
import { startEdgeServer } from "./support/edge.js"
import { hs256 } from "./support/tokens.js"

const EXPOSED = [
  "ETag", "Link", "RateLimit", "RateLimit-Policy", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset",
  "Retry-After", "X-Cache", "traceparent"
]

const preflight = (origin: string, headers = "if-none-match") => ({
  method: "OPTIONS",
  headers: { origin, "access-control-request-method": "GET", "access-control-request-headers": headers }
})

let shared: TestServer
beforeAll(async () => {
  shared = await sharedServer()
}, 60_000)

describe("CORS on public endpoints", () => {
  test("any origin may read with GET and HEAD; the rate-limit fields and ETag are exposed", async () => {
    for (const method of ["GET", "HEAD"]) {
      const reply = await request(shared.baseUrl, "/v1/stats", { method, headers: { origin: "https://app.example" } })
      expect(reply.status).toBe(200)
      expect(reply.headers.get("access-control-allow-origin")).toBe("*")
      expect(reply.headers.get("access-control-allow-credentials")).toBeNull()
      expect(reply.headers.get("access-control-expose-headers")!.split(", ")).toEqual(EXPOSED)
    }
  })

  test("errors carry CORS too, so a browser can read the envelope", async () => {
    const reply = await request(shared.baseUrl, "/v1/nothing-here", { headers: { origin: "https://app.example" } })
    expect(reply.status).toBe(404)
    expect(reply.headers.get("access-control-allow-origin")).toBe("*")
  })

  test("a preflight answers 204 with the methods, headers and max age", async () => {
    const reply = await request(shared.baseUrl, "/v1/songs/1", preflight("https://app.example"))
    expect(reply.status).toBe(204)
    expect(reply.text).toBe("")
    expect(reply.headers.get("access-control-allow-origin")).toBe("*")
    expect(reply.headers.get("access-control-allow-methods")).toBe("GET, HEAD, OPTIONS")
    expect(reply.headers.get("access-control-allow-headers")).toBe("If-None-Match, Cache-Control, traceparent")
    expect(reply.headers.get("access-control-max-age")).toBe("86400")
    expect(reply.headers.get("allow")).toBe("GET, HEAD, OPTIONS")
  })

  test("a preflight on an unknown path is not_found", async () => {
    const reply = await request(shared.baseUrl, "/v1/nothing-here", preflight("https://app.example"))
    expect(reply.status).toBe(404)
  })
})

describe("CORS on staff endpoints", () => {
  test("without an allow-list there are no CORS headers at all, preflight included", async () => {
    const token = await hs256()
    const reply = await request(shared.baseUrl, "/v1/admin/stats", {
      headers: { origin: "https://staff.example", authorization: `Bearer ${token}` }
    })
    expect(reply.status).toBe(200)
    expect(reply.headers.get("access-control-allow-origin")).toBeNull()
    expect(reply.headers.get("access-control-expose-headers")).toBeNull()
    const pre = await request(shared.baseUrl, "/v1/admin/stats", preflight("https://staff.example", "authorization"))
    expect(pre.status).toBe(204)
    expect(pre.headers.get("access-control-allow-origin")).toBeNull()
    expect(pre.headers.get("access-control-allow-methods")).toBeNull()
  })

  describe("with CORS_STAFF_ORIGINS", () => {
    let server: TestServer
    beforeAll(async () => {
      server = await startEdgeServer({ CORS_STAFF_ORIGINS: "https://staff.example, https://admin.example:8443" })
    }, 60_000)
    afterAll(() => server.stop())

    test("a listed origin is echoed (never *), with Vary: Origin", async () => {
      const token = await hs256()
      const reply = await request(server.baseUrl, "/v1/admin/stats", {
        headers: { origin: "https://admin.example:8443", authorization: `Bearer ${token}` }
      })
      expect(reply.status).toBe(200)
      expect(reply.headers.get("access-control-allow-origin")).toBe("https://admin.example:8443")
      expect(reply.headers.get("vary")).toBe("Authorization, Origin")
      const pre = await request(server.baseUrl, "/v1/admin/songs/1", preflight("https://staff.example", "authorization"))
      expect(pre.status).toBe(204)
      expect(pre.headers.get("access-control-allow-origin")).toBe("https://staff.example")
      expect(pre.headers.get("access-control-allow-headers")).toBe("Authorization, If-None-Match, traceparent")
    })

    test("an origin not on the list gets nothing", async () => {
      const token = await hs256()
      const reply = await request(server.baseUrl, "/v1/admin/stats", {
        headers: { origin: "https://staff.example.evil", authorization: `Bearer ${token}` }
      })
      expect(reply.status).toBe(200)
      expect(reply.headers.get("access-control-allow-origin")).toBeNull()
    })
  })
})

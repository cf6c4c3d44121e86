import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { ErrorEnvelope } from "../src/Contract/Errors.js"
import { onPostgres } from "./support/database.js"
import { fixtureDatabase } from "./support/template.js"
import { testWhen } from "./support/skips.js"
import { decodeWith, request } from "./support/http.js"
import { sharedServer, startServer, type TestServer } from "./support/server.js"

let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
}, 60_000)

const expectEnvelope = (reply: Awaited<ReturnType<typeof request>>, status: number, code: string) => {
  expect(reply.status).toBe(status)
  expect(decodeWith(ErrorEnvelope, reply.body).error.code).toBe(code as never)
  expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
  expect(reply.headers.get("cache-control")).toBe("no-store")
}

describe("every failure is the error envelope", () => {
  test("an unknown route is not_found", async () => {
    expectEnvelope(await request(server.baseUrl, "/v1/nothing-here"), 404, "not_found")
    expectEnvelope(await request(server.baseUrl, "/"), 404, "not_found")
  })

  test("a trailing slash is another path, so not_found", async () => {
    const reply = await request(server.baseUrl, "/v1/stats/")
    expectEnvelope(reply, 404, "not_found")
    expect(reply.body.error.message).toContain("trailing slash")
  })

  test("a method other than GET, HEAD or OPTIONS on a known path is 405 with Allow", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      const reply = await request(server.baseUrl, "/v1/stats", { method })
      expectEnvelope(reply, 405, "bad_request")
      expect(reply.headers.get("allow")).toBe("GET, HEAD, OPTIONS")
    }
  })

  test("a method other than GET on an unknown path is still not_found", async () => {
    expectEnvelope(await request(server.baseUrl, "/v1/nothing-here", { method: "POST" }), 404, "not_found")
  })

  test("HEAD answers like GET without a body", async () => {
    const reply = await request(server.baseUrl, "/v1/stats", { method: "HEAD" })
    expect(reply.status).toBe(200)
    expect(reply.text).toBe("")
  })

  test("OPTIONS on a known path answers 204", async () => {
    const reply = await request(server.baseUrl, "/v1/stats", { method: "OPTIONS" })
    expect(reply.status).toBe(204)
  })
})

describe("a database failure", () => {
  const database = fixtureDatabase()
  let broken: TestServer | undefined
  afterAll(async () => {
    await broken?.stop()
    await (await database).drop()
  })

  testWhen(onPostgres, "needs a second connection to break the schema under the service")("answers internal_error with no SQL, driver text or stack in the body", async () => {
    const db = await database
    broken = await startServer({ database: db })
    await broken.sql("ALTER VIEW public_songs RENAME TO public_songs_gone")
    const reply = await request(broken.baseUrl, "/v1/stats")
    expectEnvelope(reply, 500, "internal_error")
    expect(reply.text).not.toMatch(/public_songs|relation|SELECT|at |\.ts/)
  }, 60_000)
})

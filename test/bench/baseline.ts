/**
 * A hand-written server for the benchmark's baselines, running the statements the service's
 * repository runs (captured by statements.ts) and answering the same bytes:
 *
 * - `bunsql`: Bun.serve plus Bun.SQL;
 * - `pg`: Bun.serve plus a `pg` pool with named prepared statements;
 * - `httpapi`: the stack's floor: the same `pg` reads as the answers of a bare Effect 4 `HttpApi`
 *   (`HttpRouter.toWebHandler` under Bun.serve), tracer off, nothing of the service's (no edge,
 *   cache, log line or repository), so what it costs over `pg` is the stack's;
 * - the SQL client spike (./sql-clients.ts), Bun.serve plus an Effect `SqlClient` (`sql.unsafe`)
 *   as the `pg` baseline answers: `runner`, the service's own (`pg` and src/Database/Runner.ts,
 *   with the service's waiting bounds); `pgclient`, `@effect/sql-pg`'s own wire client (its
 *   prepared-statement cache); `pgclient-multiplex`, the same with `multiplex` (statements of
 *   several fibers pipelined on one connection). Each with a pool of 10.
 *
 * Only what the scenarios ask:
 *
 *   GET /v1/songs/{id}                     song detail
 *   GET /v1/songs?limit=20[&cursor=...]    the default browse list, page 1 or after a cursor
 *
 * Usage: DATABASE_URL=... bun test/bench/baseline.ts <driver> <port> <statements.json>
 */
import * as HttpApi from "effect/http-api/HttpApi"
import * as HttpApiBuilder from "effect/http-api/HttpApiBuilder"
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as HttpRouter from "effect/http/HttpRouter"
import * as HttpServer from "effect/http/HttpServer"
import * as HttpServerResponse from "effect/http/HttpServerResponse"
import { SQL } from "bun"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as References from "effect/References"
import * as Schema from "effect/Schema"
import pg from "pg"
import type { BaselineStatements } from "./statements.js"

const DRIVERS = ["bunsql", "pg", "httpapi", "runner", "pgclient", "pgclient-multiplex"] as const
export type Driver = (typeof DRIVERS)[number]

const [driver, portText, statementsFile] = process.argv.slice(2) as [Driver | undefined, string | undefined, string | undefined]
const databaseUrl = process.env.DATABASE_URL
if (driver === undefined || !DRIVERS.includes(driver) || portText === undefined || statementsFile === undefined || !databaseUrl) {
  console.error(`usage: DATABASE_URL=... bun test/bench/baseline.ts <${DRIVERS.join("|")}> <port> <statements.json>`)
  process.exit(2)
}
const statements = (await Bun.file(statementsFile).json()) as BaselineStatements
const POOL_SIZE = 10

type Row = Record<string, unknown>
type Query = (name: string, text: string, params: ReadonlyArray<unknown>) => Promise<Array<Row>>

const bunSqlQuery = (): Query => {
  const sql = new SQL({ url: databaseUrl, max: POOL_SIZE, connection: statements.session, prepare: true })
  return async (_name, text, params) => (await sql.unsafe(text, [...params])) as Array<Row>
}

/** The session settings as startup options, as the service's pool sends them. */
const sessionOptions = Object.entries(statements.session)
  .map(([name, value]) => `-c ${name}=${value.replace(/([\\ ])/g, "\\$1")}`)
  .join(" ")

const pgQuery = (): Query => {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: POOL_SIZE, options: sessionOptions })
  // counts as numbers, as the service's client does
  pg.types.setTypeParser(20, Number)
  return async (name, text, params) => (await pool.query({ name, text, values: [...params] })).rows as Array<Row>
}

const query = driver === "bunsql"
  ? bunSqlQuery()
  : driver === "pg" || driver === "httpapi"
  ? pgQuery()
  : (await import("./sqlClients.js")).effectClientQuery(driver, databaseUrl, statements.session, sessionOptions, POOL_SIZE)

/** An answer, made a Response by Bun.serve's drivers and an HttpServerResponse by the floor. */
interface Answer {
  readonly status: number
  readonly body: string
}
const json = (body: string, status = 200): Answer => ({ status, body })
const error = (status: number, code: string, message: string) =>
  json(JSON.stringify({ error: { code, message } }), status)
const CONTENT_TYPE = "application/json; charset=utf-8"

const songDetail = async (id: number) => {
  const rows = await query("detail", statements.detail.text, [id])
  const data = rows[0]?.["json"]
  return typeof data === "string" ? json(`{"data":${data}}`) : error(404, "not_found", `Song ${id} was not found.`)
}

const encodeCursor = (offset: number, key: unknown) =>
  Buffer.from(JSON.stringify({ s: statements.listScope, o: offset, k: key })).toString("base64url")

const songList = async (cursor: string | null) => {
  let offset = 0
  let rows: Array<Row>
  if (cursor === null) {
    rows = await query("list_first", statements.listFirst.text, statements.listFirst.params)
  } else {
    const payload = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { s: string; o: number; k: Array<unknown> }
    if (payload.s !== statements.listScope) return error(400, "bad_request", "cursor is not valid for this list.")
    offset = payload.o
    const params = [...statements.listAfter.params]
    statements.listAfter.keyPositions.forEach((position, i) => (params[position] = payload.k[i]))
    rows = await query("list_after", statements.listAfter.text, params)
  }
  const row = rows[0] ?? {}
  const total = Number(row["total"])
  const served = Number(row["served"])
  const lastKey = typeof row["last_key"] === "string" ? (JSON.parse(row["last_key"]) as unknown) : undefined
  const nextOffset = offset + served
  const hasNext = served === statements.listLimit && nextOffset < total && lastKey !== undefined
  const meta = { total, limit: statements.listLimit, offset, next_cursor: hasNext ? encodeCursor(nextOffset, lastKey) : "" }
  return json(`{"data":${String(row["json"])},"meta":${JSON.stringify(meta)}}`)
}

/** The answer for a path; `param` reads a query parameter (null when absent). */
const answerOf = (pathname: string, param: (name: string) => string | null): Answer | Promise<Answer> => {
  const detail = /^\/v1\/songs\/([1-9][0-9]{0,8})$/.exec(pathname)
  if (detail !== null) return songDetail(Number(detail[1]))
  if (pathname === "/v1/songs" && param("limit") === String(statements.listLimit)) {
    return songList(param("cursor"))
  }
  if (pathname === "/v1/health") return json(`{"data":{"status":"ok"}}`)
  return error(404, "not_found", `No endpoint at ${pathname}.`)
}

const port = Number(portText)
if (driver === "httpapi") {
  // the routes declared as the service declares its own (path and query through Schema); each answer as it is
  const Floor = HttpApi.make("floor").add(
    HttpApiGroup.make("songs")
      .add(HttpApiEndpoint.get("detail", "/v1/songs/:songId", { params: { songId: Schema.String } }))
      .add(HttpApiEndpoint.get("list", "/v1/songs", { query: { limit: Schema.String, cursor: Schema.optional(Schema.String) } }))
      .add(HttpApiEndpoint.get("health", "/v1/health"))
  )
  const respond = (answer: Answer | Promise<Answer>) =>
    Effect.map(Effect.promise(async () => answer), (a) => HttpServerResponse.text(a.body, { status: a.status, contentType: CONTENT_TYPE }))
  const none = () => null
  const Songs = HttpApiBuilder.group(Floor, "songs", (handlers) =>
    handlers
      .handle("detail", ({ params }) => respond(answerOf(`/v1/songs/${params.songId}`, none)))
      .handle("list", ({ query }) =>
        respond(answerOf("/v1/songs", (name) => (name === "limit" ? query.limit : name === "cursor" ? query.cursor ?? null : null))))
      .handle("health", () => respond(answerOf("/v1/health", none))))
  const Live = HttpApiBuilder.layer(Floor).pipe(
    Layer.provide(Songs),
    Layer.provide(HttpServer.layerServices),
    Layer.provideMerge(Layer.succeed(References.TracerEnabled, false))
  )
  const { handler } = HttpRouter.toWebHandler(Live, { disableLogger: true })
  const server = Bun.serve({ port, hostname: "127.0.0.1", fetch: (request) => handler(request) })
  console.log(`baseline ${driver} listening on ${server.port}`)
} else {
  const headers = { "content-type": CONTENT_TYPE }
  const toResponse = (answer: Answer) => new Response(answer.body, { status: answer.status, headers })
  const server = Bun.serve({
    port,
    hostname: "127.0.0.1",
    async fetch(request) {
      const url = new URL(request.url)
      return toResponse(await answerOf(url.pathname, (name) => url.searchParams.get(name)))
    }
  })
  console.log(`baseline ${driver} listening on ${server.port}`)
}

/**
 * A hand-written server for the benchmark's baselines: Bun.serve plus either Bun.SQL or a `pg`
 * pool with named prepared statements, running the statements the service's repository runs
 * (captured by statements.ts) and answering the same bytes. Only what the scenarios ask:
 *
 *   GET /v1/songs/{id}                     song detail
 *   GET /v1/songs?limit=20[&cursor=...]    the default browse list, page 1 or after a cursor
 *
 * Usage: DATABASE_URL=... bun test/bench/baseline.ts <bunsql|pg> <port> <statements.json>
 */
import { SQL } from "bun"
import pg from "pg"
import type { BaselineStatements } from "./statements.js"

const [driver, portText, statementsFile] = process.argv.slice(2)
const databaseUrl = process.env.DATABASE_URL
if ((driver !== "bunsql" && driver !== "pg") || portText === undefined || statementsFile === undefined || !databaseUrl) {
  console.error("usage: DATABASE_URL=... bun test/bench/baseline.ts <bunsql|pg> <port> <statements.json>")
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

const pgQuery = (): Query => {
  const options = Object.entries(statements.session)
    .map(([name, value]) => `-c ${name}=${value.replace(/([\\ ])/g, "\\$1")}`)
    .join(" ")
  const pool = new pg.Pool({ connectionString: databaseUrl, max: POOL_SIZE, options })
  // counts as numbers, as the service's client does
  pg.types.setTypeParser(20, Number)
  return async (name, text, params) => (await pool.query({ name, text, values: [...params] })).rows as Array<Row>
}

const query = driver === "bunsql" ? bunSqlQuery() : pgQuery()

const JSON_TYPE = { "content-type": "application/json; charset=utf-8" }
const json = (body: string, status = 200) => new Response(body, { status, headers: JSON_TYPE })
const error = (status: number, code: string, message: string) =>
  json(JSON.stringify({ error: { code, message } }), status)

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

const server = Bun.serve({
  port: Number(portText),
  hostname: "127.0.0.1",
  async fetch(request) {
    const url = new URL(request.url)
    const detail = /^\/v1\/songs\/([1-9][0-9]{0,8})$/.exec(url.pathname)
    if (detail !== null) return songDetail(Number(detail[1]))
    if (url.pathname === "/v1/songs" && url.searchParams.get("limit") === String(statements.listLimit)) {
      return songList(url.searchParams.get("cursor"))
    }
    if (url.pathname === "/v1/health") return json(`{"data":{"status":"ok"}}`)
    return error(404, "not_found", `No endpoint at ${url.pathname}.`)
  }
})
console.log(`baseline ${driver} listening on ${server.port}`)

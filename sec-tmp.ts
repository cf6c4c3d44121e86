import { PgClient } from "@effect/sql-pg"
import { SqlClient } from "@effect/sql"
import { Effect, Redacted } from "effect"
import { sectionStatement } from "./src/Search/Repo.ts"
const [type, q] = [process.argv[2] as any, process.argv[3]!]
const program = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const st = sectionStatement(sql, type, { q, fuzzy: true, limit: 5, types: [type] })
  const [text, params] = (st as any).compile()
  let out = text as string
  params.forEach((p: unknown, i: number) => { out = out.replaceAll(new RegExp(`\\$${i + 1}(?![0-9])`, "g"), p === null ? "NULL" : typeof p === "number" ? String(p) : `'${String(p).replace(/'/g, "''")}'`) })
  console.log(out)
})
await Effect.runPromise(program.pipe(Effect.provide(PgClient.layer({ url: Redacted.make("postgres://postgres@127.0.0.1:5432/catalogue_1m_wt14") })), Effect.scoped) as any)
process.exit(0)

import pg from "pg"
import { searchText } from "../src/Search/Repo.js"
import { SEARCH_TYPES } from "../src/Search/Api.js"
const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
await client.connect()
const queries = process.argv.slice(2)
for (const types of [["songs"], SEARCH_TYPES] as const) {
  const text = `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${searchText(types as any)}`
  for (const q of queries) {
    const times: number[] = []
    let buffers = 0
    for (let i = 0; i < 4; i++) {
      const r = await client.query(text, [[q, "10"]])
      const plan = r.rows[0]["QUERY PLAN"][0]
      times.push(plan["Execution Time"] + plan["Planning Time"])
      buffers = plan.Plan["Shared Hit Blocks"] + plan.Plan["Shared Read Blocks"]
    }
    times.sort((a, b) => a - b)
    console.log(`${types.length === 1 ? "songs" : "all  "} ${JSON.stringify(q).padEnd(28)} min ${times[0]!.toFixed(1)} ms  median ${times[2]!.toFixed(1)} ms  buffers ${buffers}`)
  }
}
await client.end()

import pg from "pg"
import { generateQueries } from "./bench/relevanceQueries.js"
import { renderRelevanceTable, renderSkips, runRelevance } from "./bench/relevanceSuite.js"
const client = new pg.Client({ connectionString: process.env.DATABASE_URL })
await client.connect()
const rows = async (text: string, params?: ReadonlyArray<unknown>) => (await client.query(text, params as unknown[])).rows
const names = process.argv.slice(2)
const all = await generateQueries(rows, { targets: 300, seed: 1 })
const generated = { ...all, queries: all.queries.filter((q) => names.length === 0 || names.includes(q.className)) }
const run = await runRelevance("http://127.0.0.1:18777", generated, rows, { warmUp: false })
console.log(renderRelevanceTable(run))
for (const [name, misses] of run.misses) console.log(name, JSON.stringify(misses.slice(0, 8)))
await client.end()

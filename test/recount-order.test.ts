import { beforeAll, describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { RECOUNTS } from "../src/Seed/keptCounts.js"
import { sharedServer, type TestServer } from "./support/server.js"

/**
 * What each recount writes and reads, from the SQL itself: the tables its body and the functions
 * it calls insert into, delete from, update or truncate (written; a statement built by format()
 * writes the tables named as regclass literals), and every table or view they name (read; a view
 * reads its tables). recount_kept_counts() rebuilds the declarations of
 * kept_counts(): it writes their targets and reads their sources and the songs' or albums' state.
 */
interface Effects {
  readonly writes: Set<string>
  readonly reads: Set<string>
}

let effectsOf: (name: string) => Effects
beforeAll(async () => {
  const server: TestServer = await sharedServer()
  const bodies = new Map(
    (await server.sql<{ name: string; body: string }>(
      `SELECT p.proname::text AS name, string_agg(p.prosrc, ' ') AS body FROM pg_proc p
       WHERE p.pronamespace = 'public'::regnamespace GROUP BY p.proname`
    )).map((row) => [row.name, row.body.toLowerCase().replace(/--[^\n]*/g, "")])
  )
  const tables = new Set(
    (await server.sql<{ name: string }>(
      "SELECT relname::text AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p')"
    )).map((row) => row.name)
  )
  const viewTables = new Map<string, Array<string>>()
  for (
    const row of await server.sql<{ view: string; name: string }>(
      `SELECT DISTINCT v.relname::text AS view, t.relname::text AS name
       FROM pg_rewrite r JOIN pg_class v ON v.oid = r.ev_class
       JOIN pg_depend d ON d.classid = 'pg_rewrite'::regclass AND d.objid = r.oid
       JOIN pg_class t ON t.oid = d.refobjid AND t.oid <> v.oid
       WHERE v.relkind = 'v' AND v.relnamespace = 'public'::regnamespace`
    )
  ) viewTables.set(row.view, [...(viewTables.get(row.view) ?? []), row.name])
  const declarations = await server.sql<{ target: string; source: string; counted: string }>(
    "SELECT target, source, counted FROM kept_counts()"
  )
  const stateOf: Record<string, ReadonlyArray<string>> = {
    "live song": ["songs"],
    "settled song": ["songs", "scheduled_song_links"],
    "live album": ["albums"]
  }

  const baseTables = (name: string, seen: Set<string> = new Set()): Array<string> =>
    tables.has(name) ? [name] : seen.has(name) ? [] : (viewTables.get(name) ?? []).flatMap((t) => baseTables(t, seen.add(name)))

  const cache = new Map<string, Effects>()
  effectsOf = (name) => {
    const known = cache.get(name)
    if (known !== undefined) return known
    const effects: Effects = { writes: new Set(), reads: new Set() }
    cache.set(name, effects)
    const body = bodies.get(name) ?? ""
    for (const [, table] of body.matchAll(/(?:insert\s+into|delete\s+from|update|truncate)\s+([a-z_]+)/g)) {
      if (tables.has(table!)) effects.writes.add(table!)
    }
    // a statement built by format() writes a table named as 'table'::regclass in the body or a function it calls
    if (/(?:insert\s+into|delete\s+from|update|truncate)\s+%/.test(body)) {
      const named = [body, ...[...body.matchAll(/([a-z_][a-z0-9_]*)\s*\(/g)].map(([, callee]) => bodies.get(callee!) ?? "")]
      for (const text of named) {
        for (const [, table] of text.matchAll(/'([a-z_]+)'::regclass/g)) if (tables.has(table!)) effects.writes.add(table!)
      }
    }
    for (const [word] of body.matchAll(/[a-z_][a-z0-9_]*/g)) {
      for (const table of baseTables(word)) effects.reads.add(table)
    }
    // recount_kept_counts(): every declaration; recount_kept_counts(ARRAY['a', ...]): those of a, ...
    const recounted = name === "recount_kept_counts" ? [""] : [...body.matchAll(/recount_kept_counts\s*\(([^)]*)\)/g)].map((m) => m[1]!)
    for (const args of recounted) {
      const named = [...args.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!)
      for (const d of declarations.filter((d) => named.length === 0 || named.includes(d.target))) {
        effects.writes.add(d.target)
        for (const table of [d.source, ...(stateOf[d.counted] ?? [])]) effects.reads.add(table)
      }
    }
    for (const [, callee] of body.matchAll(/([a-z_][a-z0-9_]*)\s*\(/g)) {
      if (callee === name || callee === "recount_kept_counts" || callee === "kept_counts" || !bodies.has(callee!)) continue
      const inner = effectsOf(callee!)
      for (const table of inner.writes) effects.writes.add(table)
      for (const table of inner.reads) effects.reads.add(table)
    }
    return effects
  }
}, 60_000)

/** Every pair out of order: `reader` reads `table`, which `writer`, run after it, writes. */
const outOfOrder = (order: ReadonlyArray<string>) =>
  order.flatMap((reader, i) =>
    order.slice(i + 1).flatMap((writer) => {
      const read = effectsOf(reader)
      return [...effectsOf(writer).writes]
        .filter((table) => read.reads.has(table) && !read.writes.has(table))
        .map((table) => `${reader} reads ${table}, which ${writer} writes after it`)
    })
  )

describe("the recounts after a bulk load", () => {
  test("the check sees what the recounts write and read", () => {
    expect([...effectsOf("recount_kept_counts").writes]).toContain("catalogue_counts")
    expect([...effectsOf("recount_kept_counts").reads]).toContain("scheduled_song_links")
    expect([...effectsOf("recount_scheduled_song_links").writes]).toContain("scheduled_song_links")
    expect([...effectsOf("recount_member_contribution_ranks").reads]).toContain("member_settled_contributions")
    // and it fails on an order that is wrong
    expect(outOfOrder([...RECOUNTS].reverse()).length).toBeGreaterThan(0)
    expect(outOfOrder(["recount_kept_counts", "recount_scheduled_song_links"])).toContain(
      "recount_kept_counts reads scheduled_song_links, which recount_scheduled_song_links writes after it"
    )
  })

  test("every kept table is rebuilt by a recount and has its row in docs/data-model.md", () => {
    const kept = [...readFileSync(new URL("../sql/schema/3_kept_counts.sql", import.meta.url), "utf8")
      .matchAll(/CREATE TABLE (\w+)/g)].map((m) => m[1]!)
    expect(kept.length).toBeGreaterThan(20)
    const rebuilt = new Set(RECOUNTS.flatMap((name) => [...effectsOf(name).writes]))
    expect(kept.filter((table) => !rebuilt.has(table))).toEqual([])
    const documented = readFileSync(new URL("../docs/data-model.md", import.meta.url), "utf8")
    expect(kept.filter((table) => !documented.includes(`\`${table}\``))).toEqual([])
  })

  test("each recount runs after those that write what it reads", () => {
    for (const name of RECOUNTS) expect({ name, writes: effectsOf(name).writes.size > 0 }).toEqual({ name, writes: true })
    expect(outOfOrder(RECOUNTS)).toEqual([])
  })
})

/**
 * Compares the schemas of two PostgreSQL databases, object by object:
 *
 *   bun test/schema/compare.ts postgres://.../a postgres://.../b
 *
 * Every relation (table, view, index, sequence, composite type) with its columns, every
 * constraint, index and trigger as PostgreSQL prints them back, each function's signature,
 * attributes, settings (SET clauses) and body (comments and runs of white space aside), the
 * extensions, and the rows of the tables that hold a few (timestamps masked). The runners' own
 * tables (schema_history, schema_migrations) are left out. Prints each difference and exits 1 if
 * there is one: the check that a fold of the schema (docs/data-model.md) changed no object.
 */
import pg from "pg"

type Catalogue = Map<string, string>

const RUNNER_TABLES = ["schema_history", "schema_migrations"]

/** A function body with its comments dropped and its white space runs made one space. */
const normaliseBody = (body: string) =>
  body
    .replace(/--[^\n]*/g, "")
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\s+/g, " ")
    .trim()

export const readCatalogue = async (url: string): Promise<Catalogue> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  const rows = async (text: string, params: Array<unknown> = []) => (await client.query(text, params)).rows
  const entries: Catalogue = new Map()
  const put = (key: string, value: unknown) => entries.set(key, typeof value === "string" ? value : JSON.stringify(value))
  try {
    for (const r of await rows(`SELECT extname, extversion FROM pg_extension`)) put(`extension ${r.extname}`, r.extversion)

    const relations = await rows(`
      SELECT c.oid, c.relname, c.relkind, c.relpersistence, c.reloptions, c.reltuples >= 0 AS analyzed
      FROM pg_class c
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'v', 'm', 'i', 'S', 'c', 'p')
        AND c.relname <> ALL ($1) AND NOT (c.relkind = 'i' AND c.relname LIKE ANY ($2))`,
      [RUNNER_TABLES, RUNNER_TABLES.map((t) => `${t}_%`)])
    for (const r of relations) {
      put(`relation ${r.relname}`, { kind: r.relkind, persistence: r.relpersistence, options: r.reloptions })
      if (r.relkind === "r") put(`statistics ${r.relname}`, r.analyzed ? "analyzed" : "never analyzed")
    }

    const columns = await rows(`
      SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull, a.attidentity,
             a.attgenerated, pg_get_expr(d.adbin, d.adrelid) AS expr, co.collname,
             row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum) AS position
      FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
      LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
      LEFT JOIN pg_collation co ON co.oid = a.attcollation
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'v', 'm', 'c', 'p')
        AND c.relname <> ALL ($1) AND a.attnum > 0 AND NOT a.attisdropped`, [RUNNER_TABLES])
    for (const r of columns) {
      put(`column ${r.relname}.${r.attname}`, {
        position: Number(r.position), type: r.type, notNull: r.attnotnull, identity: r.attidentity,
        generated: r.attgenerated, expression: r.expr, collation: r.collname
      })
    }

    const constraints = await rows(`
      SELECT c.relname, k.conname, pg_get_constraintdef(k.oid) AS def, k.condeferrable, k.condeferred
      FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
      WHERE k.connamespace = 'public'::regnamespace AND c.relname <> ALL ($1)`, [RUNNER_TABLES])
    for (const r of constraints) put(`constraint ${r.relname}.${r.conname}`, [r.def, r.condeferrable, r.condeferred])

    const indexes = await rows(`
      SELECT i.relname, pg_get_indexdef(i.oid) AS def FROM pg_index x
      JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      WHERE t.relnamespace = 'public'::regnamespace AND t.relname <> ALL ($1)`, [RUNNER_TABLES])
    for (const r of indexes) put(`index ${r.relname}`, r.def)

    const sequences = await rows(`
      SELECT c.relname, s.seqtypid::regtype::text AS type, s.seqstart, s.seqincrement, s.seqmin, s.seqmax, s.seqcache, s.seqcycle
      FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid WHERE c.relnamespace = 'public'::regnamespace`)
    for (const r of sequences) put(`sequence ${r.relname}`, { ...r, relname: undefined })

    const triggers = await rows(`
      SELECT c.relname, t.tgname, pg_get_triggerdef(t.oid) AS def, t.tgenabled
      FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE NOT t.tgisinternal AND c.relnamespace = 'public'::regnamespace`)
    for (const r of triggers) put(`trigger ${r.relname}.${r.tgname}`, [r.def, r.tgenabled])

    const views = await rows(`
      SELECT c.relname, pg_get_viewdef(c.oid) AS def FROM pg_class c
      WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('v', 'm')`)
    for (const r of views) put(`view ${r.relname}`, r.def)

    const functions = await rows(`
      SELECT p.oid::regprocedure::text AS signature, pg_get_function_result(p.oid) AS result, l.lanname,
             p.provolatile, p.proisstrict, p.prosecdef, p.proleakproof, p.proparallel, p.procost, p.prorows,
             p.proconfig, p.prosrc, pg_get_function_sqlbody(p.oid) AS sqlbody, pg_get_function_arguments(p.oid) AS args
      FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
      WHERE p.pronamespace = 'public'::regnamespace
        AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')`)
    for (const r of functions) {
      put(`function ${r.signature}`, {
        arguments: r.args, result: r.result, language: r.lanname, volatility: r.provolatile, strict: r.proisstrict,
        securityDefiner: r.prosecdef, leakproof: r.proleakproof, parallel: r.proparallel, cost: Number(r.procost),
        rows: Number(r.prorows), settings: r.proconfig,
        body: r.sqlbody ?? normaliseBody(r.prosrc)
      })
    }

    // the rows of tables that hold a few (the kept totals' single rows, the buckets' lower bounds)
    for (const r of relations.filter((r) => r.relkind === "r")) {
      const [{ n }] = await rows(`SELECT count(*)::int AS n FROM "${r.relname}"`)
      if (n === 0) continue
      if (n > 100) {
        put(`rows ${r.relname}`, `${n} rows`)
        continue
      }
      const content = await rows(`
        SELECT string_agg(x::text, ' ' ORDER BY x::text) AS rows
        FROM (SELECT regexp_replace(row_to_json(t)::text, '"\\d{4}-\\d\\d-\\d\\dT[^"]*"', '"<time>"', 'g') AS x FROM "${r.relname}" t) y`)
      put(`rows ${r.relname}`, content[0].rows)
    }
  } finally {
    await client.end()
  }
  return entries
}

/** The differences between two catalogues, one line each. */
export const compareCatalogues = (a: Catalogue, b: Catalogue): ReadonlyArray<string> => {
  const lines: Array<string> = []
  for (const key of [...new Set([...a.keys(), ...b.keys()])].sort()) {
    const left = a.get(key)
    const right = b.get(key)
    if (left === right) continue
    if (left === undefined) lines.push(`only in the second: ${key}: ${right}`)
    else if (right === undefined) lines.push(`only in the first: ${key}: ${left}`)
    else lines.push(`differs: ${key}\n  first:  ${left}\n  second: ${right}`)
  }
  return lines
}

if (import.meta.main) {
  const [first, second] = process.argv.slice(2)
  if (first === undefined || second === undefined) {
    console.error("usage: bun test/schema/compare.ts <first database url> <second database url>")
    process.exit(2)
  }
  const [a, b] = await Promise.all([readCatalogue(first), readCatalogue(second)])
  const differences = compareCatalogues(a, b)
  for (const line of differences) console.log(line)
  console.log(`${a.size} objects in the first, ${b.size} in the second, ${differences.length} differences`)
  process.exit(differences.length === 0 ? 0 : 1)
}

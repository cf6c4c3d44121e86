/**
 * What makes the bulk load fast: foreign keys and plain indexes dropped and recreated around
 * the load, kept-count triggers switched off and replaced with one recount, and the event loop
 * let through between slices of generation.
 */
import type { SqlClient } from "effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { RECOUNTS } from "./keptCounts.js"
import { SEED_TABLES } from "./tables.js"

/** Lets the event loop run (socket writes, query results) between slices of generation. */
export const yieldToEventLoop = Effect.callback<void>((resume) => {
  const handle = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(handle))
})

/**
 * Foreign keys and plain (non-unique) secondary indexes of the catalogue tables, with the DDL
 * to drop them and to recreate them exactly (`pg_get_constraintdef` / `pg_get_indexdef`).
 * Primary keys and unique indexes stay in place.
 */
export const deferrableDdl = (sql: SqlClient) =>
  sql
    .unsafe<{ readonly kind: string; readonly drop_sql: string; readonly create_sql: string }>(
      `WITH t AS (SELECT to_regclass(name)::oid AS oid FROM unnest($1::text[]) AS name)
       SELECT 'index' AS kind, format('DROP INDEX %s', i.indexrelid::regclass) AS drop_sql,
              pg_get_indexdef(i.indexrelid) AS create_sql
         FROM pg_index i
        WHERE i.indrelid IN (SELECT oid FROM t) AND NOT i.indisunique AND NOT i.indisprimary
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
       UNION ALL
       SELECT 'fk', format('ALTER TABLE %s DROP CONSTRAINT %I', c.conrelid::regclass, c.conname),
              format('ALTER TABLE %s ADD CONSTRAINT %I %s', c.conrelid::regclass, c.conname, pg_get_constraintdef(c.oid))
         FROM pg_constraint c
        WHERE c.contype = 'f' AND c.conrelid IN (SELECT oid FROM t)
        ORDER BY 1 DESC, 2`,
      [[...SEED_TABLES]]
    )
    .pipe(
      Effect.map((rows) => {
        const indexes = rows.filter((row) => row.kind === "index")
        const foreignKeys = rows.filter((row) => row.kind === "fk")
        // drop constraints first; recreate indexes first (constraint validation is one query each)
        return {
          drop: [...foreignKeys, ...indexes].map((row) => row.drop_sql),
          create: [...indexes, ...foreignKeys].map((row) => row.create_sql)
        }
      })
    )

/**
 * Switches every trigger of the seeded tables off or back on. Each of them keeps a count, an order
 * or the change feed, and the recounts replace them all at the end (RECOUNTS); the triggers of the
 * count tables themselves stay on, since the recounts write those tables and their triggers carry
 * the change on.
 */
export const switchKeptCounts = (sql: SqlClient, to: "DISABLE" | "ENABLE") =>
  Effect.forEach(SEED_TABLES, (table) => sql.unsafe(`ALTER TABLE ${table} ${to} TRIGGER USER`), { discard: true })

/** Recomputes every kept count from the tables. */
export const recountKeptCounts = (sql: SqlClient) => Effect.forEach(RECOUNTS, (recount) => sql.unsafe(`SELECT ${recount}()`), { discard: true })

import { beforeAll, describe, expect, test } from "bun:test"
import { sharedServer, type TestServer } from "./support/server.js"

// The visibility rules are written once, as SQL functions (docs/data-model.md, "Where each rule
// lives"). Every other view and function of the migrated schema calls them: this reads
// their stored definitions and fails on any that spells a rule out again.

/** The rule functions: the only bodies allowed to say what live, public, scheduled and due mean. */
const RULES = [
  "song_is_live", "song_is_public", "song_is_public_at", "song_is_scheduled",
  "album_is_live", "album_is_public", "album_is_public_at", "album_is_scheduled",
  "curated_list_is_live", "curated_list_is_public", "curated_list_is_public_at", "member_is_public", "scheduled_link_is_due"
]

/**
 * A rule spelled out, in the text PostgreSQL keeps (lower case, whitespace collapsed): a song's
 * deleted_at tested for null, a published_at tested for null or compared from below (public:
 * `published_at <= t`, or `t >= published_at`), a member's handle-and-ban test.
 */
const SPELLED_OUT =
  /deleted_at is (not )?null|published_at is (not )?null|published_at <=|[<>]=? \(?(\w+\.)?published_at\b|username is not null and not|not \(?(\w+\.)?is_banned/

interface Definition {
  readonly kind: string
  readonly name: string
  readonly body: string
}

let server: TestServer
let definitions: ReadonlyArray<Definition>
beforeAll(async () => {
  server = await sharedServer()
  // functions of the schema (not those of extensions), views and materialized views
  definitions = await server.sql<Definition>(`
    SELECT 'function' AS kind, p.proname::text AS name, pg_get_functiondef(p.oid) AS body
    FROM pg_proc p
    WHERE p.pronamespace = 'public'::regnamespace AND p.prokind = 'f'
      AND NOT EXISTS (SELECT 1 FROM pg_depend d
                      WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
    UNION ALL
    SELECT CASE c.relkind WHEN 'v' THEN 'view' ELSE 'materialized view' END, c.relname::text, pg_get_viewdef(c.oid)
    FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('v', 'm')`)
}, 60_000)

const normalized = (body: string) => body.toLowerCase().replace(/\s+/g, " ")
const spellsOut = (body: string) => SPELLED_OUT.test(normalized(body))
const named = (name: string) => definitions.find((d) => d.name === name)

describe("live and public rules", () => {
  test("the check reads the real definitions and recognises a rule written out", () => {
    // a check that cannot fail is no check: the rules' own bodies are what it looks for
    for (const rule of ["song_is_live", "song_is_public_at", "album_is_live", "album_is_public_at", "member_is_public"]) {
      expect({ rule, spelled: spellsOut(named(rule)?.body ?? "") }).toEqual({ rule, spelled: true })
    }
    // and the views and count functions are among what it reads
    for (const name of ["public_songs", "public_label_counts", "songs_count_trigger", "feed_public", "recount_catalogue_counts"]) {
      expect(named(name)).toBeDefined()
    }
    expect(normalized(named("public_songs")!.body)).toContain("song_is_public(")
  })

  test("every rule function exists", () => {
    expect(RULES.filter((rule) => named(rule)?.kind !== "function")).toEqual([])
  })

  test("no view or function outside the rules spells a rule out", () => {
    const offenders = definitions
      .filter((d) => !RULES.includes(d.name) && spellsOut(d.body))
      .map((d) => `${d.kind} ${d.name}: ${normalized(d.body).match(SPELLED_OUT)![0]}`)
    expect(offenders).toEqual([])
  })

  test("the rules are inlined: the public views still plan over the partial indexes", async () => {
    // sequential scans off (in one transaction on one connection): the fixture's tables are tiny, and
    // one analyzed while empty (a migration's ANALYZE) is read whole whatever the rule; the question
    // is whether the partial index can serve the view at all
    const plan = async (query: string) => {
      // a text of several statements answers one row list per statement
      const results = await server.sql(`BEGIN; SET LOCAL enable_seqscan = off; EXPLAIN ${query}; COMMIT`)
      const rows = (results as unknown as ReadonlyArray<ReadonlyArray<{ "QUERY PLAN": string }>>).find((r) => r.length > 0) ?? []
      return rows.map((row) => row["QUERY PLAN"]).join("\n")
    }
    // the index a plan reads must be a partial one: only the inlined rule implies its predicate
    const partialIndexOf = async (query: string) => {
      const text = await plan(query)
      expect(text).not.toMatch(/_is_(live|public|scheduled)/)
      const index = /Scan using (\w+)/.exec(text)?.[1] ?? "no index"
      const [row] = await server.sql<{ partial: boolean }>(
        "SELECT indpred IS NOT NULL AS partial FROM pg_index WHERE indexrelid = to_regclass($1)", [index])
      return { index, partial: row?.partial ?? false }
    }
    expect(await partialIndexOf("SELECT id FROM public_songs ORDER BY released_at DESC, id DESC LIMIT 20"))
      .toEqual({ index: "songs_public_released_idx", partial: true })
    expect((await partialIndexOf("SELECT id FROM songs WHERE song_is_scheduled(published_at, deleted_at)")).partial).toBe(true)
    expect(await partialIndexOf("SELECT id FROM public_members ORDER BY joined_at, lower(username) LIMIT 20"))
      .toEqual({ index: "members_public_joined_handle_idx", partial: true })
  })
})

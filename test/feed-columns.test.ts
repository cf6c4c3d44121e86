/**
 * The change feed's column lists (sql/definitions/6_change_feed.sql, "What other rows' answers
 * show of a row") held to the TypeScript shapes that show those columns: every column of the row a
 * shape's SQL reads is one its feed function compares, so that a field added to a shape and
 * forgotten in the feed fails here.
 */
import { describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import { join } from "node:path"
// every response shape, registered as the service's modules load (the repositories import the shapes)
import "../src/App.js"
import { SQL_DIR } from "../src/Database/Schema.js"
import { registeredShapes } from "../src/Shapes/Shape.js"

const FEED = readFileSync(join(SQL_DIR, "definitions/6_change_feed.sql"), "utf8")

/** Each feed function, and the shapes (by name, with the alias their sample gives the row) that show what it compares. */
const SHOWN = {
  feed_song_shown_moved: { table: "songs", shapes: { SongSummary: "s", ListSongEntry: "s", AlbumSongEntry: "s" } },
  feed_album_shown_moved: { table: "albums", shapes: { ListAlbumEntry: "al", AlbumDetail: "al" } },
  feed_artist_credit_moved: { table: "artists", shapes: { SongCredit: "a" } },
  feed_artist_name_moved: { table: "artists", shapes: { ArtistName: "a" } },
  feed_artist_entry_moved: { table: "artists", shapes: { AlbumArtist: "a" } },
  feed_member_profile_moved: { table: "members", shapes: { ContributorProfile: "m" } },
  feed_member_shown_moved: { table: "members", shapes: { UserRef: "m" } },
  feed_curated_list_shown_moved: { table: "curated_lists", shapes: { CuratedList: "l", CuratedListSummary: "l" } }
} as const

const columnsOf = (text: string, alias: string) => [...new Set([...text.matchAll(new RegExp(`\\b${alias}\\.(\\w+)`, "g"))].map((m) => m[1]!))]

/** The columns the feed function compares, old row `o` against new row `n`, read from its file. */
const compared = (name: string, table: string) => {
  const body = new RegExp(`FUNCTION ${name}\\(o ${table}, n ${table}\\)[^;]*?RETURN ([^;]*);`).exec(FEED)?.[1]
  expect(body, `${name}(o ${table}, n ${table}) in sql/definitions/6_change_feed.sql`).toBeDefined()
  const old = columnsOf(body!, "o")
  expect(columnsOf(body!, "n")).toEqual(old)
  return old
}

/** The columns of its row a shape's SQL reads: its sample's arguments, with the row's alias made unmistakable. */
const read = (name: string, alias: string) => {
  const shape = registeredShapes.find((registered) => registered.name === name)
  expect(shape, `the shape ${name}`).toBeDefined()
  const args = (shape!.sample.args as ReadonlyArray<unknown>).map((arg) => (arg === alias ? "feed_row" : arg))
  expect(args, `${name}'s sample passes its row as "${alias}"`).toContain("feed_row")
  return columnsOf(Object.values(shape!.fields(...(args as Array<never>))).join("\n"), "feed_row")
}

describe("the feed compares every column other rows' answers show", () => {
  for (const [name, { table, shapes }] of Object.entries(SHOWN)) {
    test(`${name}: ${Object.keys(shapes).join(", ")}`, () => {
      const columns = compared(name, table)
      for (const [shape, alias] of Object.entries(shapes)) {
        const shown = read(shape, alias)
        expect(shown.length).toBeGreaterThan(1)
        // the key never changes
        expect({ shape, missing: shown.filter((column) => column !== "id" && !columns.includes(column)) }).toEqual({ shape, missing: [] })
      }
    })
  }
})

import * as Effect from "effect/Effect"
import type * as SqlClient from "effect/sql/SqlClient"
import { readdirSync, readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import type { CuratedListSummary } from "../../src/Contract/CuratedList.js"

/** A public row of the fixture with content (credits, tracks, entries, contributions) for every path parameter but a snapshot file. */
export const FIXTURE_PATH_VALUES: Readonly<Record<string, string>> = {
  songId: "1",
  albumId: "1",
  listId: "1",
  artistId: "1",
  slug: "pop",
  labelId: "1",
  username: "aishah_fan"
}

/** The fixture: test/fixture/*.sql, loaded in name order onto a migrated database. */
export const FIXTURE_DIR = resolve(import.meta.dir, "../fixture")

export const fixtureFiles = () => readdirSync(FIXTURE_DIR).filter((file) => file.endsWith(".sql")).sort()

export const loadFixture = (sql: SqlClient.SqlClient) =>
  Effect.forEach(fixtureFiles(), (file) => sql.unsafe(readFileSync(join(FIXTURE_DIR, file), "utf8")).raw, { discard: true })

/** What the fixture (test/fixture/0001_base.sql) shows on public endpoints, for tests of several groups. */

/** The two public curated lists as summaries, most recently updated first. */
export const PUBLIC_LIST_SUMMARIES: ReadonlyArray<typeof CuratedListSummary.Type> = [
  {
    id: 1,
    title: "Lagu Raya Terbaik",
    description: "Festive favourites.",
    artwork_url: "https://cdn.test.example/artwork/lists/1.jpg",
    artwork_colors: { dominant: "#112233", average: "#445566" },
    updated_at: "2024-05-01T08:30:00.000Z",
    content_type: "songs",
    item_count: 2
  },
  {
    id: 2,
    title: "Album Klasik",
    description: null,
    artwork_url: null,
    artwork_colors: null,
    updated_at: "2024-04-01T08:30:00.000Z",
    content_type: "albums",
    item_count: 2
  }
]

import { beforeAll, describe, expect, test } from "bun:test"
import * as Schema from "effect/Schema"
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { registeredShapes } from "../src/Shapes/Shape.js"
import { sharedServer, type TestServer } from "./support/server.js"

// Every module of src/Shapes, so that every shape (src/Shapes/Shape.ts) is registered.
const SHAPES = resolve(import.meta.dir, "../src/Shapes")
for (const file of readdirSync(SHAPES).filter((name) => name.endsWith(".ts")).sort()) {
  await import(join(SHAPES, file))
}

let server: TestServer
beforeAll(async () => {
  server = await sharedServer()
}, 60_000)

const strictly = { onExcessProperty: "error" } as const

describe("every response shape: its SQL builds exactly its Schema", () => {
  test("the shapes are registered once each", () => {
    const names = registeredShapes.map((shape) => shape.name)
    expect(new Set(names).size).toBe(names.length)
    // the song, album, list, artist, label, genre, member, stats, change and discovery families
    for (const name of ["SongSummary", "AlbumDetail", "CuratedList", "ArtistSummary", "Label", "GenreEntry",
      "ContributorProfile", "ContributionDetails", "CatalogueStats", "Change", "Discovery", "SongSearchHit",
      "UserSearchSection"]) {
      expect(names).toContain(name)
    }
  })

  test("JSON objects are built only through shapes (src/Shapes/Shape.ts)", () => {
    const SRC = resolve(import.meta.dir, "../src")
    const files = (dir: string): Array<string> =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []
      )
    const building = files(SRC)
      .filter((file) => readFileSync(file, "utf8").includes("jsonObjectSql("))
      .map((file) => relative(SRC, file))
      .sort()
    expect(building).toEqual(["Shapes/JsonSql.ts", "Shapes/Shape.ts"])
  })

  for (const shape of registeredShapes) {
    test(`${shape.name}: keys in the Schema's order; fixture rows decode and print back byte for byte`, async () => {
      const { args, from } = shape.sample
      expect(Object.keys(shape.fields(...args))).toEqual(Object.keys(shape.schema.fields))
      const rows = await server.sql<{ json: string }>(
        `SELECT ${shape.json(...args)}::text AS json ${from === undefined ? "" : `FROM ${from}`} LIMIT 200`
      )
      expect(rows.length).toBeGreaterThan(0)
      const schema = shape.schema as unknown as Schema.Codec<unknown, unknown>
      const decode = Schema.decodeUnknownSync(schema, strictly)
      const encode = Schema.encodeSync(schema)
      for (const { json } of rows) {
        // no key missing or extra at any depth, every value of its type, and the keys in order
        expect(JSON.stringify(encode(decode(JSON.parse(json))))).toBe(json)
      }
    })
  }
})

import { FetchHttpClient, HttpApiClient } from "@effect/platform"
import { Effect } from "effect"
import { Api } from "../src/Api.js"

const baseUrl = process.env.CATALOGUE_URL ?? "http://localhost:3000"

const program = Effect.gen(function*() {
  const client = yield* HttpApiClient.make(Api, { baseUrl })
  const page = yield* client.Songs.list({ urlParams: { sort: "popular", limit: 3 } })
  for (const summary of page.data) {
    const song = yield* client.Songs.detail({ path: { songId: summary.id } })
    console.log(`${song.data.title} (${song.data.released_at}): ${song.data.credits.length} credits`)
  }
})

program.pipe(Effect.provide(FetchHttpClient.layer), Effect.runPromise)

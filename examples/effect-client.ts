import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { Api } from "../src/Contract/Api.js"

const baseUrl = process.env.CATALOGUE_URL ?? "http://localhost:3000"

const program = Effect.gen(function*() {
  const client = yield* HttpApiClient.make(Api, { baseUrl })
  const page = yield* client.Songs.list({ query: { sort: "popular", limit: 3 } })
  for (const summary of page.data) {
    const song = yield* client.Songs.detail({ params: { songId: summary.id } })
    console.log(`${song.data.title} (${song.data.released_at}): ${song.data.credits.length} credits`)
  }
})

program.pipe(Effect.provide(FetchHttpClient.layer), Effect.runPromise)

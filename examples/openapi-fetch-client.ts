import createClient from "openapi-fetch"
import type { paths } from "./catalogue-api.js"

const client = createClient<paths>({
  baseUrl: process.env.CATALOGUE_URL ?? "http://localhost:3000",
  querySerializer: { array: { style: "form", explode: false } } // ids=1,2,3
})

const { data: page, error } = await client.GET("/v1/songs", { params: { query: { sort: "popular", limit: 3 } } })
if (error) throw new Error(error.error.message)
for (const summary of page.data) {
  const { data: song } = await client.GET("/v1/songs/{songId}", { params: { path: { songId: summary.id } } })
  console.log(`${song?.data.title} (${song?.data.released_at}): ${song?.data.credits.length} credits`)
}

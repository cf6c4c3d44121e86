import * as HttpApi from "effect/http-api/HttpApi"
import * as Schema from "effect/Schema"
import { Api } from "../../src/Api.js"
import { operationIdOf } from "../../src/Meta/OpenApiDocument.js"
import { fromResult } from "./either.js"

/** One endpoint of the HttpApi as a client sees it: its operationId, route and declared Schemas. */
export interface Operation {
  readonly operationId: string
  readonly method: string
  /** `/v1/songs/:songId` */
  readonly path: string
  readonly pathSchema: Schema.Codec<unknown, unknown> | undefined
  readonly urlParamsSchema: Schema.Codec<unknown, unknown> | undefined
  /** Body Schemas by status: the success (200) and every declared error. */
  readonly bodies: ReadonlyMap<number, Schema.Codec<unknown, unknown>>
}

/** Every endpoint, walked from the HttpApi: a new endpoint is covered without a list to keep. */
export const operations: ReadonlyArray<Operation> = (() => {
  const found: Array<Operation> = []
  HttpApi.reflect(Api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, errors, group, successes }) => {
      const bodies = new Map<number, Schema.Codec<unknown, unknown>>()
      for (const [status, [schema]] of [...successes, ...errors]) {
        bodies.set(status, Schema.toCodecJson(schema) as unknown as Schema.Codec<unknown, unknown>)
      }
      found.push({
        operationId: operationIdOf(group.identifier, endpoint.identifier),
        method: endpoint.method,
        path: endpoint.path,
        pathSchema: endpoint.params as Schema.Codec<unknown, unknown> | undefined,
        urlParamsSchema: endpoint.query as Schema.Codec<unknown, unknown> | undefined,
        bodies
      })
    }
  })
  return found
})()

/** `/v1/songs/:songId` with `{ songId: "7" }`: `/v1/songs/7`, each value percent-encoded. */
export const fillPath = (template: string, values: Readonly<Record<string, string>>) =>
  template.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(values[name] ?? ""))

/** The query string of encoded parameters (`?a=1&b=x`), or "" when there are none. */
export const queryOf = (values: Readonly<Record<string, string | undefined>>) => {
  const entries = Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined)
  return entries.length === 0 ? "" : `?${new URLSearchParams(entries).toString()}`
}

/** Decodes with excess properties refused: a field the Schema does not declare is a failure. */
export const decodeStrict = (schema: Schema.Codec<unknown, unknown>, body: unknown) =>
  fromResult(Schema.decodeUnknownResult(schema as Schema.Codec<unknown, unknown, never, never>, { onExcessProperty: "error" })(body))

import * as HttpApi from "effect/http-api/HttpApi"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Api } from "../../src/Api.js"
import { operationIdOf } from "../../src/Meta/OpenApiDocument.js"

/** One endpoint of the HttpApi as a client sees it: its operationId, route and declared Schemas. */
export interface Operation {
  readonly operationId: string
  readonly method: string
  /** `/v1/songs/:songId` */
  readonly path: string
  readonly pathSchema: Schema.Schema<unknown, unknown> | undefined
  readonly urlParamsSchema: Schema.Schema<unknown, unknown> | undefined
  /** Body Schemas by status: the success (200) and every declared error. */
  readonly bodies: ReadonlyMap<number, Schema.Schema<unknown, unknown>>
}

/** Every endpoint, walked from the HttpApi: a new endpoint is covered without a list to keep. */
export const operations: ReadonlyArray<Operation> = (() => {
  const found: Array<Operation> = []
  HttpApi.reflect(Api, {
    onGroup: () => undefined,
    onEndpoint: ({ endpoint, errors, group, successes }) => {
      const bodies = new Map<number, Schema.Schema<unknown, unknown>>()
      for (const [status, { ast }] of [...successes, ...errors]) {
        if (Option.isSome(ast)) bodies.set(status, Schema.make(ast.value))
      }
      found.push({
        operationId: operationIdOf(group.identifier, endpoint.name),
        method: endpoint.method,
        path: endpoint.path,
        pathSchema: Option.getOrUndefined(endpoint.pathSchema) as Schema.Schema<unknown, unknown> | undefined,
        urlParamsSchema: Option.getOrUndefined(endpoint.urlParamsSchema) as Schema.Schema<unknown, unknown> | undefined,
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
export const decodeStrict = (schema: Schema.Schema<unknown, unknown>, body: unknown) =>
  Schema.decodeUnknownResult(schema, { onExcessProperty: "error" })(body)

import { describe, expect, test } from "bun:test"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Either from "./support/either.js"
import { fromResult } from "./support/either.js"
import * as Schema from "effect/Schema"
import { Api } from "../src/Api.js"
import { OPERATION_EXAMPLES } from "../src/Meta/OpenApiDocument.js"
import { decodeStrict, operations } from "./support/operations.js"

/** A parameter example as it travels: lists comma-separated, numbers as text. */
const wire = (value: unknown) => (Array.isArray(value) ? value.join(",") : String(value))

const document = OpenApi.fromApi(Api) as unknown as {
  paths: Record<string, Record<string, { parameters: Array<{ name: string; in: string; example?: unknown }> }>>
}

/** Whether the operation's 200 is JSON (a file's bytes have no example). */
const answersJson = (operation: (typeof operations)[number]) =>
  "application/json" in ((document.paths[operation.path.replace(/:(\w+)/g, "{$1}")]![operation.method.toLowerCase()] as any).responses["200"]?.content ?? {})

describe("OpenAPI examples (src/Meta/openapi-examples.json, `bun run examples`)", () => {
  const missing = operations.filter((operation) => answersJson(operation) && OPERATION_EXAMPLES[operation.operationId] === undefined)

  test("operations without an example are reported", () => {
    if (missing.length > 0) {
      console.warn(`openapi examples missing for: ${missing.map((o) => o.operationId).join(", ")} (run bun run examples)`)
    }
    const known = new Set(operations.map((operation) => operation.operationId))
    expect(Object.keys(OPERATION_EXAMPLES).filter((id) => !known.has(id))).toEqual([])
  })

  for (const operation of operations) {
    const example = OPERATION_EXAMPLES[operation.operationId]
    if (example === undefined) continue

    test(`${operation.operationId}: the example body decodes with the 200 Schema`, () => {
      const success = operation.bodies.get(200)
      expect(success).toBeDefined()
      const decoded = decodeStrict(success!, example.response)
      if (Either.isLeft(decoded)) throw new Error(String(decoded.left))
    })

    test(`${operation.operationId}: the parameter examples are accepted by its Schemas`, () => {
      const parameters = document.paths[operation.path.replace(/:(\w+)/g, "{$1}")]![operation.method.toLowerCase()]!
        .parameters.filter((parameter) => parameter.in !== "header")
      for (const parameter of parameters) {
        expect({ name: parameter.name, example: parameter.example }).toEqual({
          name: parameter.name,
          example: example.parameters[parameter.name]
        })
      }
      const withoutExample = parameters.filter((parameter) => example.parameters[parameter.name] === undefined)
      if (withoutExample.length > 0) {
        console.warn(`openapi examples missing for ${operation.operationId} parameters: ` +
          `${withoutExample.map((parameter) => parameter.name).join(", ")} (run bun run examples)`)
      }
      const values = (names: ReadonlyArray<string>) =>
        Object.fromEntries(names.map((name) => [name, wire(example.parameters[name])]))
      for (const [schema, where] of [[operation.pathSchema, "path"], [operation.urlParamsSchema, "query"]] as const) {
        if (schema === undefined) continue
        const names = parameters
          .filter((parameter) => parameter.in === where && example.parameters[parameter.name] !== undefined)
          .map((parameter) => parameter.name)
        const decoded = fromResult(Schema.decodeUnknownResult(schema as Schema.Codec<unknown, unknown, never, never>)(values(names)))
        if (Either.isLeft(decoded)) throw new Error(String(decoded.left))
      }
    })
  }
})

/**
 * `bun run client:types` (and the first step of `bun run check`): writes examples/catalogue-api.d.ts,
 * the types openapi-typescript makes of the OpenAPI document the service serves, so that `tsc`
 * compiles the README's generated client (examples/openapi-fetch-client.ts) against them.
 * The file is generated, not committed.
 */
import * as OpenApi from "effect/http-api/OpenApi"
import { writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { Api } from "../../src/Api.js"
import { clientTypesOf } from "./clientTypes.js"

const output = resolve(import.meta.dir, "../../examples/catalogue-api.d.ts")
writeFileSync(output, await clientTypesOf(OpenApi.fromApi(Api)))

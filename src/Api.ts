import * as OpenApi from "effect/http-api/OpenApi"
import { Api as ContractApi } from "./Contract/Api.js"
import { DatabaseErrors } from "./Http/Errors.js"
import { describeDocument } from "./Meta/OpenApiDocument.js"

/**
 * The contract (src/Contract/Api.ts) as the service serves it: its OpenAPI document completed with
 * what the server knows (src/Meta/OpenApiDocument.ts: examples, caching, rate limits), and its
 * handlers allowed to fail with a typed SqlError (DatabaseErrors, src/Http/Errors.ts).
 */
export class Api extends ContractApi.annotate(OpenApi.Transform, describeDocument).middleware(DatabaseErrors) {}

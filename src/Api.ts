import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as OpenApi from "effect/http-api/OpenApi"
import type * as SqlError from "effect/sql/SqlError"
import { Api as ContractApi } from "./Contract/Api.js"
import { describeDocument } from "./Meta/OpenApiDocument.js"

/**
 * Lets every handler fail with a typed SqlError, which EnvelopeErrors answers by its reason
 * (src/Http/Errors.ts). For the handlers' types only: it has no error Schema, so neither the
 * OpenAPI document nor a client of the contract sees SqlError. Applied once when the routes are
 * built, it adds nothing to a request.
 */
export class DatabaseErrors extends (HttpApiMiddleware.Service<DatabaseErrors>()("catalogue/DatabaseErrors") as unknown as HttpApiMiddleware.ServiceClass<
  DatabaseErrors,
  "catalogue/DatabaseErrors",
  {
    requires: never
    provides: never
    error: typeof SqlError.SqlError
    clientError: never
    requiredForClient: false
    security: never
  }
>) {}

/**
 * The contract (src/Contract/Api.ts) as the service serves it: its OpenAPI document completed with
 * what the server knows (src/Meta/OpenApiDocument.ts: examples, caching, rate limits), and its
 * handlers allowed to fail with a typed SqlError (DatabaseErrors).
 */
export class Api extends ContractApi.annotate(OpenApi.Transform, describeDocument).middleware(DatabaseErrors) {}

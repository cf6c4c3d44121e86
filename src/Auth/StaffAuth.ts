import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpApiSecurity from "effect/http-api/HttpApiSecurity"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ForbiddenError, UnauthorizedError } from "../Contract/Errors.js"
import { type StaffIdentity, TokenVerifier } from "./TokenVerifier.js"

/** The staff member a request was verified for; handlers of the Staff group may read it. */
export class CurrentStaff extends Context.Service<CurrentStaff, StaffIdentity>()("catalogue/CurrentStaff") {}

/**
 * Bearer-token security for the Staff group: 401 for a missing or bad token, 403 for a
 * valid token without the staff role. WWW-Authenticate is added with every header, in src/Http/Answer.ts.
 */
export class StaffAuth extends HttpApiMiddleware.Service<StaffAuth, { provides: CurrentStaff }>()("catalogue/StaffAuth", {
  error: [UnauthorizedError, ForbiddenError],
  security: { bearer: HttpApiSecurity.bearer }
}) {}

/**
 * The header is read here, not the decoded token (the platform strips 7 characters unchecked);
 * the verdict is the one the edge already reached for this request (src/Http/Edge.ts).
 */
export const StaffAuthLive = Layer.effect(
  StaffAuth,
  TokenVerifier.useSync((verifier) =>
    StaffAuth.of({
      bearer: (handler) =>
        HttpServerRequest.HttpServerRequest.use((request) =>
          Effect.flatMap(
            verifier.verifyRequest(request.source as object, request.headers.authorization),
            (staff) => Effect.provideService(handler, CurrentStaff, staff)
          ))
    }))
)

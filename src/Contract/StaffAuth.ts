/**
 * The Staff group's security as the contract declares it: a bearer token, 401 or 403. How a
 * token is verified is the server's (src/Auth/StaffAuth.ts).
 */
import * as HttpApiMiddleware from "effect/http-api/HttpApiMiddleware"
import * as HttpApiSecurity from "effect/http-api/HttpApiSecurity"
import * as Context from "effect/Context"
import { ForbiddenError, UnauthorizedError } from "./Errors.js"

/** Who a valid staff token speaks for. */
export interface StaffIdentity {
  readonly subject: string
  readonly role: "staff" | "admin"
}

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

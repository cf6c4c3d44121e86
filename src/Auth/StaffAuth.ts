import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { CurrentStaff, StaffAuth } from "../Contract/StaffAuth.js"
import { TokenVerifier } from "./TokenVerifier.js"

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

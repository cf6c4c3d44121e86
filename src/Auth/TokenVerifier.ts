import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as jose from "jose"
import { readFileSync } from "node:fs"
import { AppConfig } from "../Config.js"
import { Forbidden, Unauthorized } from "../Contract/Errors.js"
import type { StaffIdentity } from "../Contract/StaffAuth.js"
import { withSpan } from "../Spans.js"

export const CLOCK_SKEW_SECONDS = 30
const STAFF_ROLES = new Set(["staff", "admin"])

/** `Bearer <token>` with the scheme checked (the platform's decoder only strips 7 characters). */
export const bearerToken = (authorization: string | undefined): string | undefined => {
  const match = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(authorization ?? "")
  return match?.[1]
}

const unauthorized = (message: string) => new Unauthorized({ message })

/** Short reasons from a fixed set: enough for a developer, nothing about the keys. */
const reasonOf = (error: unknown): string => {
  if (error instanceof jose.errors.JWTExpired) return "The bearer token has expired."
  if (error instanceof jose.errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case "nbf":
        return "The bearer token is not valid yet."
      case "iss":
        return "The bearer token was issued by someone else."
      case "aud":
        return "The bearer token is meant for another audience."
      default:
        return `The bearer token's "${error.claim}" claim is missing or not valid.`
    }
  }
  if (error instanceof jose.errors.JOSEAlgNotAllowed) return "The bearer token's algorithm is not accepted."
  return "The bearer token is not valid."
}

/**
 * Verifies staff bearer tokens with jose: the algorithms are those whose keys are
 * configured (HS256 for ADMIN_JWT_SECRET, EdDSA for ADMIN_JWT_PUBLIC_KEY or ADMIN_JWT_JWKS_FILE),
 * `exp` and `iat` are required and `exp` must come after `iat`, `nbf` honoured, 30 s of clock skew, `iss` when configured, `aud`,
 * and a lifetime (exp - iat) of at most ADMIN_JWT_MAX_LIFETIME_SECONDS.
 */
export class TokenVerifier extends Context.Service<
  TokenVerifier,
  {
    /** False when no key is configured: every staff request is then 401. */
    readonly enabled: boolean
    readonly verify: (authorization: string | undefined) => Effect.Effect<StaffIdentity, Unauthorized | Forbidden>
    /**
     * `verify` once per request (keyed by the web Request): the edge decides the rate limit with
     * it and the Staff group's security reads the same verdict.
     */
    readonly verifyRequest: (
      request: object,
      authorization: string | undefined
    ) => Effect.Effect<StaffIdentity, Unauthorized | Forbidden>
  }
>()("catalogue/TokenVerifier") {
  static readonly layer = Layer.effect(
    TokenVerifier,
    Effect.gen(function*() {
      const { adminJwt } = yield* AppConfig
      const secret = Option.map(adminJwt.secret, (value) => new TextEncoder().encode(Redacted.value(value)))
      const publicKey = yield* Option.match(adminJwt.publicKey, {
        onNone: () => Effect.succeed(Option.none<jose.CryptoKey>()),
        onSome: (pem) =>
          Effect.tryPromise({
            try: () => jose.importSPKI(pem, "EdDSA"),
            catch: () => new Config.ConfigError(new ConfigProvider.SourceError({ message: "ADMIN_JWT_PUBLIC_KEY: is not an Ed25519 SPKI PEM public key" }))
          }).pipe(Effect.map(Option.some))
      })
      const jwks = yield* Option.match(adminJwt.jwksFile, {
        onNone: () => Effect.succeed(Option.none<ReturnType<typeof jose.createLocalJWKSet>>()),
        onSome: (file) =>
          Effect.try({
            try: () => Option.some(jose.createLocalJWKSet(JSON.parse(readFileSync(file, "utf8")))),
            catch: () => new Config.ConfigError(new ConfigProvider.SourceError({ message: `ADMIN_JWT_JWKS_FILE: ${file} is not a readable JWKS file` }))
          })
      })
      const algorithms = [
        ...(Option.isSome(secret) ? ["HS256"] : []),
        ...(Option.isSome(publicKey) || Option.isSome(jwks) ? ["EdDSA"] : [])
      ]
      if (algorithms.length === 0) {
        yield* Effect.logWarning(
          "staff group disabled: none of ADMIN_JWT_SECRET, ADMIN_JWT_PUBLIC_KEY, ADMIN_JWT_JWKS_FILE is set; " +
            "every /v1/admin request answers 401"
        )
      } else {
        yield* Effect.logInfo(`staff tokens: ${algorithms.join(", ")}`)
      }

      // Each algorithm gets only its own key: an HS256 token is never checked against a public key.
      const keyFor: jose.JWTVerifyGetKey = async (header, token) => {
        if (header.alg === "HS256" && Option.isSome(secret)) return secret.value
        if (header.alg === "EdDSA" && Option.isSome(publicKey)) return publicKey.value
        if (header.alg === "EdDSA" && Option.isSome(jwks)) return jwks.value(header, token)
        throw new jose.errors.JOSEAlgNotAllowed(`"alg" (Algorithm) Header Parameter value not allowed`)
      }
      const options: jose.JWTVerifyOptions = {
        algorithms,
        audience: adminJwt.audience,
        clockTolerance: CLOCK_SKEW_SECONDS,
        requiredClaims: ["exp", "iat"],
        ...(Option.isSome(adminJwt.issuer) ? { issuer: adminJwt.issuer.value } : {})
      }

      const verify = (authorization: string | undefined) =>
        Effect.gen(function*() {
          if (algorithms.length === 0) {
            return yield* unauthorized("Staff endpoints are disabled: no token key is configured.")
          }
          if (authorization === undefined || authorization.trim() === "") {
            return yield* unauthorized("A bearer token is required: Authorization: Bearer <token>.")
          }
          const token = bearerToken(authorization)
          if (token === undefined) {
            return yield* unauthorized("Use the Bearer scheme with a token: Authorization: Bearer <token>.")
          }
          const { payload } = yield* Effect.tryPromise({
            try: () => jose.jwtVerify(token, keyFor, options),
            catch: (error) => unauthorized(reasonOf(error))
          })
          const exp = payload.exp ?? 0
          const iat = payload.iat ?? 0
          if (exp <= iat) {
            return yield* unauthorized(`The bearer token's "exp" claim is not after its "iat" claim.`)
          }
          if (iat > Date.now() / 1000 + CLOCK_SKEW_SECONDS) {
            return yield* unauthorized(`The bearer token's "iat" claim is in the future.`)
          }
          if (exp - iat > adminJwt.maxLifetimeSeconds) {
            return yield* unauthorized(
              `The bearer token lives longer than ${adminJwt.maxLifetimeSeconds} seconds (exp - iat); mint a shorter one.`
            )
          }
          const role = payload["role"]
          if (typeof role !== "string" || !STAFF_ROLES.has(role)) {
            return yield* new Forbidden({ message: "This token does not carry the staff or admin role." })
          }
          return { subject: typeof payload.sub === "string" ? payload.sub : "", role: role as StaffIdentity["role"] }
        }).pipe(
          Effect.tapError((error) => Effect.annotateCurrentSpan("auth.outcome", error._tag)),
          withSpan("TokenVerifier.verify")
        )

      const verdicts = new WeakMap<object, Exit.Exit<StaffIdentity, Unauthorized | Forbidden>>()
      const verifyRequest = (request: object, authorization: string | undefined) =>
        Effect.suspend(() => {
          const known = verdicts.get(request)
          if (known !== undefined) return known
          return Effect.flatten(Effect.tap(Effect.exit(verify(authorization)), (exit) => Effect.sync(() => void verdicts.set(request, exit))))
        })

      return TokenVerifier.of({ enabled: algorithms.length > 0, verify, verifyRequest })
    })
  )
}

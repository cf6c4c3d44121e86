import * as SqlError from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import { AppConfig, describeConfigError } from "./Config.js"

/** Log lines as logfmt (`LOG_FORMAT=text`) or one JSON object per line, at or above LOG_LEVEL. */
export const LoggingLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Layer.merge(Logger.minimumLogLevel(config.logLevel), config.logFormat === "json" ? Logger.json : Logger.logFmt)
  )
)

/** Which optional features this start has switched on, in one line (D13). */
export const logFeatures = Effect.gen(function*() {
  const config = yield* AppConfig
  const { adminJwt } = config
  const staffTokens = Option.isSome(adminJwt.secret) || Option.isSome(adminJwt.publicKey) || Option.isSome(adminJwt.jwksFile)
  const sharedLimits = Option.isSome(config.rateLimit.redisUrl)
  const tracing = Option.match(config.otlpEndpoint, {
    onNone: () => "off",
    onSome: (endpoint) => `on (OTLP/HTTP to ${endpoint} as ${config.serviceName})`
  })
  yield* Effect.logInfo(
    `features: tracing ${tracing}; staff tokens ${staffTokens ? "on" : "off"}; ` +
      `rate limits ${sharedLimits ? "shared in Redis" : "in memory"}; ` +
      `response cache ${config.cache.ttlSeconds > 0 ? `${config.cache.ttlSeconds} s` : "off"}; ` +
      `memory limit ${config.memoryLimitMiB > 0 ? `${config.memoryLimitMiB} MiB` : "off"}`
  ).pipe(
    Effect.annotateLogs({
      tracing: Option.isSome(config.otlpEndpoint),
      staff_tokens: staffTokens,
      redis_rate_limits: sharedLimits,
      response_cache: config.cache.ttlSeconds > 0,
      memory_limit_mib: config.memoryLimitMiB
    })
  )
})

const messageOf = (error: unknown): string => {
  if (ConfigError.isConfigError(error)) return `configuration: ${describeConfigError(error)}`
  if (error instanceof SqlError.SqlError) {
    const cause = error.cause instanceof Error && error.cause.message !== error.message ? `: ${error.cause.message}` : ""
    return `database: ${error.message}${cause}`
  }
  if (error instanceof Error) return error.message !== "" ? error.message : error.name
  if (typeof error === "object" && error !== null && "message" in error) return String(error.message)
  return String(error)
}

/**
 * One line that says why the service could not start (a bad setting, an unreachable or locked
 * database, a port in use), for an operator reading a terminal or a container log. No stack trace.
 */
export const describeStartupFailure = (cause: Cause.Cause<unknown>): string => {
  const failure = Cause.failureOption(cause)
  const reason = messageOf(Option.isSome(failure) ? failure.value : Cause.squash(cause))
  return `cannot start: ${reason.replace(/\s*\n\s*/g, " ").trim()}`
}

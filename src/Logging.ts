import * as SqlError from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as List from "effect/List"
import * as LogLevel from "effect/LogLevel"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import { AppConfig, describeConfigError } from "./Config.js"

/** Log lines as logfmt (`LOG_FORMAT=text`) or one JSON object per line, at or above LOG_LEVEL. */
export const LoggingLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Layer.merge(Logger.minimumLogLevel(config.logLevel), config.logFormat === "json" ? Logger.json : Logger.logFmt)
  )
)

/** Writes one INFO line without a fiber. */
export type InfoLineWriter = (message: string, annotations: Readonly<Record<string, unknown>>, fiberId?: FiberId.FiberId) => void

/**
 * The formatter behind LoggingLive's logger, called directly: the same text Effect's logger
 * writes (same format, same sink), at ~6 us a line instead of ~17 us through a fiber (`runSync`
 * of `Effect.logInfo`). For the one line per request, which the front door writes without any fiber.
 */
export const makeInfoLineWriter = (format: "text" | "json"): InfoLineWriter => {
  const logger = format === "json" ? Logger.jsonLogger : Logger.logfmtLogger
  const context = FiberRefs.empty()
  // lines written outside any fiber (the front door) say fiber=#0
  const noFiber = FiberId.make(0, 0)
  return (message, annotations, fiberId = noFiber) =>
    console.log(logger.log({
      fiberId,
      logLevel: LogLevel.Info,
      message,
      cause: Cause.empty,
      context,
      spans: List.empty(),
      annotations: HashMap.fromIterable(Object.entries(annotations)),
      date: new Date()
    }))
}

/** Which optional features this start has switched on, in one line. */
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

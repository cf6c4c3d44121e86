import * as SqlError from "effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Formatter from "effect/Formatter"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as References from "effect/References"
import { AppConfig, describeConfigError } from "./Config.js"
import { causeOf } from "./Database/Faults.js"
import { exportsOf, serviceNameOf } from "./Telemetry/Signals.js"

/** JSON lines keep the keys they have always had (`logLevel`, not Effect 4's `level`). */
const jsonLogger = Logger.withConsoleLog(
  Logger.map(Logger.formatStructured, ({ level, ...line }) => Formatter.formatJson({ ...line, logLevel: level }))
)

/** Log lines as logfmt (`LOG_FORMAT=text`) or one JSON object per line, at or above LOG_LEVEL. */
export const LoggingLive = Layer.unwrap(
  AppConfig.useSync((config) =>
    Layer.merge(
      Logger.layer([config.logFormat === "json" ? jsonLogger : Logger.consoleLogFmt]),
      Layer.succeed(References.MinimumLogLevel, config.logLevel)
    ))
)

/** Writes one INFO line without a fiber. */
export type InfoLineWriter = (message: string, annotations: Readonly<Record<string, unknown>>, fiberId?: number) => void

const TEXT_ONLY = /^[^\s"=]*$/
const logfmtValue = (value: unknown) => {
  const text = typeof value === "string" ? value : Formatter.format(value)
  return TEXT_ONLY.test(text) ? text : `"${text.replace(/\\([\s\S])|(")/g, "\\$1$2")}"`
}

/**
 * The one line per request, in the form LoggingLive's logger writes (same keys, same sink), at
 * a few microseconds a line instead of a fiber's `Effect.logInfo`: the front door writes it
 * without any fiber. Lines written outside a fiber say fiber=#0.
 */
export const makeInfoLineWriter = (format: "text" | "json"): InfoLineWriter =>
  format === "json"
    ? (message, annotations, fiberId = 0) =>
      console.log(JSON.stringify({
        message,
        logLevel: "INFO",
        timestamp: new Date().toISOString(),
        annotations,
        spans: {},
        fiberId: `#${fiberId}`
      }))
    : (message, annotations, fiberId = 0) => {
      let line = `timestamp=${new Date().toISOString()} level=INFO fiber=#${fiberId} message=${logfmtValue(message)}`
      for (const key in annotations) line += ` ${key}=${logfmtValue(annotations[key])}`
      console.log(line)
    }

/** Which optional features this start has switched on, in one line. */
export const logFeatures = Effect.gen(function*() {
  const config = yield* AppConfig
  const { adminJwt } = config
  const staffTokens = Option.isSome(adminJwt.secret) || Option.isSome(adminJwt.publicKey) || Option.isSome(adminJwt.jwksFile)
  const sharedLimits = Option.isSome(config.rateLimit.redisUrl)
  const { telemetry } = config
  const exported = exportsOf(telemetry)
  // where to, without any credentials a URL may carry
  const to = (url: string) => `OTLP/HTTP to ${new URL(url).origin}${new URL(url).pathname}`
  const tracing = exported.traces === undefined
    ? "off"
    : `on (${telemetry.sampler}${telemetry.sampler.endsWith("traceidratio") ? ` ${telemetry.samplerRatio}` : ""}, ` +
      `${to(exported.traces.url)} as ${serviceNameOf(telemetry)})`
  const otlp = (signal: "metrics" | "logs") => {
    const where = exported[signal]
    return where === undefined ? "off" : `on (${to(where.url)})`
  }
  yield* Effect.logInfo(
    `features: tracing ${tracing}; staff tokens ${staffTokens ? "on" : "off"}; ` +
      `rate limits ${sharedLimits ? "shared in Redis" : "in memory"}; ` +
      `response cache ${config.cache.ttlSeconds > 0 ? `${config.cache.ttlSeconds} s` : "off"}; ` +
      `memory limit ${config.memoryLimitMiB > 0 ? `${config.memoryLimitMiB} MiB` : "off"}; ` +
      `OTLP metrics ${otlp("metrics")}; OTLP logs ${otlp("logs")}`
  ).pipe(
    Effect.annotateLogs({
      tracing: exported.traces !== undefined,
      staff_tokens: staffTokens,
      redis_rate_limits: sharedLimits,
      response_cache: config.cache.ttlSeconds > 0,
      memory_limit_mib: config.memoryLimitMiB,
      otlp_metrics: exported.metrics !== undefined,
      otlp_logs: exported.logs !== undefined
    })
  )
})

const messageOf = (error: unknown): string => {
  if (error instanceof Config.ConfigError) return `configuration: ${describeConfigError(error)}`
  if (SqlError.isSqlError(error)) {
    const under = causeOf(error)
    const cause = under instanceof Error && under.message !== error.message ? `: ${under.message}` : ""
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
  const failure = Cause.findErrorOption(cause)
  const reason = messageOf(Option.isSome(failure) ? failure.value : Cause.squash(cause))
  return `cannot start: ${reason.replace(/\s*\n\s*/g, " ").trim()}`
}

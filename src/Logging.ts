import * as SqlError from "effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Context from "effect/Context"
import * as Formatter from "effect/Formatter"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as References from "effect/References"
import { AppConfig, describeConfigError, guardedHeapLimitMiB } from "./Config.js"
import { causeOf } from "./Database/Faults.js"
import { exportsOf, serviceNameOf } from "./Telemetry/Signals.js"

/** A log line's severity, as Effect names it (`Info`); lines write it upper-case (`INFO`). */
export type LineLevel = LogLevel.Severity

/**
 * One log line, flat: `timestamp`, `level`, `message` and every other key at the top level
 * (docs/operations.md, "Logs"): `trace_id` and `span_id` when the line belongs to a request or a
 * span, the request line's `http.*` keys, the annotations of `Effect.annotateLogs`, and
 * `exception.*` for a cause.
 */
export interface LogLine {
  /** milliseconds since the epoch */
  readonly timestamp: number
  readonly level: LineLevel
  readonly message: string
  readonly attributes: Readonly<Record<string, unknown>>
}

/** Where log lines go. The console is one sink; another (an exporter) can stand beside it. */
export type LineSink = (line: LogLine) => void

const LEVEL_TEXT: Record<LineLevel, string> = {
  Trace: "TRACE",
  Debug: "DEBUG",
  Info: "INFO",
  Warn: "WARN",
  Error: "ERROR",
  Fatal: "FATAL"
}

/** One JSON object per line: `{"timestamp","level","message",...attributes}`. */
const jsonConsoleSink: LineSink = ({ attributes, level, message, timestamp }) => {
  const object: Record<string, unknown> = { timestamp: new Date(timestamp).toISOString(), level: LEVEL_TEXT[level], message }
  for (const key in attributes) object[key] = attributes[key]
  console.log(JSON.stringify(object))
}

const TEXT_ONLY = /^[^\s"=]*$/
const logfmtValue = (value: unknown) => {
  const text = typeof value === "string" ? value : Formatter.format(value)
  return TEXT_ONLY.test(text) ? text : JSON.stringify(text)
}

/** logfmt: the same keys as the JSON lines, in the same order. */
const textConsoleSink: LineSink = ({ attributes, level, message, timestamp }) => {
  let line = `timestamp=${new Date(timestamp).toISOString()} level=${LEVEL_TEXT[level]} message=${logfmtValue(message)}`
  for (const key in attributes) line += ` ${key.replace(/[\s="]/g, "_")}=${logfmtValue(attributes[key])}`
  console.log(line)
}

export const consoleSink = (format: "text" | "json"): LineSink => format === "json" ? jsonConsoleSink : textConsoleSink

/** The one writer of log lines: each line goes to every sink. */
export const makeLineWriter = (sinks: ReadonlyArray<LineSink>): LineSink => {
  const [only] = sinks
  if (sinks.length === 1 && only !== undefined) return only
  return (line) => {
    for (const sink of sinks) sink(line)
  }
}

/**
 * Every log line of the service passes here: the request lines (written without a fiber by the
 * front door and by the pipeline) and the lines of Effect's logger (LoggingLive).
 */
export class LogWriter extends Context.Service<LogWriter, LineSink>()("catalogue/LogWriter") {
  /** Lines to the console in LOG_FORMAT; a further sink joins the list here. */
  static readonly layer = Layer.effect(
    LogWriter,
    AppConfig.useSync((config) => makeLineWriter([consoleSink(config.logFormat)]))
  )
}

/** Keys the line itself owns: an annotation of the same name does not replace them. */
const OWN_KEYS = new Set(["timestamp", "level", "message"])

const messageText = (message: unknown): string => {
  const parts = Array.isArray(message) ? message : [message]
  return parts.map((part) => (typeof part === "string" ? part : Formatter.format(part))).join(" ")
}

/**
 * A line of Effect's logger, flat: its annotations at the top level, the ids of the span it was
 * written in (unless annotated), and its cause as OpenTelemetry's `exception.*` keys.
 */
const lineOf = ({ cause, date, fiber, logLevel, message }: Logger.Options<unknown>): LogLine => {
  const attributes: Record<string, unknown> = {}
  const span = fiber.cache.span
  if (span !== undefined && span.traceId !== "noop") {
    attributes["trace_id"] = span.traceId
    attributes["span_id"] = span.spanId
  }
  const annotations = fiber.getRef(References.CurrentLogAnnotations)
  for (const key in annotations) if (!OWN_KEYS.has(key)) attributes[key] = annotations[key]
  const errors = Cause.prettyErrors(cause, { includeCauseInStack: true })
  const [first] = errors
  if (first !== undefined) {
    attributes["exception.type"] = first.name
    attributes["exception.message"] = first.message
    attributes["exception.stacktrace"] = errors.map((error) => error.stack).join("\n")
  }
  return {
    timestamp: date.getTime(),
    level: logLevel === "All" || logLevel === "None" ? "Info" : logLevel,
    message: messageText(message),
    attributes
  }
}

/** Effect's logger, writing through LogWriter at or above LOG_LEVEL. */
export const EffectLoggerLive = Layer.unwrap(
  Effect.gen(function*() {
    const config = yield* AppConfig
    const write = yield* LogWriter
    return Layer.merge(
      Logger.layer([Logger.make((options) => write(lineOf(options)))]),
      Layer.succeed(References.MinimumLogLevel, config.logLevel)
    )
  })
)

/** Log lines (docs/operations.md, "Logs"): Effect's logger and the writer the request lines use. */
export const LoggingLive = EffectLoggerLive.pipe(Layer.provideMerge(LogWriter.layer))

const memoryLimitText = (configuredMiB: number, guardedMiB: number) => {
  if (guardedMiB > 0) return `${guardedMiB} MiB of JS heap`
  return configuredMiB > 0 ? "off (embedded database)" : "off"
}

/** Which optional features this start has switched on, in one line. */
export const logFeatures = Effect.gen(function*() {
  const config = yield* AppConfig
  const { adminJwt } = config
  const staffTokens = Option.isSome(adminJwt.secret) || Option.isSome(adminJwt.publicKey) || Option.isSome(adminJwt.jwksFile)
  const sharedLimits = Option.isSome(config.rateLimit.redisUrl)
  const memoryLimitMiB = guardedHeapLimitMiB(config)
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
      `memory limit ${memoryLimitText(config.memoryLimitMiB, memoryLimitMiB)}; ` +
      `OTLP metrics ${otlp("metrics")}; OTLP logs ${otlp("logs")}`
  ).pipe(
    Effect.annotateLogs({
      tracing: exported.traces !== undefined,
      staff_tokens: staffTokens,
      redis_rate_limits: sharedLimits,
      response_cache: config.cache.ttlSeconds > 0,
      memory_limit_mib: memoryLimitMiB,
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

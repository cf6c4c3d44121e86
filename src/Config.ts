import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

/**
 * One variable as read: its value (the default when unset or empty), or what is wrong with it.
 * Every variable is read before any problem is reported, so that one line names them all.
 */
class Setting<A> {
  constructor(readonly value: A, readonly problem: string | undefined) {}
}

/** `parse` says what is wrong with a set value (a string), or gives its value. */
const setting = <A>(name: string, fallback: A, parse: (text: string) => A | Problem): Config.Config<Setting<A>> =>
  Config.map(Config.option(Config.String(name)), (text) => {
    if (Option.isNone(text)) return new Setting(fallback, undefined)
    const parsed = parse(text.value)
    return parsed instanceof Problem ? new Setting(fallback, `${name}: ${parsed.message}`) : new Setting(parsed, undefined)
  })

class Problem {
  constructor(readonly message: string) {}
}

const problem = (message: string) => new Problem(message)

const wholeNumber = (text: string, min: number, message: string): number | Problem => {
  if (!/^\s*-?[0-9]+\s*$/.test(text)) return problem("must be an integer")
  const n = Number(text)
  return Number.isSafeInteger(n) && n >= min ? n : problem(message)
}

const portNumber = (name: string, fallback: number) =>
  setting(name, fallback, (text) => {
    const port = wholeNumber(text, 0, "must be a port number from 0 to 65535")
    return typeof port === "number" && port > 65535 ? problem("must be a port number from 0 to 65535") : port
  })

const positiveInt = (name: string, fallback: number) =>
  setting(name, fallback, (text) => wholeNumber(text, 1, "must be a whole number of at least 1"))

const nonNegativeInt = (name: string, fallback: number) =>
  setting(name, fallback, (text) => wholeNumber(text, 0, "must be a whole number of at least 0"))

/** A value that is read as text, trimmed, with "" as unset. */
const optionalText = (name: string) =>
  setting(name, Option.none<string>(), (text) => Option.filter(Option.some(text.trim()), (trimmed) => trimmed !== ""))

const httpUrl = (name: string, fallback: string) =>
  setting(name, fallback, (url) =>
    /^https?:\/\//.test(url) && URL.canParse(url) ? url.replace(/\/+$/, "") : problem("must be an absolute http(s) URL"))

const LOG_LEVELS: Record<string, LogLevel.LogLevel> = {
  trace: "Trace",
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  error: "Error",
  fatal: "Fatal",
  none: "None"
}

/** The edge (docs/edge.md): proxies, rate limit, response cache, CORS, staff tokens. */
const rateLimitConfig = Config.all({
  capacity: positiveInt("RATE_LIMIT_CAPACITY", 360),
  windowSeconds: positiveInt("RATE_LIMIT_WINDOW_SECONDS", 60),
  maxClients: positiveInt("RATE_LIMIT_MAX_CLIENTS", 100_000),
  maxInFlight: positiveInt("RATE_LIMIT_MAX_IN_FLIGHT", 1),
  maxQueued: nonNegativeInt("RATE_LIMIT_MAX_QUEUED", 32),
  redisUrl: setting("RATE_LIMIT_REDIS_URL", Option.none<Redacted.Redacted<string>>(), (url) =>
    /^(rediss?|redis\+unix):\/\/\S+$/.test(url) && URL.canParse(url)
      ? Option.some(Redacted.make(url))
      : problem("must be a redis://, rediss:// or redis+unix:// URL"))
})

const cacheConfig = Config.all({
  ttlSeconds: nonNegativeInt("CACHE_TTL_SECONDS", 30),
  maxEntries: positiveInt("CACHE_MAX_ENTRIES", 10_000),
  maxBytes: positiveInt("CACHE_MAX_BYTES", 64 * 1024 * 1024)
})

const adminJwtConfig = Config.all({
  secret: setting("ADMIN_JWT_SECRET", Option.none<Redacted.Redacted<string>>(), (secret) =>
    secret.length >= 32
      ? Option.some(Redacted.make(secret))
      : problem("must be at least 32 characters (an HS256 key shorter than its hash is guessable)")),
  publicKey: setting("ADMIN_JWT_PUBLIC_KEY", Option.none<string>(), (text) => {
    const pem = text.trim().replace(/\\n/g, "\n")
    if (pem === "") return Option.none()
    return pem.startsWith("-----BEGIN PUBLIC KEY-----")
      ? Option.some(pem)
      : problem("must be an Ed25519 public key in SPKI PEM form (-----BEGIN PUBLIC KEY-----)")
  }),
  jwksFile: optionalText("ADMIN_JWT_JWKS_FILE"),
  issuer: optionalText("ADMIN_JWT_ISSUER"),
  audience: setting("ADMIN_JWT_AUDIENCE", "catalogue-api", (text) => text),
  maxLifetimeSeconds: positiveInt("ADMIN_JWT_MAX_LIFETIME_SECONDS", 900)
})

/**
 * OpenTelemetry's own variables (docs/operations.md, "Telemetry"), checked here so a bad one stops
 * the start like any other; src/Telemetry.ts hands the values on to Effect's OTLP readers. As
 * OpenTelemetry reads them, an empty variable is an unset one.
 */
const otel = <A>(name: string, parse: (text: string) => A | Problem) =>
  setting(name, Option.none<A>(), (text) => {
    const trimmed = text.trim()
    if (trimmed === "") return Option.none()
    const parsed = parse(trimmed)
    return parsed instanceof Problem ? parsed : Option.some(parsed)
  })

const otelUrl = (example: string) => (url: string) =>
  /^https?:\/\//.test(url) && URL.canParse(url) ? url : problem(`must be an absolute http(s) URL of an OTLP/HTTP collector, like ${example}`)

const oneOf = <const L extends string>(values: ReadonlyArray<L>) => (text: string): L | Problem => {
  const value = text.toLowerCase()
  return values.includes(value as L) ? value as L : problem(`must be one of: ${values.join(", ")}`)
}

const milliseconds = (text: string) => wholeNumber(text, 1, "must be a whole number of milliseconds, at least 1")

const characters = (text: string) => wholeNumber(text.trim(), 1, "must be a whole number of characters, at least 1")

/** `key=value` pairs separated by commas, values percent-encoded (W3C Baggage), trimmed; nothing else. */
const keyValueList = (text: string, validKey: (key: string) => boolean): Array<[string, string]> | Problem => {
  const pairs: Array<[string, string]> = []
  for (const entry of text.split(",")) {
    if (entry.trim() === "") continue
    const at = entry.indexOf("=")
    const key = entry.slice(0, at).trim()
    if (at < 0 || !validKey(key)) return problem("must be a comma-separated list of key=value")
    try {
      const value = decodeURIComponent(entry.slice(at + 1).trim())
      if (/[\r\n\0]/.test(value)) return problem("must not hold line breaks")
      pairs.push([key, value])
    } catch {
      return problem("must be a comma-separated list of key=value with percent-encoded values")
    }
  }
  return pairs
}

/** As Effect's reader takes them: `key=value` with the value percent-encoded, nothing trimmed. */
const normalizedList = (pairs: ReadonlyArray<[string, string]>) =>
  pairs.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join(",")

const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** Request headers for the collector (an API key, often): never printed. */
const otlpHeaders = (name: string) =>
  otel(name, (text) => {
    const pairs = keyValueList(text, (key) => HEADER_NAME.test(key))
    return pairs instanceof Problem ? pairs : Redacted.make(normalizedList(pairs))
  })

/** One signal's own forms of the exporter settings; unset, the general ones apply. */
const otlpSignal = (signal: "TRACES" | "METRICS" | "LOGS", exporter: "otlp" | "none", example: string) =>
  Config.all({
    exporter: setting(`OTEL_${signal}_EXPORTER`, exporter, oneOf(["otlp", "none"])),
    endpoint: otel(`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`, otelUrl(example)),
    headers: otlpHeaders(`OTEL_EXPORTER_OTLP_${signal}_HEADERS`),
    compression: otel(`OTEL_EXPORTER_OTLP_${signal}_COMPRESSION`, oneOf(["gzip", "none"])),
    timeoutMs: otel(`OTEL_EXPORTER_OTLP_${signal}_TIMEOUT`, milliseconds)
  })

export const SAMPLERS = [
  "parentbased_traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "traceidratio",
  "always_on",
  "always_off"
] as const

export type SamplerName = (typeof SAMPLERS)[number]

const telemetryConfig = Config.all({
  sdkDisabled: setting("OTEL_SDK_DISABLED", false, (text) => {
    const value = oneOf(["true", "false"])(text.trim())
    return value instanceof Problem ? value : value === "true"
  }),
  endpoint: otel("OTEL_EXPORTER_OTLP_ENDPOINT", otelUrl("http://localhost:4318")),
  headers: otlpHeaders("OTEL_EXPORTER_OTLP_HEADERS"),
  compression: otel("OTEL_EXPORTER_OTLP_COMPRESSION", oneOf(["gzip", "none"])),
  timeoutMs: setting("OTEL_EXPORTER_OTLP_TIMEOUT", 10_000, (text) => milliseconds(text.trim())),
  traces: otlpSignal("TRACES", "otlp", "http://localhost:4318/v1/traces"),
  metrics: otlpSignal("METRICS", "otlp", "http://localhost:4318/v1/metrics"),
  logs: otlpSignal("LOGS", "none", "http://localhost:4318/v1/logs"),
  serviceName: setting("OTEL_SERVICE_NAME", Option.none<string>(), (text) =>
    text.trim() !== "" ? Option.some(text.trim()) : problem("must not be empty")),
  resourceAttributes: otel("OTEL_RESOURCE_ATTRIBUTES", (text) => {
    const pairs = keyValueList(text, (key) => key !== "")
    return pairs instanceof Problem ? pairs : { text: normalizedList(pairs), values: Object.fromEntries(pairs) }
  }),
  sampler: setting("OTEL_TRACES_SAMPLER", "parentbased_traceidratio" as SamplerName, (text) =>
    oneOf(SAMPLERS)(text.trim())),
  samplerRatio: setting("OTEL_TRACES_SAMPLER_ARG", 0.1, (text) => {
    const ratio = text.trim() === "" ? NaN : Number(text)
    return ratio >= 0 && ratio <= 1 ? ratio : problem("must be a sampling ratio from 0 to 1, like 0.1")
  }),
  attributeValueLengthLimit: setting("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", 1024, characters),
  spanAttributeValueLengthLimit: otel("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", characters),
  tracesDelayMs: otel("OTEL_BSP_SCHEDULE_DELAY", milliseconds),
  metricsIntervalMs: otel("OTEL_METRIC_EXPORT_INTERVAL", milliseconds),
  logsDelayMs: otel("OTEL_BLRP_SCHEDULE_DELAY", milliseconds)
})

/** Every setting as read, each with its value or its problem. The README table mirrors it. */
const settings = Config.all({
  // 0 asks the system for a free port (tests).
  port: portNumber("PORT", 3000),
  databaseUrl: setting("DATABASE_URL", Option.none<Redacted.Redacted<string>>(), (url) =>
    /^postgres(ql)?:\/\/[^\s]+$/.test(url) && URL.canParse(url)
      ? Option.some(Redacted.make(url))
      : problem("must be a postgres:// or postgresql:// URL")),
  databasePoolSize: positiveInt("DATABASE_POOL_SIZE", 10),
  databaseStatementTimeoutMs: positiveInt("DATABASE_STATEMENT_TIMEOUT_MS", 5000),
  databaseAcquireTimeoutMs: positiveInt("DATABASE_ACQUIRE_TIMEOUT_MS", 1000),
  databaseDeadlineMarginMs: positiveInt("DATABASE_DEADLINE_MARGIN_MS", 1000),
  dataDir: setting("DATA_DIR", "./data", (text) => text),
  demoSeedSongs: nonNegativeInt("DEMO_SEED_SONGS", 3000),
  // Snapshots (docs/api.md, "Snapshots"): where their files live, and how old the latest may grow
  // before the service writes another (0: it never writes; it serves what is there).
  snapshotDir: setting("SNAPSHOT_DIR", "./snapshots", (text) => text),
  snapshotIntervalHours: nonNegativeInt("SNAPSHOT_INTERVAL_HOURS", 24),
  memoryLimitMiB: nonNegativeInt("MEMORY_LIMIT_MIB", 128),
  cdnBaseUrl: httpUrl("CDN_BASE_URL", "https://cdn.example.com"),
  logLevel: setting("LOG_LEVEL", "Info" as LogLevel.LogLevel, (text) =>
    LOG_LEVELS[text.trim().toLowerCase()] ?? problem(`must be one of: ${Object.keys(LOG_LEVELS).join(", ")}`)),
  logFormat: setting("LOG_FORMAT", "text" as "text" | "json", (text) =>
    text === "text" || text === "json" ? text : problem("must be one of: text, json")),
  telemetry: telemetryConfig,
  // Unset: no Prometheus listener; `prometheus` serves the same metrics OTLP exports, as Prometheus text.
  metrics: setting("METRICS", "off" as "off" | "prometheus", (text) =>
    text === "off" || text === "prometheus" ? text : problem("must be one of: off, prometheus")),
  // Its own listener, never the public one: the OpenTelemetry Prometheus exporter's port; 0 asks for a free one (tests).
  metricsPort: portNumber("METRICS_PORT", 9464),
  trustProxy: nonNegativeInt("TRUST_PROXY", 0),
  rateLimit: rateLimitConfig,
  cache: cacheConfig,
  corsStaffOrigins: setting("CORS_STAFF_ORIGINS", [] as ReadonlyArray<string>, (text) => {
    const origins = text.split(",").map((origin) => origin.trim()).filter((origin) => origin !== "")
    return origins.every((origin) => /^https?:\/\/[^/\s]+$/.test(origin))
      ? origins
      : problem("must be a comma-separated list of origins like https://staff.example.com")
  }),
  adminJwt: adminJwtConfig
})

type Settled<T> = { readonly [K in keyof T]: T[K] extends Setting<infer A> ? A : Settled<T[K]> }

const settle = <T extends object>(read: T, problems: Array<string>): Settled<T> =>
  Object.fromEntries(
    Object.entries(read).map(([key, value]) => {
      if (value instanceof Setting) {
        if (value.problem !== undefined) problems.push(value.problem)
        return [key, value.value]
      }
      return [key, settle(value as object, problems)]
    })
  ) as Settled<T>

/**
 * Every setting of the service, read once at start. A bad value fails the whole read with one
 * message naming each bad variable (and never its value: some are secrets).
 */
export const AppConfigShape: Config.Config<Settled<Config.Success<typeof settings>>> = Config.mapEffect(settings, (read) => {
  const problems: Array<string> = []
  const values = settle(read, problems)
  if (values.metrics === "prometheus" && values.metricsPort !== 0 && values.metricsPort === values.port) {
    problems.push("METRICS_PORT: is the same as PORT; the metrics listener needs a port of its own")
  }
  // Ed25519 keys come from one place: with two, removing a key from one would revoke nothing.
  if (Option.isSome(values.adminJwt.publicKey) && Option.isSome(values.adminJwt.jwksFile)) {
    problems.push(
      "ADMIN_JWT_PUBLIC_KEY: is set together with ADMIN_JWT_JWKS_FILE; set only one of them (EdDSA keys come from exactly one source)"
    )
  }
  return problems.length === 0
    ? Effect.succeed(values)
    : Effect.fail(new Config.ConfigError(new ConfigProvider.SourceError({ message: problems.join("; ") })))
})

export type AppConfigValues = Config.Success<typeof AppConfigShape>

export class AppConfig extends Context.Service<AppConfig, AppConfigValues>()("catalogue/AppConfig") {
  static readonly layer = Layer.effect(AppConfig, AppConfigShape)
}

/**
 * The limit the guard applies, in MiB (0: none). With the embedded database (no DATABASE_URL)
 * the guard is off whatever MEMORY_LIMIT_MIB says: PGlite's WebAssembly memory counts in the JS
 * heap (~400 MiB at idle) and no collection can free it.
 */
export const guardedHeapLimitMiB = (config: Pick<AppConfigValues, "databaseUrl" | "memoryLimitMiB">) =>
  Option.isSome(config.databaseUrl) ? config.memoryLimitMiB : 0

/** One line naming the variable and what is wrong with it. */
export const describeConfigError = (error: Config.ConfigError): string =>
  error.cause._tag === "SourceError" ? error.cause.message : error.message

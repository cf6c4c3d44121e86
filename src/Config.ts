import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"

const positiveInt = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: "must be a whole number of at least 1", validation: (n) => n >= 1 }),
    Config.withDefault(fallback)
  )

const nonNegativeInt = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: "must be a whole number of at least 0", validation: (n) => n >= 0 }),
    Config.withDefault(fallback)
  )

const postgresUrl = Config.redacted().pipe(
  Config.validate({
    message: "must be a postgres:// or postgresql:// URL",
    validation: (url) => /^postgres(ql)?:\/\/[^\s]+$/.test(Redacted.value(url)) && URL.canParse(Redacted.value(url))
  }),
  Config.nested("DATABASE_URL"),
  Config.option
)

const httpUrl = (name: string, fallback: string) =>
  Config.string(name).pipe(
    Config.validate({
      message: "must be an absolute http(s) URL",
      validation: (url) => /^https?:\/\//.test(url) && URL.canParse(url)
    }),
    Config.map((url) => url.replace(/\/+$/, "")),
    Config.withDefault(fallback)
  )

const LOG_LEVELS: Record<string, LogLevel.LogLevel> = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
}

/** The edge (docs/edge.md): proxies, rate limit, response cache, CORS, staff tokens. */
const optionalText = (name: string) =>
  Config.string(name).pipe(
    Config.map((text) => text.trim()),
    Config.option,
    Config.map(Option.filter((text) => text !== ""))
  )

const rateLimitConfig = Config.all({
  capacity: positiveInt("RATE_LIMIT_CAPACITY", 360),
  windowSeconds: positiveInt("RATE_LIMIT_WINDOW_SECONDS", 60),
  maxClients: positiveInt("RATE_LIMIT_MAX_CLIENTS", 100_000),
  redisUrl: Config.redacted().pipe(
    Config.validate({
      message: "must be a redis:// or rediss:// URL",
      validation: (url) => /^rediss?:\/\/\S+$/.test(Redacted.value(url)) && URL.canParse(Redacted.value(url))
    }),
    Config.nested("RATE_LIMIT_REDIS_URL"),
    Config.option
  )
})

const cacheConfig = Config.all({
  ttlSeconds: nonNegativeInt("CACHE_TTL_SECONDS", 30),
  maxEntries: positiveInt("CACHE_MAX_ENTRIES", 10_000),
  maxBytes: positiveInt("CACHE_MAX_BYTES", 64 * 1024 * 1024)
})

const adminJwtConfig = Config.all({
  // Empty means unset, as for the other keys.
  secret: Config.redacted().pipe(
    Config.validate({
      message: "must be at least 32 characters (an HS256 key shorter than its hash is guessable)",
      validation: (secret) => Redacted.value(secret) === "" || Redacted.value(secret).length >= 32
    }),
    Config.nested("ADMIN_JWT_SECRET"),
    Config.option,
    Config.map(Option.filter((secret) => Redacted.value(secret) !== ""))
  ),
  publicKey: Config.string().pipe(
    Config.map((text) => text.trim().replace(/\\n/g, "\n")),
    Config.validate({
      message: "must be an Ed25519 public key in SPKI PEM form (-----BEGIN PUBLIC KEY-----)",
      validation: (pem) => pem === "" || pem.startsWith("-----BEGIN PUBLIC KEY-----")
    }),
    Config.nested("ADMIN_JWT_PUBLIC_KEY"),
    Config.option,
    Config.map(Option.filter((pem) => pem !== ""))
  ),
  jwksFile: optionalText("ADMIN_JWT_JWKS_FILE"),
  issuer: optionalText("ADMIN_JWT_ISSUER"),
  audience: Config.string("ADMIN_JWT_AUDIENCE").pipe(Config.withDefault("catalogue-api")),
  maxLifetimeSeconds: positiveInt("ADMIN_JWT_MAX_LIFETIME_SECONDS", 900)
}).pipe(
  // Ed25519 keys come from one place: with two, removing a key from one would revoke nothing.
  Config.mapOrFail((jwt) =>
    Option.isSome(jwt.publicKey) && Option.isSome(jwt.jwksFile)
      ? Either.left(ConfigError.InvalidData(
        ["ADMIN_JWT_PUBLIC_KEY"],
        "is set together with ADMIN_JWT_JWKS_FILE; set only one of them (EdDSA keys come from exactly one source)"
      ))
      : Either.right(jwt)
  )
)

/**
 * Every setting of the service, read once at start. The README table mirrors it.
 * A check after a `Config.map` loses the variable's name, so such configs are built unnamed and
 * named last (`Config.nested(NAME)`): a bad value is then reported with its variable.
 */
export const AppConfigShape = Config.all({
  // 0 asks the system for a free port (tests).
  port: Config.integer("PORT").pipe(
    Config.validate({ message: "must be a port number from 0 to 65535", validation: (n) => n >= 0 && n <= 65535 }),
    Config.withDefault(3000)
  ),
  databaseUrl: postgresUrl,
  databasePoolSize: positiveInt("DATABASE_POOL_SIZE", 10),
  databaseStatementTimeoutMs: positiveInt("DATABASE_STATEMENT_TIMEOUT_MS", 5000),
  databaseAcquireTimeoutMs: positiveInt("DATABASE_ACQUIRE_TIMEOUT_MS", 1000),
  databaseDeadlineMarginMs: positiveInt("DATABASE_DEADLINE_MARGIN_MS", 1000),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./data")),
  demoSeedSongs: nonNegativeInt("DEMO_SEED_SONGS", 3000),
  memoryLimitMiB: nonNegativeInt("MEMORY_LIMIT_MIB", 240),
  cdnBaseUrl: httpUrl("CDN_BASE_URL", "https://cdn.example.com"),
  logLevel: Config.string().pipe(
    Config.map((text) => text.trim().toLowerCase()),
    Config.validate({
      message: `must be one of: ${Object.keys(LOG_LEVELS).join(", ")}`,
      validation: (text) => text in LOG_LEVELS
    }),
    Config.map((text) => LOG_LEVELS[text] ?? LogLevel.Info),
    Config.nested("LOG_LEVEL"),
    Config.withDefault(LogLevel.Info)
  ),
  logFormat: Config.literal("text", "json")("LOG_FORMAT").pipe(Config.withDefault("text" as const)),
  // Unset or empty: no tracing at all (OpenTelemetry's own rule for an empty variable).
  otlpEndpoint: Config.string().pipe(
    Config.map((url) => url.trim().replace(/\/+$/, "")),
    Config.validate({
      message: "must be an absolute http(s) URL of an OTLP/HTTP collector, like http://localhost:4318",
      validation: (url) => url === "" || (/^https?:\/\//.test(url) && URL.canParse(url))
    }),
    Config.nested("OTEL_EXPORTER_OTLP_ENDPOINT"),
    Config.option,
    Config.map(Option.filter((url) => url !== ""))
  ),
  serviceName: Config.string().pipe(
    Config.map((name) => name.trim()),
    Config.validate({ message: "must not be empty", validation: (name) => name !== "" }),
    Config.nested("OTEL_SERVICE_NAME"),
    Config.withDefault("catalogue-api")
  ),
  trustProxy: nonNegativeInt("TRUST_PROXY", 0),
  rateLimit: rateLimitConfig,
  cache: cacheConfig,
  corsStaffOrigins: Config.string().pipe(
    Config.map((text) => text.split(",").map((origin) => origin.trim()).filter((origin) => origin !== "")),
    Config.validate({
      message: "must be a comma-separated list of origins like https://staff.example.com",
      validation: (origins) => origins.every((origin) => /^https?:\/\/[^/\s]+$/.test(origin))
    }),
    Config.nested("CORS_STAFF_ORIGINS"),
    Config.withDefault([] as ReadonlyArray<string>)
  ),
  adminJwt: adminJwtConfig
})

export type AppConfigValues = Config.Config.Success<typeof AppConfigShape>

export class AppConfig extends Context.Tag("catalogue/AppConfig")<AppConfig, AppConfigValues>() {
  static readonly layer = Layer.effect(AppConfig, AppConfigShape)
}

/** One line naming the variable and what is wrong with it. */
export const describeConfigError = (error: ConfigError.ConfigError): string =>
  ConfigError.reduceWithContext(error, undefined, {
    andCase: (_, left, right) => [left, right].filter(Boolean).join("; "),
    orCase: (_, left, right) => [left, right].filter(Boolean).join("; "),
    invalidDataCase: (_, path, message) => `${path.join("_")}: ${message}`,
    missingDataCase: (_, path, message) => `${path.join("_")}: ${message}`,
    sourceUnavailableCase: (_, path, message) => `${path.join("_")}: ${message}`,
    unsupportedCase: (_, path, message) => `${path.join("_")}: ${message}`
  }) ?? String(error)

import { describe, expect, test } from "bun:test"
import { ConfigProvider, Effect } from "effect"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { AppConfigShape, describeConfigError } from "../src/Config.js"
import { spanAttributeLengthOf } from "../src/Telemetry/AttributeLimit.js"
import { spawnService } from "./support/child.js"
import { fromResult } from "./support/either.js"
import { databaseEnv } from "./support/database.js"
import { migratedDatabase } from "./support/template.js"

/** Every variable AppConfig asks the environment for, found by reading it through a recording provider. */
const variablesReadByConfig = (): Array<string> => {
  const asked = new Set<string>()
  const recording = ConfigProvider.make((path) => {
    asked.add(path.join("_"))
    return Effect.succeed(undefined)
  })
  Effect.runSync(Effect.result(AppConfigShape.parse(recording)))
  return [...asked].sort()
}

/** The names in the first column of the README's configuration table. */
const variablesInReadme = (): Array<string> => {
  const readme = readFileSync(resolve(import.meta.dir, "../README.md"), "utf8")
  const section = readme.split(/^## Configuration$/m)[1]?.split(/^## /m)[0] ?? ""
  return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((match) => match[1]!).sort()
}

/** Starts the service with `env` and expects it to stop at once with one line on stderr. */
const failedStart = async (env: Record<string, string>) => {
  const service = spawnService(env)
  const code = await service.exited
  const lines = service.stderr().trim().split("\n")
  return { code, lines, stdout: service.stdout() }
}

describe("configuration", () => {
  test("the README table documents exactly the variables the code reads", () => {
    const read = variablesReadByConfig()
    expect(read).toContain("PORT")
    expect(read).toContain("OTEL_EXPORTER_OTLP_ENDPOINT")
    expect(variablesInReadme()).toEqual(read)
  })

  test("settings are read only through Config: no process.env in src/ outside the seed CLI", () => {
    const glob = new Bun.Glob("**/*.ts")
    const offenders = [...glob.scanSync(resolve(import.meta.dir, "../src"))].filter(
      (file) => !file.startsWith("Seed/") && readFileSync(resolve(import.meta.dir, "../src", file), "utf8").includes("process.env")
    )
    expect(offenders).toEqual([])
  })

  test("PORT=abc stops the start with one line naming PORT, exit code 1, no stack trace", async () => {
    const { code, lines, stdout } = await failedStart({ PORT: "abc" })
    expect(code).toBe(1)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^cannot start: configuration: PORT: .*integer/)
    expect(stdout).toBe("")
  }, 30_000)

  test("a port out of range names PORT and the allowed range", async () => {
    const { code, lines } = await failedStart({ PORT: "70000" })
    expect(code).toBe(1)
    expect(lines).toEqual(["cannot start: configuration: PORT: must be a port number from 0 to 65535"])
  }, 30_000)

  test("a malformed DATABASE_URL names DATABASE_URL and never echoes its value", async () => {
    const { code, lines } = await failedStart({ DATABASE_URL: "mysql://admin:s3cret@db/catalogue" })
    expect(code).toBe(1)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^cannot start: configuration: DATABASE_URL: must be a postgres/)
    expect(lines[0]).not.toContain("s3cret")
  }, 30_000)

  test("a tracing endpoint that is not a URL names OTEL_EXPORTER_OTLP_ENDPOINT", async () => {
    const { code, lines } = await failedStart({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })
    expect(code).toBe(1)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^cannot start: configuration: OTEL_EXPORTER_OTLP_ENDPOINT: must be an absolute http/)
  }, 30_000)

  test("OTLP headers that cannot be read stop the start naming their variable, never their value", async () => {
    const { code, lines } = await failedStart({ OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%zzs3cret-token" })
    expect(code).toBe(1)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^cannot start: configuration: OTEL_EXPORTER_OTLP_HEADERS: /)
    expect(lines[0]).not.toContain("s3cret")
  }, 30_000)

  test("several bad values are named together on the one line", async () => {
    const { code, lines } = await failedStart({ PORT: "abc", LOG_LEVEL: "loud", LOG_FORMAT: "xml" })
    expect(code).toBe(1)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain("PORT")
    expect(lines[0]).toContain("LOG_LEVEL: must be one of: trace, debug, info, warn, error, fatal, none")
    expect(lines[0]).toContain("LOG_FORMAT")
  }, 30_000)

  test.each([
    [{ DATABASE_URL: "mysql://db/catalogue" }, "DATABASE_URL"],
    [{ LOG_LEVEL: "loud" }, "LOG_LEVEL"],
    [{ OTEL_SERVICE_NAME: " " }, "OTEL_SERVICE_NAME"],
    [{ RATE_LIMIT_REDIS_URL: "localhost:6379" }, "RATE_LIMIT_REDIS_URL"],
    [{ RATE_LIMIT_REDIS_URL: "unix:///run/redis.sock" }, "RATE_LIMIT_REDIS_URL"],
    [{ ADMIN_JWT_SECRET: "short" }, "ADMIN_JWT_SECRET"],
    [{ ADMIN_JWT_PUBLIC_KEY: "ssh-ed25519 AAAA" }, "ADMIN_JWT_PUBLIC_KEY"],
    [{ ADMIN_JWT_PUBLIC_KEY: "-----BEGIN PUBLIC KEY-----", ADMIN_JWT_JWKS_FILE: "/etc/staff-jwks.json" }, "ADMIN_JWT_PUBLIC_KEY"],
    [{ CORS_STAFF_ORIGINS: "staff.example.com/path" }, "CORS_STAFF_ORIGINS"],
    [{ OTEL_SDK_DISABLED: "maybe" }, "OTEL_SDK_DISABLED"],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "collector:4318/v1/traces" }, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"],
    [{ OTEL_LOGS_EXPORTER: "console" }, "OTEL_LOGS_EXPORTER"],
    [{ OTEL_EXPORTER_OTLP_METRICS_HEADERS: "api-key" }, "OTEL_EXPORTER_OTLP_METRICS_HEADERS"],
    [{ OTEL_EXPORTER_OTLP_COMPRESSION: "br" }, "OTEL_EXPORTER_OTLP_COMPRESSION"],
    [{ OTEL_EXPORTER_OTLP_TIMEOUT: "0" }, "OTEL_EXPORTER_OTLP_TIMEOUT"],
    [{ OTEL_RESOURCE_ATTRIBUTES: "team=%zz" }, "OTEL_RESOURCE_ATTRIBUTES"],
    [{ OTEL_TRACES_SAMPLER: "jaeger_remote" }, "OTEL_TRACES_SAMPLER"],
    [{ OTEL_TRACES_SAMPLER_ARG: "1.5" }, "OTEL_TRACES_SAMPLER_ARG"],
    [{ OTEL_BSP_SCHEDULE_DELAY: "soon" }, "OTEL_BSP_SCHEDULE_DELAY"],
    [{ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "0" }, "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"],
    [{ OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: "long" }, "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT"]
  ])("a bad %o is reported with the name %s", (env, name) => {
    const result = fromResult(Effect.runSync(Effect.result(AppConfigShape.parse(ConfigProvider.fromEnv({ env })))))
    expect(result._tag).toBe("Left")
    if (result._tag === "Left") expect(describeConfigError(result.left)).toStartWith(`${name}: `)
  })

  test.each([
    [{}, 1024],
    [{ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "300" }, 300],
    [{ OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT: "300", OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT: "80" }, 80]
  ])("span attributes are cut at %o: %d characters", (env, limit) => {
    const result = fromResult(Effect.runSync(Effect.result(AppConfigShape.parse(ConfigProvider.fromEnv({ env })))))
    expect(result._tag).toBe("Right")
    if (result._tag === "Right") expect(spanAttributeLengthOf(result.right.telemetry)).toBe(limit)
  })

  test("two sources of EdDSA keys at once stop the start with one line naming both variables", () => {
    const env = { ADMIN_JWT_PUBLIC_KEY: "-----BEGIN PUBLIC KEY-----", ADMIN_JWT_JWKS_FILE: "/etc/staff-jwks.json" }
    const result = fromResult(Effect.runSync(Effect.result(AppConfigShape.parse(ConfigProvider.fromEnv({ env })))))
    expect(result._tag).toBe("Left")
    if (result._tag === "Left") {
      const line = describeConfigError(result.left)
      expect(line).toContain("ADMIN_JWT_PUBLIC_KEY")
      expect(line).toContain("ADMIN_JWT_JWKS_FILE")
    }
  })

  test("an unreadable key file stops the start with one line naming its variable", async () => {
    const database = await migratedDatabase()
    try {
      const { code, lines } = await failedStart({
        ...databaseEnv(database),
        ADMIN_JWT_JWKS_FILE: "/nonexistent/staff-jwks.json"
      })
      expect(code).toBe(1)
      expect(lines).toEqual([
        "cannot start: configuration: ADMIN_JWT_JWKS_FILE: /nonexistent/staff-jwks.json is not a readable JWKS file"
      ])
    } finally {
      await database.drop()
    }
  }, 60_000)

  test("an unreachable PostgreSQL stops the start with one line, not a stack trace", async () => {
    const { code, lines } = await failedStart({ DATABASE_URL: "postgres://postgres:pw@127.0.0.1:1/catalogue" })
    expect(code).toBe(1)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^cannot start: database: .*ECONNREFUSED/)
    expect(lines[0]).not.toContain("pw@")
  }, 30_000)

  test("an embedded data directory in use by a live process stops the start with one clear line", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "catalogue-locked-"))
    try {
      // This test process is alive: the lock file says it holds the directory.
      writeFileSync(join(dataDir, "catalogue.lock"), String(process.pid))
      const { code, lines } = await failedStart({ DATA_DIR: dataDir })
      expect(code).toBe(1)
      expect(lines).toEqual([
        `cannot start: database: The embedded database in ${dataDir} is in use by process ${process.pid}. ` +
        "Stop it, or point DATA_DIR at another directory."
      ])
      expect(readFileSync(join(dataDir, "catalogue.lock"), "utf8")).toBe(String(process.pid))
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 30_000)
})

import { describe, expect, test } from "bun:test"
import { testWhen } from "./support/skips.js"
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { deployFiles } from "../cluster/deployFiles.js"
import { panelTargets } from "../cluster/monitoring/dashboard.js"
import { SCENARIOS } from "../cluster/monitoring/ruleTests.js"
import { ALERTS, RECORDED, ruleGroups, DEFAULT_RUNBOOK_BASE } from "../cluster/monitoring/rules.js"

const ROOT = resolve(import.meta.dir, "..")
const read = (path: string) => readFileSync(resolve(ROOT, path), "utf8")
const installed = (command: string) => spawnSync("sh", ["-c", `command -v ${command}`]).status === 0
const run = (command: string, args: ReadonlyArray<string>) => {
  const result = spawnSync(command, args, { cwd: ROOT, encoding: "utf8" })
  return { status: result.status, output: `${result.stdout}${result.stderr}` }
}

/** The names in the first column of the README's configuration table. */
const documented = new Set(
  [...(read("README.md").split(/^## Configuration$/m)[1]?.split(/^## /m)[0] ?? "").matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!)
)

/** The anchors GitHub gives the headings of a Markdown file. */
const anchorsOf = (markdown: string) =>
  new Set(
    [...markdown.matchAll(/^#{1,6} (.+)$/gm)].map((m) =>
      m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replace(/ /g, "-")
    )
  )

const MONITORING = "deploy/monitoring"
const TEST_FILES = Object.keys(deployFiles()).filter((path) => path.startsWith(`${MONITORING}/tests/`))

describe("the deployment recipe (deploy/)", () => {
  test("every generated file of deploy/ is what the cluster's own code writes (bun cluster/deployFiles.ts)", () => {
    for (const [path, text] of Object.entries(deployFiles())) expect({ path, text: read(path) }).toEqual({ path, text })
  })

  test("deploy/haproxy.cfg checks readiness and retries idempotent requests; its 503s say Retry-After", () => {
    const config = read("deploy/haproxy.cfg")
    // the health check on readiness and the retries of idempotent requests are what it is for
    expect(config).toContain("option httpchk GET /v1/health/ready")
    expect(config).toContain("http-check expect status 200")
    expect(config).toMatch(/^ {2}retry-on conn-failure empty-response response-timeout 503$/m)
    expect(config).toMatch(/^ {2}option redispatch 1$/m)
    const own503s = config.split("\n").filter((line) => /status 503/.test(line))
    expect(own503s.length).toBe(2)
    for (const line of own503s) expect(line).toContain("hdr retry-after 5")
  })

  test("deploy/nginx.conf serves a stale copy when the balancer fails, logs the trace, and its own 503 says Retry-After", () => {
    const config = read("deploy/nginx.conf")
    expect(config).toMatch(/^ {6}proxy_cache_use_stale error timeout updating http_500 http_502 http_503 http_504;$/m)
    expect(config).toMatch(/^ {6}proxy_cache_background_update on;$/m)
    expect(config).toContain("traceparent=$sent_http_traceparent")
    expect(config).toContain("error_page 502 504 =503 @unavailable;")
    expect(config).toMatch(/return 503 '\{"error":\{"code":"internal_error"/)
    expect(config).toMatch(/add_header Retry-After 5 always;/)
  })

  testWhen(installed("haproxy"), "haproxy is not installed")("haproxy accepts deploy/haproxy.cfg", () => {
    const result = spawnSync("haproxy", ["-c", "-f", "deploy/haproxy.cfg"], { cwd: ROOT, encoding: "utf8" })
    expect(result.stdout + result.stderr).toContain("Configuration file is valid")
    // the only warnings allowed: the compose services' names do not resolve here
    const warnings = result.stderr.split("\n").filter((line) => line.includes("[WARNING]"))
    expect(warnings.filter((line) => !/could not resolve address 'replica\d'/.test(line))).toEqual([])
    expect(result.status).toBe(0)
  })

  test("every setting the compose file gives the service is in the README's configuration table", () => {
    const compose = read("deploy/compose.yaml")
    const replicaEnv = compose.split("x-replica-env: &replica-env")[1]!.split(/\n\S/)[0]!
    const perReplica = [...compose.matchAll(/<<: \*replica-env\n((?: {6}.+\n)+)/g)].map((m) => m[1]!).join("\n")
    const migrateEnv = compose.split("\n  migrate:\n    build:")[1]!.split("environment:")[1]!.split("depends_on:")[0]!
    const names = [...`${replicaEnv}\n${perReplica}\n${migrateEnv}`.matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]!)
    expect(names).toContain("DATABASE_URL")
    expect(names).toContain("METRICS")
    expect(names.length).toBeGreaterThan(5)
    expect(names.filter((name) => !documented.has(name))).toEqual([])
  })

  test("the compose file: nginx before HAProxy with both hops counted, two standbys under the replicas, pinned images, memory limits", () => {
    const compose = read("deploy/compose.yaml")
    expect(compose).toMatch(/^ {2}TRUST_PROXY: "2"$/m)
    expect(compose).toContain("./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro")
    expect(compose).toContain("./nginx.conf:/etc/catalogue/nginx.conf:ro")
    // the obsolete top-level version key is gone
    expect(compose).not.toMatch(/^version:/m)
    // every image names a release (major.minor at least), none a moving tag
    const images = [...compose.matchAll(/^\s+image: (\S+)$/gm)].map((m) => m[1]!).filter((image) => image !== "catalogue-api")
    expect(images.length).toBeGreaterThan(6)
    for (const image of images) expect(image).toMatch(/:v?\d+\.\d+(\.\d+)?$/)
    // each replica reads one of two standbys, and both are read
    const reads = [...compose.matchAll(/DATABASE_URL: postgres:\/\/\S+@(standby\d):5432/g)].map((m) => m[1]!)
    expect(reads.length).toBe(3)
    expect(new Set(reads)).toEqual(new Set(["standby1", "standby2"]))
    // the container's memory limit is above the service's own soft limit
    const limitMiB = Number(/^ {2}MEMORY_LIMIT_MIB: "(\d+)"$/m.exec(compose)![1])
    const containerMiB = Number(/^ {2}mem_limit: (\d+)m$/m.exec(compose)![1])
    expect(containerMiB).toBeGreaterThanOrEqual(limitMiB + 64)
  })

  testWhen(installed("docker-compose"), "docker-compose is not installed")("docker-compose accepts the compose file, with and without the monitoring profile", () => {
    for (const profile of [[], ["--profile", "monitoring"]]) {
      const result = spawnSync("docker-compose", ["-f", "deploy/compose.yaml", ...profile, "config", "-q"], { cwd: ROOT, encoding: "utf8" })
      expect(result.stderr).toBe("")
      expect(result.status).toBe(0)
    }
  })
})

describe("monitoring (deploy/monitoring/)", () => {
  testWhen(installed("promtool"), "promtool is not installed")("promtool accepts the Prometheus configuration and the rules", () => {
    const config = run("promtool", ["check", "config", `${MONITORING}/prometheus.yml`])
    expect(config.output).toContain("SUCCESS")
    expect(config.status).toBe(0)
    const rules = run("promtool", ["check", "rules", `${MONITORING}/rules/catalogue-api.rules.yml`])
    expect(rules.output).toContain(`SUCCESS: ${ruleGroups({ timeScale: 1, runbookBase: "" }).groups.reduce((count, group) => count + group.rules.length, 0)} rules found`)
    expect(rules.status).toBe(0)
  })

  testWhen(installed("promtool"), "promtool is not installed")("promtool's unit tests of every alert pass: each fires when it should and stays silent when it should not", () => {
    const result = run("promtool", ["test", "rules", ...TEST_FILES])
    expect(result.output).not.toContain("FAILED")
    expect(result.status).toBe(0)
    for (const alert of ALERTS) {
      const scenarios = SCENARIOS.filter((scenario) => scenario.alert === alert.alert)
      expect({ alert: alert.alert, fires: scenarios.some((s) => s.firing.length > 0), silent: scenarios.some((s) => s.firing.length === 0) })
        .toEqual({ alert: alert.alert, fires: true, silent: true })
    }
  }, 120_000)

  test("every alert has a summary, a description and a runbook_url whose section is in docs/operations.md", () => {
    const anchors = anchorsOf(read("docs/operations.md"))
    const rules = read(`${MONITORING}/rules/catalogue-api.rules.yml`)
    const alerts = [...rules.matchAll(/^ {6}- alert: (\S+)$/gm)].map((m) => m[1]!)
    expect(alerts).toEqual(ALERTS.map((alert) => alert.alert))
    const urls = [...rules.matchAll(/^ {10}runbook_url: (\S+)$/gm)].map((m) => m[1]!)
    expect(urls.length).toBe(alerts.length)
    for (const url of urls) {
      const [page, anchor] = url.split("#")
      expect(page).toBe(DEFAULT_RUNBOOK_BASE)
      expect({ url, found: anchors.has(anchor!) }).toEqual({ url, found: true })
    }
    expect([...rules.matchAll(/^ {10}summary: /gm)].length).toBe(alerts.length)
    expect([...rules.matchAll(/^ {10}description: /gm)].length).toBe(alerts.length)
  })

  test("the dashboard reads only recording rules that exist, with the instance and route variables", () => {
    const targets = panelTargets()
    expect(targets.length).toBeGreaterThan(15)
    for (const target of targets) {
      for (const [name] of target.expr.matchAll(/\b[a-z_]+:[a-z_]+:[a-z_0-9]+\b/g)) expect({ panel: target.panel, name, recorded: RECORDED.includes(name) }).toEqual({ panel: target.panel, name, recorded: true })
      expect({ panel: target.panel, filtered: target.expr.includes(`instance=~"$instance"`) || target.expr.includes("ratio_rate") })
        .toEqual({ panel: target.panel, filtered: true })
    }
    const json = JSON.parse(read(`${MONITORING}/grafana/dashboards/catalogue-api.json`))
    expect(json.templating.list.map((variable: { name: string }) => variable.name)).toEqual(["datasource", "instance", "route"])
    // the provisioned dashboards are where Grafana is told to look
    expect(read(`${MONITORING}/grafana/provisioning/dashboards/catalogue-api.yml`)).toContain("path: /etc/grafana/dashboards")
    expect(read("deploy/compose.yaml")).toContain("./monitoring/grafana/dashboards:/etc/grafana/dashboards:ro")
  })
})

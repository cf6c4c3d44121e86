import { describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { haproxyConfig } from "../cluster/haproxy.js"
import { nginxConfig } from "../cluster/nginx.js"

const ROOT = resolve(import.meta.dir, "..")
const read = (path: string) => readFileSync(resolve(ROOT, path), "utf8")
const installed = (command: string) => spawnSync("sh", ["-c", `command -v ${command}`]).status === 0

/** The names in the first column of the README's configuration table. */
const documented = new Set(
  [...(read("README.md").split(/^## Configuration$/m)[1]?.split(/^## /m)[0] ?? "").matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!)
)

/** The compose services' own texts: deploy/nginx.conf and deploy/haproxy.cfg are written from these. */
const composeFront = () => nginxConfig({ listen: "8080", balancer: "balancer:8081", cacheDir: "/var/cache/nginx/catalogue" })
const composeBalancer = () =>
  haproxyConfig({
    listen: ":8081",
    servers: [1, 2, 3].map((n) => ({ name: `replica${n}`, address: `replica${n}:3000` })),
    // Docker's DNS: a replica recreated with another address is found again
    resolver: "127.0.0.11:53"
  })

describe("the deployment recipe (deploy/)", () => {
  test("deploy/nginx.conf is the cluster's own front cache, written for the compose services", () => {
    expect(read("deploy/nginx.conf")).toBe(composeFront())
  })

  test("deploy/haproxy.cfg is the cluster's own balancer, written for the compose services", () => {
    const config = read("deploy/haproxy.cfg")
    expect(config).toBe(composeBalancer())
    // the health check on readiness and the retries of idempotent requests are what it is for
    expect(config).toContain("option httpchk GET /v1/health/ready")
    expect(config).toContain("http-check expect status 200")
    expect(config).toMatch(/^ {2}retry-on conn-failure empty-response response-timeout 503$/m)
    expect(config).toMatch(/^ {2}option redispatch 1$/m)
  })

  test.skipIf(!installed("haproxy"))("haproxy accepts deploy/haproxy.cfg", () => {
    const result = spawnSync("haproxy", ["-c", "-f", "deploy/haproxy.cfg"], { cwd: ROOT, encoding: "utf8" })
    expect(result.stdout + result.stderr).toContain("Configuration file is valid")
    // the only warnings allowed: the compose services' names do not resolve here
    const warnings = result.stderr.split("\n").filter((line) => line.includes("[WARNING]"))
    expect(warnings.filter((line) => !/could not resolve address 'replica\d'/.test(line))).toEqual([])
    expect(result.status).toBe(0)
  })

  test("every setting the compose file gives the service is in the README's configuration table", () => {
    const compose = read("deploy/compose.yaml")
    const replicaEnv = compose.split("environment: &replica-env")[1]!.split(/\n  [a-z_]+:/)[0]!
    const migrateEnv = compose.split("  migrate:")[1]!.split("environment:")[1]!.split("depends_on:")[0]!
    const names = [...`${replicaEnv}\n${migrateEnv}`.matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]!)
    expect(names.length).toBeGreaterThan(5)
    expect(names.filter((name) => !documented.has(name))).toEqual([])
  })

  test("the compose file puts nginx before HAProxy and counts both hops (TRUST_PROXY=2)", () => {
    const compose = read("deploy/compose.yaml")
    expect(compose).toMatch(/^ {4}TRUST_PROXY: "2"$/m)
    expect(compose).toContain("./haproxy.cfg:/usr/local/etc/haproxy/haproxy.cfg:ro")
    expect(compose).toContain("./nginx.conf:/etc/catalogue/nginx.conf:ro")
  })

  test.skipIf(!installed("docker-compose"))("docker-compose accepts the compose file", () => {
    const result = spawnSync("docker-compose", ["-f", "deploy/compose.yaml", "config", "-q"], { cwd: ROOT, encoding: "utf8" })
    expect(result.stderr).toBe("")
    expect(result.status).toBe(0)
  })
})

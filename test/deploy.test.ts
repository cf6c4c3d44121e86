import { describe, expect, test } from "bun:test"
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { resolve } from "node:path"
import { nginxConfig } from "../cluster/nginx.js"

const ROOT = resolve(import.meta.dir, "..")
const read = (path: string) => readFileSync(resolve(ROOT, path), "utf8")

/** The names in the first column of the README's configuration table. */
const documented = new Set(
  [...(read("README.md").split(/^## Configuration$/m)[1]?.split(/^## /m)[0] ?? "").matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1]!)
)

describe("the deployment recipe (deploy/)", () => {
  test("deploy/nginx.conf is the cluster's own front, written for the compose services", () => {
    expect(read("deploy/nginx.conf")).toBe(
      nginxConfig({ listen: "8080", upstreams: ["replica1:3000", "replica2:3000", "replica3:3000"], cacheDir: "/var/cache/nginx/catalogue" })
    )
  })

  test("every setting the compose file gives the service is in the README's configuration table", () => {
    const compose = read("deploy/compose.yaml")
    const replicaEnv = compose.split("environment: &replica-env")[1]!.split(/\n  [a-z_]+:/)[0]!
    const migrateEnv = compose.split("  migrate:")[1]!.split("environment:")[1]!.split("depends_on:")[0]!
    const names = [...`${replicaEnv}\n${migrateEnv}`.matchAll(/^\s+([A-Z][A-Z0-9_]*):/gm)].map((m) => m[1]!)
    expect(names.length).toBeGreaterThan(5)
    expect(names.filter((name) => !documented.has(name))).toEqual([])
  })

  const compose = spawnSync("sh", ["-c", "command -v docker-compose"]).status === 0
  test.skipIf(!compose)("docker-compose accepts the compose file", () => {
    const result = spawnSync("docker-compose", ["-f", "deploy/compose.yaml", "config", "-q"], { cwd: ROOT, encoding: "utf8" })
    expect(result.stderr).toBe("")
    expect(result.status).toBe(0)
  })
})

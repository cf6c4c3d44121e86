/**
 * The files of deploy/ that are written from the cluster's own code, for the compose services:
 * nginx's and HAProxy's configurations, and the monitoring profile's Prometheus configuration,
 * rules, rule tests and Grafana dashboard. `bun cluster/deployFiles.ts` writes them;
 * test/deploy.test.ts keeps deploy/ equal to them. RUNBOOK_BASE_URL, when set, is where
 * docs/operations.md is published (each alert's runbook_url starts with it).
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, resolve } from "node:path"
import { haproxyConfig } from "./haproxy.js"
import { dashboardFile } from "./monitoring/dashboard.js"
import { prometheusConfig } from "./monitoring/prometheus.js"
import { ruleTestFiles } from "./monitoring/ruleTests.js"
import { DEFAULT_RUNBOOK_BASE, rulesFile } from "./monitoring/rules.js"
import { nginxConfig } from "./nginx.js"

/** The compose recipe's replicas and the standby each reads (deploy/compose.yaml): two standbys, the replicas spread over them. */
export const COMPOSE_REPLICAS = [
  { name: "replica1", standby: "standby1" },
  { name: "replica2", standby: "standby2" },
  { name: "replica3", standby: "standby1" }
] as const

/** The metrics port the replicas listen on (METRICS_PORT's default). */
export const COMPOSE_METRICS_PORT = 9464

const RULES = "rules/catalogue-api.rules.yml"

export const deployFiles = (runbookBase = DEFAULT_RUNBOOK_BASE): Record<string, string> => ({
  "deploy/nginx.conf": nginxConfig({ listen: "8080", balancer: "balancer:8081", cacheDir: "/var/cache/nginx/catalogue" }),
  "deploy/haproxy.cfg": haproxyConfig({
    listen: ":8081",
    servers: COMPOSE_REPLICAS.map((replica) => ({ name: replica.name, address: `${replica.name}:3000` })),
    // Docker's DNS: a replica recreated with another address is found again
    resolver: "127.0.0.11:53"
  }),
  "deploy/monitoring/prometheus.yml": prometheusConfig({
    scrapeIntervalSeconds: 15,
    evaluationIntervalSeconds: 15,
    // beside the configuration: /etc/prometheus/rules in the container, deploy/monitoring/rules here
    ruleFiles: [RULES],
    targets: COMPOSE_REPLICAS.map((replica) => ({
      address: `${replica.name}:${COMPOSE_METRICS_PORT}`,
      labels: { replica: replica.name, standby: replica.standby }
    })),
    self: "localhost:9090"
  }),
  [`deploy/monitoring/${RULES}`]: rulesFile({ timeScale: 1, runbookBase }),
  ...Object.fromEntries(
    Object.entries(ruleTestFiles(`../${RULES}`, runbookBase)).map(([name, text]) => [`deploy/monitoring/tests/${name}`, text])
  ),
  "deploy/monitoring/grafana/dashboards/catalogue-api.json": dashboardFile()
})

if (import.meta.main) {
  const root = resolve(import.meta.dir, "..")
  for (const [path, text] of Object.entries(deployFiles(process.env.RUNBOOK_BASE_URL ?? DEFAULT_RUNBOOK_BASE))) {
    mkdirSync(dirname(resolve(root, path)), { recursive: true })
    writeFileSync(resolve(root, path), text)
    console.log(`wrote ${path}`)
  }
}

/**
 * Prometheus's configuration for the service: every replica's metrics port scraped under one job
 * (the rules and the dashboard read it), and the rule files. deploy/monitoring/prometheus.yml is
 * this for the compose services (cluster/deployFiles.ts); the cluster suite writes its own for the
 * replicas on loopback.
 */
import { JOB, promDuration } from "./rules.js"
import { toYaml } from "./yaml.js"

export interface ScrapeTarget {
  /** host:port of a replica's METRICS_PORT */
  readonly address: string
  /** added to every series of the target: which replica, which standby it reads */
  readonly labels: Readonly<Record<string, string>>
}

export interface PrometheusOptions {
  readonly scrapeIntervalSeconds: number
  readonly evaluationIntervalSeconds: number
  readonly ruleFiles: ReadonlyArray<string>
  readonly targets: ReadonlyArray<ScrapeTarget>
  /** Prometheus's own address, scraped as job "prometheus"; none: not scraped */
  readonly self?: string
}

export const prometheusConfig = (options: PrometheusOptions) =>
  toYaml(
    {
      global: {
        scrape_interval: promDuration(options.scrapeIntervalSeconds),
        scrape_timeout: promDuration(Math.min(10, options.scrapeIntervalSeconds)),
        evaluation_interval: promDuration(options.evaluationIntervalSeconds)
      },
      rule_files: options.ruleFiles,
      scrape_configs: [
        {
          job_name: JOB,
          metrics_path: "/metrics",
          static_configs: options.targets.map((target) => ({ targets: [target.address], labels: target.labels }))
        },
        ...(options.self === undefined ? [] : [{ job_name: "prometheus", static_configs: [{ targets: [options.self] }] }])
      ]
    },
    [
      "Prometheus for the catalogue API: each replica's metrics port (METRICS=prometheus, METRICS_PORT, path /metrics).",
      "Written by cluster/monitoring/prometheus.ts (bun cluster/deployFiles.ts); docs/operations.md, \"Dashboards\"."
    ]
  )

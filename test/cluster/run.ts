/**
 * `bun run test:cluster`: starts a cluster of its own (cluster/Cluster.ts) in a fresh directory,
 * runs test/cluster/*.cluster.ts against it, and stops it whatever happens (signals included).
 */
import { readdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { startCluster, stopCluster } from "../../cluster/Cluster.js"
import { TEST_SECRET } from "../support/tokens.js"

const dir = join(tmpdir(), `catalogue-cluster-test-${process.pid}`)
let stopped = false
const stop = () => {
  if (stopped) return
  stopped = true
  stopCluster(dir)
}
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    stop()
    process.exit(130)
  })
}

let code = 1
try {
  await startCluster({
    dir,
    basePort: Number(process.env.CLUSTER_BASE_PORT ?? 15500),
    replicaEnv: { ADMIN_JWT_SECRET: TEST_SECRET, CACHE_TTL_SECONDS: "0" },
    // Prometheus scrapes every second, and its rules run with every window and `for:` twelve times
    // shorter (a 2-minute `for:` is 10 s), so that the monitoring test sees alerts come and go
    monitoring: { scrapeIntervalSeconds: 1, ruleTimeScale: 1 / 12 },
    fixtureDir: join(import.meta.dir, "../fixture"),
    log: (line) => console.log(`cluster: ${line}`)
  })
  const files = process.argv.length > 2
    ? process.argv.slice(2)
    : readdirSync(import.meta.dir).filter((file) => file.endsWith(".cluster.ts")).sort().map((file) => `./test/cluster/${file}`)
  const child = Bun.spawn(["bun", "test/run.ts", ...files], {
    env: { ...process.env, CLUSTER_DIR: dir },
    stdout: "inherit",
    stderr: "inherit"
  })
  code = await child.exited
} catch (error) {
  console.error(`test:cluster: ${error instanceof Error ? error.message : String(error)}`)
} finally {
  stop()
}
process.exit(code)

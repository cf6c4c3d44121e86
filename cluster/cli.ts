/**
 * `bun run cluster start|stop|status [--replicas N] [--songs N | --fixture DIR]`: the whole deployment on this
 * machine (cluster/Cluster.ts, docs/deploy.md). CLUSTER_DIR and CLUSTER_BASE_PORT move it.
 */
import { clusterStatus, DEFAULT_DIR, startCluster, stopCluster } from "./Cluster.js"

const [command, ...rest] = process.argv.slice(2)
const option = (name: string) => {
  const at = rest.indexOf(name)
  return at === -1 ? undefined : Number(rest[at + 1])
}
const dir = process.env.CLUSTER_DIR ?? DEFAULT_DIR

switch (command) {
  case "start": {
    const replicas = option("--replicas")
    const songs = option("--songs")
    const fixtureAt = rest.indexOf("--fixture")
    const fixtureDir = fixtureAt === -1 ? undefined : rest[fixtureAt + 1]
    const passedOn = (name: string) => ["ADMIN_JWT_SECRET", "CACHE_TTL_SECONDS", "METRICS"].includes(name) || name.startsWith("OTEL_")
    const replicaEnv = Object.fromEntries(
      Object.entries(process.env).flatMap(([name, value]) => (value !== undefined && passedOn(name) ? [[name, value]] : []))
    )
    try {
      const state = await startCluster({
        dir,
        replicaEnv,
        ...(replicas === undefined ? {} : { replicas }),
        ...(songs === undefined ? {} : { songs }),
        ...(fixtureDir === undefined ? {} : { fixtureDir })
      })
      console.log(`cluster up in ${state.dir}; stop it with: bun run cluster stop`)
    } catch (error) {
      console.error(`cluster: ${error instanceof Error ? error.message : String(error)}`)
      process.exit(1)
    }
    break
  }
  case "stop":
    console.log(stopCluster(dir) ? "cluster stopped" : `no cluster in ${dir}`)
    break
  case "status":
    for (const line of clusterStatus(dir)) console.log(line)
    break
  default:
    console.error("usage: bun run cluster start [--replicas N] [--songs N | --fixture DIR] | stop | status")
    process.exit(2)
}

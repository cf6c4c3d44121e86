/**
 * A whole deployment on one machine, on loopback: a PostgreSQL primary, two streaming hot
 * standbys (pg_basebackup -R), Redis for the shared rate limit, service replicas reading the
 * standbys, HAProxy balancing over them with health checks, nginx in front of it as HTTP
 * cache, and Prometheus scraping the replicas' metrics ports with the service's rules.
 * Everything it starts is recorded in the cluster's directory (cluster.json and pid files) so
 * that `stop` ends it all.
 */
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { chownSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir, userInfo } from "node:os"
import { join, resolve } from "node:path"
import { createConnection } from "node:net"
import { haproxyConfig } from "./haproxy.js"
import { prometheusConfig } from "./monitoring/prometheus.js"
import { DEFAULT_RUNBOOK_BASE, rulesFile } from "./monitoring/rules.js"
import { nginxConfig } from "./nginx.js"

const ROOT = resolve(import.meta.dir, "..")
const PG_BIN = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin"
const DATABASE = "catalogue"
/** The process owning the database clusters: PostgreSQL refuses to run as root. */
const IS_ROOT = userInfo().uid === 0
const PG_USER = "postgres"

export interface ReplicaSpec {
  readonly name: string
  readonly port: number
  /** which database it reads: "standby1", "standby2" or "primary" */
  readonly reads: DatabaseName
  /** its Prometheus listener (METRICS_PORT) when the replicas run with METRICS=prometheus; unset: any free port */
  readonly metricsPort?: number
}

export type DatabaseName = "primary" | "standby1" | "standby2"

export interface ClusterState {
  readonly dir: string
  readonly ports: Record<DatabaseName | "redis" | "proxy" | "balancer" | "prometheus", number>
  readonly replicas: ReadonlyArray<ReplicaSpec>
  readonly monitoring: MonitoringOptions
  /** settings every replica starts with, on top of its port and database */
  readonly replicaEnv: Readonly<Record<string, string>>
}

/** How the cluster's Prometheus runs: its scrape (and evaluation) interval, and the rules' time scale (cluster/monitoring/rules.ts). */
export interface MonitoringOptions {
  readonly scrapeIntervalSeconds: number
  /** 1: the recipe's rules; less: every window and `for:` shortened alike (the suite's) */
  readonly ruleTimeScale: number
}

export interface ClusterOptions {
  readonly dir?: string
  readonly basePort?: number
  readonly replicas?: number
  readonly songs?: number
  /** load these SQL files (sorted) instead of seeding the demo catalogue: the tests' fixture */
  readonly fixtureDir?: string
  /** extra settings for the replicas (ADMIN_JWT_SECRET, CACHE_TTL_SECONDS, ...) */
  readonly replicaEnv?: Readonly<Record<string, string>>
  readonly monitoring?: MonitoringOptions
  readonly log?: (line: string) => void
}

export const DEFAULT_DIR = join(tmpdir(), "catalogue-cluster")
const STATE_FILE = "cluster.json"

export const databaseUrl = (state: ClusterState, name: DatabaseName) =>
  `postgres://postgres@127.0.0.1:${state.ports[name]}/${DATABASE}`
export const proxyUrl = (state: ClusterState) => `http://127.0.0.1:${state.ports.proxy}`
export const balancerUrl = (state: ClusterState) => `http://127.0.0.1:${state.ports.balancer}`
export const replicaUrl = (replica: ReplicaSpec) => `http://127.0.0.1:${replica.port}`
export const replicaMetricsUrl = (replica: ReplicaSpec) => `http://127.0.0.1:${replica.metricsPort}/metrics`
export const redisUrl = (state: ClusterState) => `redis://127.0.0.1:${state.ports.redis}`
export const prometheusUrl = (state: ClusterState) => `http://127.0.0.1:${state.ports.prometheus}`

export const readState = (dir = DEFAULT_DIR): ClusterState | undefined => {
  const file = join(dir, STATE_FILE)
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as ClusterState) : undefined
}

const run = (command: string, args: ReadonlyArray<string>, options: { asPostgres?: boolean; env?: Record<string, string> } = {}) => {
  const [file, argv] = options.asPostgres && IS_ROOT ? ["runuser", ["-u", PG_USER, "--", command, ...args]] : [command, [...args]]
  const result = spawnSync(file, argv, { encoding: "utf8", env: { ...process.env, ...options.env } })
  if (result.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed (${result.status}): ${result.stderr || result.stdout}`)
  }
  return result.stdout
}

const pg = (tool: string, args: ReadonlyArray<string>) => run(join(PG_BIN, tool), args, { asPostgres: true })

const ownedByPostgres = (path: string) => {
  mkdirSync(path, { recursive: true, mode: 0o700 })
  if (IS_ROOT) {
    const uid = Number(execFileSync("id", ["-u", PG_USER], { encoding: "utf8" }).trim())
    const gid = Number(execFileSync("id", ["-g", PG_USER], { encoding: "utf8" }).trim())
    chownSync(path, uid, gid)
  }
}

/** Debian's packages the cluster needs, installed when missing (.ci/run installs them too). */
export const ensureTools = () => {
  const missing = [["nginx", "nginx-light"], ["haproxy", "haproxy"], ["redis-server", "redis-server"], ["prometheus", "prometheus"]]
    .filter(([command]) => spawnSync("sh", ["-c", `command -v ${command}`]).status !== 0)
    .map(([, pkg]) => pkg!)
  if (missing.length > 0) {
    const install = () => spawnSync("apt-get", ["install", "-y", "-qq", ...missing], { stdio: "inherit" }).status === 0
    if (!install()) {
      spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit" })
      if (!install()) throw new Error(`could not install ${missing.join(", ")}`)
    }
  }
  if (!existsSync(join(PG_BIN, "pg_ctl"))) throw new Error(`no PostgreSQL binaries in ${PG_BIN} (set PG_BIN)`)
}

const pgDir = (state: ClusterState, name: DatabaseName) => join(state.dir, name)

const startDatabase = (state: ClusterState, name: DatabaseName) =>
  pg("pg_ctl", ["-D", pgDir(state, name), "-l", join(pgDir(state, name), "server.log"), "-w", "-t", "60", "start"])

export const stopDatabase = (state: ClusterState, name: DatabaseName, mode: "fast" | "immediate" = "fast") => {
  if (existsSync(join(pgDir(state, name), "postmaster.pid"))) pg("pg_ctl", ["-D", pgDir(state, name), "-m", mode, "-w", "stop"])
}

export const restartDatabase = (state: ClusterState, name: DatabaseName) => startDatabase(state, name)

const psql = (state: ClusterState, name: DatabaseName, sql: string, database = DATABASE) =>
  run(join(PG_BIN, "psql"), ["-h", "127.0.0.1", "-p", String(state.ports[name]), "-U", "postgres", "-d", database, "-Atqc", sql])

const initPrimary = (state: ClusterState) => {
  const dir = pgDir(state, "primary")
  ownedByPostgres(dir)
  pg("initdb", ["-D", dir, "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8"])
  writeFileSync(
    join(dir, "postgresql.auto.conf"),
    [
      `port = ${state.ports.primary}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      "wal_level = replica",
      "max_wal_senders = 8",
      "wal_keep_size = '256MB'",
      "max_connections = 100",
      "shared_buffers = '64MB'",
      "fsync = off",
      "full_page_writes = off",
      // a standby's replay waits at most this long for a query in its way, then cancels it (docs/deploy.md)
      "max_standby_streaming_delay = '1s'",
      // past that delay replay cancels the statement (a recovery conflict, 40001) before the
      // statement's own deadlock check would find a cycle with replay (40P01)
      "deadlock_timeout = '5s'",
      "hot_standby_feedback = off",
      "track_commit_timestamp = on"
    ].join("\n") + "\n"
  )
  if (IS_ROOT) execFileSync("chown", ["postgres:postgres", join(dir, "postgresql.auto.conf")])
}

const initStandby = (state: ClusterState, name: "standby1" | "standby2") => {
  const dir = pgDir(state, name)
  ownedByPostgres(dir)
  pg("pg_basebackup", ["-h", "127.0.0.1", "-p", String(state.ports.primary), "-U", "postgres", "-D", dir, "-R", "-X", "stream", "-c", "fast"])
  // the copy's own port and socket; primary_conninfo and standby.signal came with -R
  const settings = `port = ${state.ports[name]}\nunix_socket_directories = '${dir}'\n`
  writeFileSync(join(dir, "postgresql.auto.conf"), readFileSync(join(dir, "postgresql.auto.conf"), "utf8") + settings)
  if (IS_ROOT) execFileSync("chown", ["postgres:postgres", join(dir, "postgresql.auto.conf")])
}

const pidFile = (state: ClusterState, name: string) => join(state.dir, `${name}.pid`)

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const pidOf = (file: string) => {
  if (!existsSync(file)) return undefined
  const pid = Number(readFileSync(file, "utf8").trim().split("\n")[0])
  return Number.isSafeInteger(pid) && pid > 0 && alive(pid) ? pid : undefined
}

const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return
    await Bun.sleep(100)
  }
  throw new Error(`${what} not ready within ${timeoutMs} ms`)
}

const answers = (url: string, status = 200) => async () => (await fetch(url, { signal: AbortSignal.timeout(1_000) })).status === status

/** The service as `bun run start` starts it, detached, its output in `<name>.log`. */
export const startReplica = async (state: ClusterState, replica: ReplicaSpec, extraEnv: Record<string, string> = {}) => {
  const log = openSync(join(state.dir, `${replica.name}.log`), "a")
  const child = spawn("bun", ["--max-http-header-size=131072", "src/main.ts"], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", log, log],
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      ...state.replicaEnv,
      ...extraEnv,
      PORT: String(replica.port),
      METRICS_PORT: String(replica.metricsPort ?? 0),
      DATABASE_URL: databaseUrl(state, replica.reads)
    }
  })
  child.unref()
  writeFileSync(pidFile(state, replica.name), String(child.pid))
  await waitFor(`${replica.name}`, answers(`${replicaUrl(replica)}/v1/health/ready`), 60_000)
  // once the cluster runs, a replica is started when the balancer has it back in rotation
  if (pidOf(pidFile(state, "haproxy")) !== undefined && balanced(state).some((known) => known.name === replica.name)) {
    await waitFor(`${replica.name} in the balancer's rotation`, async () => (await balancerStatus(state))[replica.name]?.status === "UP", 10_000)
  }
  return child.pid!
}

export const replicaPid = (state: ClusterState, replica: ReplicaSpec) => pidOf(pidFile(state, replica.name))

/** Sends `signal` to a replica and, for SIGTERM and SIGKILL, waits until it is gone. */
export const signalReplica = async (state: ClusterState, replica: ReplicaSpec, signal: NodeJS.Signals) => {
  const pid = replicaPid(state, replica)
  if (pid === undefined) return
  process.kill(pid, signal)
  await waitFor(`${replica.name} to exit`, async () => !alive(pid), 20_000)
}

const startRedis = (state: ClusterState) =>
  run("redis-server", [
    "--port", String(state.ports.redis),
    "--bind", "127.0.0.1",
    "--save", "",
    "--appendonly", "no",
    "--daemonize", "yes",
    "--dir", state.dir,
    "--pidfile", pidFile(state, "redis"),
    "--logfile", join(state.dir, "redis.log")
  ])

const nginxPrefix = (state: ClusterState) => join(state.dir, "nginx")
const balancerDir = (state: ClusterState) => join(state.dir, "haproxy")
const balancerSocket = (state: ClusterState) => join(balancerDir(state), "admin.sock")

const PROXY_USER = IS_ROOT ? "www-data" : undefined

/** The replicas the balancer knows: those reading a standby (a test's extra replica on the primary is not one). */
const balanced = (state: ClusterState) => state.replicas.filter((replica) => replica.reads !== "primary")

const startBalancer = async (state: ClusterState) => {
  const dir = balancerDir(state)
  mkdirSync(dir, { recursive: true })
  const conf = join(dir, "haproxy.cfg")
  writeFileSync(
    conf,
    haproxyConfig({
      listen: `127.0.0.1:${state.ports.balancer}`,
      servers: balanced(state).map((replica) => ({ name: replica.name, address: `127.0.0.1:${replica.port}` })),
      adminSocket: balancerSocket(state)
    })
  )
  run("haproxy", ["-c", "-q", "-f", conf])
  // in the foreground of a detached process, so that its log (stdout) goes to a file
  const log = openSync(join(dir, "haproxy.log"), "a")
  const child = spawn("haproxy", ["-db", "-f", conf], { detached: true, stdio: ["ignore", log, log] })
  child.unref()
  writeFileSync(pidFile(state, "haproxy"), String(child.pid))
  await waitFor("haproxy", async () => (await balancerCommand(state, "show info")).includes("Pid:"), 10_000)
}

/** One command of HAProxy's runtime API; its answer as text. */
export const balancerCommand = (state: ClusterState, command: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = createConnection(balancerSocket(state))
    let answer = ""
    socket.setEncoding("utf8")
    socket.on("connect", () => socket.end(`${command}\n`))
    socket.on("data", (chunk: string) => (answer += chunk))
    socket.on("end", () => resolve(answer))
    socket.on("error", reject)
  })

export interface BalancedReplica {
  /** as the balancer's health checks see it: UP, DOWN, MAINT, or "UP 1/2" on the way down */
  readonly status: string
  /** requests the balancer has sent it so far (its checks not counted) */
  readonly sessions: number
}

/** Each balanced replica as the balancer sees it (its runtime API's `show stat`). */
export const balancerStatus = async (state: ClusterState): Promise<Record<string, BalancedReplica>> => {
  const csv = await balancerCommand(state, "show stat")
  const [header, ...rows] = csv.split("\n").filter((line) => line.length > 0)
  const columns = header!.replace(/^# /, "").split(",")
  const at = (name: string) => columns.indexOf(name)
  return Object.fromEntries(
    rows.map((row) => row.split(","))
      .filter((cells) => cells[at("pxname")] === "replicas" && cells[at("svname")] !== "BACKEND")
      .map((cells) => [cells[at("svname")]!, { status: cells[at("status")]!, sessions: Number(cells[at("stot")]) }])
  )
}

const writeFrontConfig = (state: ClusterState) => {
  const prefix = nginxPrefix(state)
  const conf = join(prefix, "nginx.conf")
  writeFileSync(
    conf,
    nginxConfig({
      listen: `127.0.0.1:${state.ports.proxy}`,
      balancer: `127.0.0.1:${state.ports.balancer}`,
      cacheDir: join(prefix, "cache"),
      prefixDir: prefix,
      ...(PROXY_USER === undefined ? {} : { user: PROXY_USER })
    })
  )
  return conf
}

const startProxy = (state: ClusterState) => {
  const prefix = nginxPrefix(state)
  mkdirSync(join(prefix, "cache"), { recursive: true })
  if (PROXY_USER !== undefined) execFileSync("chown", ["-R", PROXY_USER, prefix])
  run("nginx", ["-p", prefix, "-c", writeFrontConfig(state)])
}

/**
 * Puts only `upstreams` in the balancer's rotation (the others in maintenance: no request, no
 * check), and waits until the balancer's checks find each of them UP.
 */
export const setProxyUpstreams = async (state: ClusterState, upstreams: ReadonlyArray<ReplicaSpec>) => {
  const wanted = new Set(upstreams.map((replica) => replica.name))
  for (const replica of balanced(state)) {
    await balancerCommand(state, `set server replicas/${replica.name} state ${wanted.has(replica.name) ? "ready" : "maint"}`)
  }
  await waitFor("the balancer's checks", async () => {
    const status = await balancerStatus(state)
    return [...wanted].every((name) => status[name]?.status === "UP")
  }, 10_000)
}

export const proxyAccessLog = (state: ClusterState) => join(nginxPrefix(state), "access.log")

const prometheusDir = (state: ClusterState) => join(state.dir, "prometheus")

/**
 * Prometheus on loopback, scraping every replica's metrics port with the service's rules
 * (cluster/monitoring/), each target labelled with its replica and the database it reads.
 */
const startPrometheus = async (state: ClusterState) => {
  const dir = prometheusDir(state)
  mkdirSync(join(dir, "data"), { recursive: true })
  const rules = "catalogue-api.rules.yml"
  writeFileSync(join(dir, rules), rulesFile({ timeScale: state.monitoring.ruleTimeScale, runbookBase: DEFAULT_RUNBOOK_BASE }))
  const conf = join(dir, "prometheus.yml")
  writeFileSync(
    conf,
    prometheusConfig({
      scrapeIntervalSeconds: state.monitoring.scrapeIntervalSeconds,
      evaluationIntervalSeconds: state.monitoring.scrapeIntervalSeconds,
      ruleFiles: [rules],
      targets: state.replicas.flatMap((replica) =>
        replica.metricsPort === undefined ? [] : [{ address: `127.0.0.1:${replica.metricsPort}`, labels: { replica: replica.name, standby: replica.reads } }]
      )
    })
  )
  const log = openSync(join(dir, "prometheus.log"), "a")
  const child = spawn(
    "prometheus",
    [`--config.file=${conf}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${state.ports.prometheus}`],
    { detached: true, stdio: ["ignore", log, log] }
  )
  child.unref()
  writeFileSync(pidFile(state, "prometheus"), String(child.pid))
  await waitFor("prometheus", answers(`${prometheusUrl(state)}/-/ready`), 30_000)
}

/** Empties the front cache (nginx keeps no index on disk it could not rebuild: a reload forgets it). */
export const purgeProxyCache = async (state: ClusterState) => {
  const prefix = nginxPrefix(state)
  rmSync(join(prefix, "cache"), { recursive: true, force: true })
  mkdirSync(join(prefix, "cache"), { recursive: true })
  if (IS_ROOT) execFileSync("chown", ["-R", "www-data", join(prefix, "cache")])
  run("nginx", ["-p", prefix, "-c", join(prefix, "nginx.conf"), "-s", "reload"])
  await Bun.sleep(500)
}

const plan = (options: ClusterOptions): ClusterState => {
  const base = options.basePort ?? Number(process.env.CLUSTER_BASE_PORT ?? 15400)
  const replicas = options.replicas ?? 3
  const dir = options.dir ?? DEFAULT_DIR
  return {
    dir,
    ports: {
      primary: base + 32,
      standby1: base + 33,
      standby2: base + 34,
      redis: base + 79,
      proxy: base + 80,
      balancer: base + 81,
      prometheus: base + 85
    },
    replicas: Array.from({ length: replicas }, (_, index) => ({
      name: `replica${index + 1}`,
      port: base + 1 + index,
      metricsPort: base + 41 + index,
      // the last replica reads the second standby, so that polls meet two different lags
      reads: index === replicas - 1 && replicas > 1 ? "standby2" as const : "standby1" as const
    })),
    replicaEnv: {
      LOG_FORMAT: "json",
      LOG_LEVEL: "warn",
      // two proxy hops append to X-Forwarded-For: nginx (the client's address), then HAProxy (nginx's)
      TRUST_PROXY: "2",
      DATABASE_POOL_SIZE: "8",
      // Prometheus text on each replica's metrics port (METRICS_PORT), which the cluster's Prometheus scrapes
      METRICS: "prometheus",
      // one directory for every replica, as the compose recipe's volume: one of them writes, all serve
      SNAPSHOT_DIR: join(dir, "snapshots"),
      ...options.replicaEnv,
      RATE_LIMIT_REDIS_URL: `redis://127.0.0.1:${base + 79}`
    },
    monitoring: options.monitoring ?? { scrapeIntervalSeconds: 5, ruleTimeScale: 1 }
  }
}

/** Starts everything; on any failure stops what it started and rethrows. */
export const startCluster = async (options: ClusterOptions = {}): Promise<ClusterState> => {
  const log = options.log ?? ((line: string) => console.log(line))
  const state = plan(options)
  if (readState(state.dir) !== undefined) throw new Error(`a cluster is already recorded in ${state.dir}: stop it first`)
  ensureTools()
  rmSync(state.dir, { recursive: true, force: true })
  mkdirSync(state.dir, { recursive: true, mode: 0o755 })
  writeFileSync(join(state.dir, STATE_FILE), JSON.stringify(state, null, 2))
  try {
    log(`primary on ${state.ports.primary}`)
    initPrimary(state)
    startDatabase(state, "primary")
    psql(state, "primary", `CREATE DATABASE ${DATABASE}`, "postgres")
    const primaryEnv = { DATABASE_URL: databaseUrl(state, "primary"), LOG_LEVEL: "warn" }
    log("migrating the primary")
    run("bun", ["src/migrate.ts"], { env: primaryEnv })
    if (options.fixtureDir === undefined) {
      log(`seeding ${options.songs ?? 3000} songs`)
      run("bun", ["src/Seed/cli.ts", "--songs", String(options.songs ?? 3000)], { env: primaryEnv })
    } else {
      log(`loading ${options.fixtureDir}`)
      for (const file of readdirSync(options.fixtureDir).filter((name) => name.endsWith(".sql")).sort()) {
        run(join(PG_BIN, "psql"), ["-v", "ON_ERROR_STOP=1", "-q", "-f", join(options.fixtureDir, file), databaseUrl(state, "primary")])
      }
    }
    for (const name of ["standby1", "standby2"] as const) {
      log(`${name} on ${state.ports[name]} (pg_basebackup -R)`)
      initStandby(state, name)
      startDatabase(state, name)
    }
    log(`redis on ${state.ports.redis}`)
    startRedis(state)
    await Promise.all(state.replicas.map(async (replica) => {
      await startReplica(state, replica)
      log(`${replica.name} on ${replica.port} reading ${replica.reads}`)
    }))
    await startBalancer(state)
    await setProxyUpstreams(state, balanced(state))
    log(`haproxy on ${state.ports.balancer}, checking each replica's /v1/health/ready`)
    startProxy(state)
    await waitFor("nginx", answers(`${proxyUrl(state)}/v1/health`), 10_000)
    log(`nginx on ${state.ports.proxy}: ${proxyUrl(state)}`)
    await startPrometheus(state)
    log(`prometheus on ${state.ports.prometheus}, scraping each replica's metrics port: ${prometheusUrl(state)}`)
    return state
  } catch (error) {
    stopCluster(state.dir)
    throw error
  }
}

const killPidFile = (file: string, signal: NodeJS.Signals = "SIGTERM") => {
  const pid = pidOf(file)
  if (pid === undefined) return
  try {
    process.kill(pid, signal)
  } catch {
    // already gone
  }
  const deadline = Date.now() + 15_000
  while (alive(pid) && Date.now() < deadline) Bun.sleepSync(50)
  if (alive(pid)) process.kill(pid, "SIGKILL")
}

/** Stops everything recorded in `dir` (whatever is still running) and removes the directory. */
export const stopCluster = (dir = DEFAULT_DIR) => {
  const state = readState(dir)
  if (state === undefined) return false
  const attempt = (step: () => void) => {
    try {
      step()
    } catch (error) {
      console.error(String(error))
    }
  }
  attempt(() => killPidFile(pidFile(state, "prometheus")))
  attempt(() => killPidFile(join(nginxPrefix(state), "nginx.pid"), "SIGQUIT"))
  attempt(() => killPidFile(pidFile(state, "haproxy")))
  for (const replica of state.replicas) attempt(() => killPidFile(pidFile(state, replica.name)))
  // replicas a test started beside the recorded ones
  for (const extra of extraPidFiles(state)) attempt(() => killPidFile(extra))
  attempt(() => killPidFile(pidFile(state, "redis")))
  for (const name of ["standby2", "standby1", "primary"] as const) attempt(() => stopDatabase(state, name, "immediate"))
  rmSync(dir, { recursive: true, force: true })
  return true
}

const extraPidFiles = (state: ClusterState) =>
  spawnSync("sh", ["-c", `ls '${state.dir}'/extra-*.pid 2>/dev/null`], { encoding: "utf8" }).stdout.split("\n").filter(Boolean)

/** One line per part: up or down. */
export const clusterStatus = (dir = DEFAULT_DIR) => {
  const state = readState(dir)
  if (state === undefined) return [`no cluster in ${dir}`]
  const database = (name: DatabaseName) => {
    try {
      const recovery = psql(state, name, "SELECT pg_is_in_recovery()").trim()
      return `${name} :${state.ports[name]} up${recovery === "t" ? " (hot standby)" : " (primary)"}`
    } catch {
      return `${name} :${state.ports[name]} down`
    }
  }
  return [
    database("primary"),
    database("standby1"),
    database("standby2"),
    `redis :${state.ports.redis} ${pidOf(pidFile(state, "redis")) === undefined ? "down" : "up"}`,
    ...state.replicas.map((replica) =>
      `${replica.name} :${replica.port} (reads ${replica.reads}${
        state.replicaEnv.METRICS === "prometheus" ? `, metrics on :${replica.metricsPort}` : ""
      }) ${replicaPid(state, replica) === undefined ? "down" : "up"}`
    ),
    `haproxy :${state.ports.balancer} ${pidOf(pidFile(state, "haproxy")) === undefined ? "down" : "up"}`,
    `nginx :${state.ports.proxy} ${pidOf(join(nginxPrefix(state), "nginx.pid")) === undefined ? "down" : "up"}`,
    `prometheus :${state.ports.prometheus} ${pidOf(pidFile(state, "prometheus")) === undefined ? "down" : "up"}`
  ]
}

/** Runs SQL on one of the cluster's databases (psql, as text). */
export const clusterSql = psql

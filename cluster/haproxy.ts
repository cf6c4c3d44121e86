/**
 * The balancer of the cluster: HAProxy between the front cache (nginx, cluster/nginx.ts) and the
 * replicas, with active health checks on /v1/health/ready and retries of idempotent requests on
 * another replica. The same text is the compose recipe's deploy/haproxy.cfg (a test keeps the two
 * equal); docs/deploy.md explains it.
 */
export interface BalancerServer {
  readonly name: string
  readonly address: string
}

export interface BalancerOptions {
  readonly listen: string
  readonly servers: ReadonlyArray<BalancerServer>
  /** a local HAProxy's runtime API (the cluster script and the tests drive it); none in a container */
  readonly adminSocket?: string
  /** a DNS server that resolves the servers' names again while running (Docker's, in compose) */
  readonly resolver?: string
}

/** How often a replica's readiness is checked, and how many answers in a row move it out or back in. */
export const HEALTH_CHECK = { intervalMs: 500, fall: 2, rise: 2, timeoutMs: 1000 } as const

/**
 * The longest a replica whose database went away keeps its place in rotation: its readiness
 * probe runs at most once a second (src/Meta/Http.ts) and may take 1 s on a database that hangs,
 * then `fall` failed checks `intervalMs` apart, each answered within `timeoutMs`. Back in rotation
 * within the same bound after its database returns (`rise` checks).
 */
export const HEALTH_BOUND_MS = 1000 + 1000 + HEALTH_CHECK.fall * (HEALTH_CHECK.intervalMs + HEALTH_CHECK.timeoutMs)

/** The answer when no replica is ready: the service's own 503 envelope, never stored. */
export const NONE_READY = JSON.stringify({ error: { code: "internal_error", message: "No replica is ready to answer." } })

/** Retry-After of the front's own 503s: a replica whose database is back is in rotation within HEALTH_BOUND_MS. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = Math.ceil(HEALTH_BOUND_MS / 1000)

/** The headers of every 503 HAProxy makes itself. */
const UNAVAILABLE_HEADERS = `content-type "application/json; charset=utf-8" hdr cache-control no-store hdr retry-after ${UNAVAILABLE_RETRY_AFTER_SECONDS}`

const resolvers = (address: string) => `
resolvers dns
  nameserver dns ${address}
  hold valid 10s
  resolve_retries 3
  timeout retry 1s
`

export const haproxyConfig = (options: BalancerOptions) => `# written by cluster/haproxy.ts
global
  log stdout format raw local0
  maxconn 4096
${options.adminSocket === undefined ? "" : `  stats socket ${options.adminSocket} mode 600 level admin\n`}${options.resolver === undefined ? "" : resolvers(options.resolver)}
defaults
  mode http
  log global
  # only what went wrong: errors, retries and redispatches (a line per request would be most of the work)
  option httplog
  option dontlog-normal
  timeout connect 1s
  timeout client 75s
  timeout http-keep-alive 75s
  timeout server 10s
  timeout queue 5s
  timeout check ${HEALTH_CHECK.timeoutMs}ms
  # its own 503s (a request queued past timeout queue, no server to try) in the service's envelope
  http-error status 503 ${UNAVAILABLE_HEADERS} string '${NONE_READY}'

frontend catalogue
  bind ${options.listen}
  # appended after the entry the front cache appended: the replicas (TRUST_PROXY=2) read the second from the right
  option forwardfor
  http-request return status 503 ${UNAVAILABLE_HEADERS} string '${NONE_READY}' if { nbsrv(replicas) eq 0 }
  default_backend replicas

backend replicas
  balance roundrobin
  # active health: a replica is in rotation while its readiness (its database answering) says 200
  option httpchk GET /v1/health/ready
  http-check expect status 200
  default-server check inter ${HEALTH_CHECK.intervalMs}ms fall ${HEALTH_CHECK.fall} rise ${HEALTH_CHECK.rise}${options.resolver === undefined ? "" : " resolvers dns init-addr libc,none"}
  # GET and HEAD only (the API has nothing else): a refused or reset connection, no answer, or a
  # replica's 503 (its database away) is tried again on another replica, at most twice
  retries 2
  option redispatch 1
  retry-on conn-failure empty-response response-timeout 503
  http-request disable-l7-retry unless METH_GET || METH_HEAD
${options.servers.map((server) => `  server ${server.name} ${server.address}`).join("\n")}
`

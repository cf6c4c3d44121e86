/**
 * The front of the cluster: nginx as HTTP cache before the balancer (HAProxy, cluster/haproxy.ts),
 * which spreads the misses over the replicas, and which answers from a stale copy when they fail.
 * The same text is the compose recipe's deploy/nginx.conf (a test keeps the two equal);
 * docs/deploy.md explains it.
 */
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from "./haproxy.js"

/** nginx's own 503 (the balancer unreachable or silent, nothing stored to answer with): the service's envelope. */
const UNAVAILABLE = JSON.stringify({ error: { code: "internal_error", message: "The service is not available; try again shortly." } })

export interface FrontOptions {
  readonly listen: string
  /** the balancer's address: every miss goes there */
  readonly balancer: string
  readonly cacheDir: string
  /** where a local nginx keeps its pid, logs and temporary files; none in a container (stdout, stderr) */
  readonly prefixDir?: string
  /** the worker's user when started as root (nginx ignores it otherwise) */
  readonly user?: string
}

const localFiles = (prefix: string) => `daemon on;
pid ${prefix}/nginx.pid;
error_log ${prefix}/error.log warn;`

const localHttpFiles = (prefix: string) => `
  client_body_temp_path ${prefix}/client_body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;`

export const nginxConfig = (options: FrontOptions) => `# written by cluster/nginx.ts
${options.user === undefined ? "" : `user ${options.user};\n`}worker_processes ${options.prefixDir === undefined ? "auto" : 1};
${options.prefixDir === undefined ? "daemon off;\nerror_log stderr warn;" : localFiles(options.prefixDir)}
events { worker_connections 4096; }
http {${options.prefixDir === undefined ? "" : localHttpFiles(options.prefixDir)}
  # traceparent: the one the client was sent, naming the trace of a replica's log line (on a hit or a
  # stale copy, that of the request that filled the entry); "-" for nginx's own answers
  log_format cluster '$remote_addr "$request" $status $upstream_cache_status $upstream_addr $upstream_status $request_time traceparent=$sent_http_traceparent';
  access_log ${options.prefixDir === undefined ? "/dev/stdout" : `${options.prefixDir}/access.log`} cluster buffer=64k flush=1s;
  # the background refreshes of expired entries get a line of their own
  log_subrequest on;

  # One upstream, the balancer, never marked failed (max_fails=0): it checks the replicas' health
  # and retries on another replica (cluster/haproxy.ts); nginx only caches.
  upstream catalogue {
    server ${options.balancer} max_fails=0;
    keepalive 32;
    keepalive_timeout 30s;
  }

  # The key is what the service answers by; Vary (Accept-Encoding) is honoured by nginx per entry.
  # An entry stays a day after its last use (max_size bounds the whole): the stale copy served while the replicas fail.
  # 2 GiB: a snapshot's files (~270 MiB at 1M songs, two snapshots kept) beside the pages, not in their place.
  proxy_cache_path ${options.cacheDir} levels=1:2 keys_zone=catalogue:10m max_size=2g inactive=1d use_temp_path=off;

  server {
    listen ${options.listen};
    location / {
      proxy_pass http://catalogue;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $host;
      # appended, never replaced: the balancer appends its own, and the service (TRUST_PROXY=2)
      # reads the second entry from the right, the address nginx saw
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_connect_timeout 1s;
      # longer than the balancer's tries (10 s each) so that its answer, not a timeout here, is passed on
      proxy_read_timeout 35s;
      # a kept-alive connection the balancer closed meanwhile is tried again on a new one
      proxy_next_upstream error;

      proxy_cache catalogue;
      proxy_cache_key $scheme$host$request_uri;
      # Cache-Control decides: public max-age=60 is stored, no-store (errors, staff) never
      proxy_cache_revalidate on;
      proxy_cache_lock on;
      # when the balancer cannot answer (no replica ready: its 503; or it is down), an expired copy is
      # served rather than the error; an expired copy is refreshed in the background, not by the client
      proxy_cache_use_stale error timeout updating http_500 http_502 http_503 http_504;
      proxy_cache_background_update on;
      # belt and braces: a request with credentials is neither served from nor stored in the cache
      proxy_cache_bypass $http_authorization;
      proxy_no_cache $http_authorization;
      add_header X-Proxy-Cache $upstream_cache_status always;
      # nginx's own failures (the balancer unreachable or silent, nothing stored): the service's envelope
      error_page 502 504 =503 @unavailable;
    }

    location @unavailable {
      default_type "application/json; charset=utf-8";
      add_header Cache-Control no-store always;
      add_header Retry-After ${UNAVAILABLE_RETRY_AFTER_SECONDS} always;
      return 503 '${UNAVAILABLE}';
    }
  }
}
`

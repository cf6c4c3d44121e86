/**
 * How long a public answer may be reused, by route: one rule for the in-process response cache and
 * the Cache-Control header (so nginx, a CDN or a browser keeps it no longer than the process does).
 * The change feed is polled by mirrors that want news within seconds (docs/changes.md): its pages
 * are fresh for 2 s, in the process and again in a shared cache in front (at most 4 s together),
 * and only small pages (a caught-up poll, a few entries) are kept in the process: one client's
 * burst of full pages cannot fill it. Every public answer may also be served stale while its origin
 * fails (`stale-if-error`, RFC 5861): nginx in front does (docs/deploy.md), and so may a CDN.
 */
export interface Freshness {
  readonly cacheControl: string
  /** kept in the process at most this long (the configured TTL may be shorter) */
  readonly maxAgeSeconds: number
  /** an answer (key and body) larger than this is not kept in the process */
  readonly maxStoredBytes: number
}

/** How long a shared cache may answer with an expired copy while the service fails: a day. */
export const STALE_IF_ERROR_SECONDS = 86_400

export const PUBLIC_FRESHNESS: Freshness = {
  cacheControl: `public, max-age=60, stale-while-revalidate=300, stale-if-error=${STALE_IF_ERROR_SECONDS}`,
  maxAgeSeconds: Number.POSITIVE_INFINITY,
  maxStoredBytes: Number.POSITIVE_INFINITY
}

export const FEED_FRESHNESS: Freshness = {
  cacheControl: `public, max-age=2, stale-if-error=${STALE_IF_ERROR_SECONDS}`,
  maxAgeSeconds: 2,
  maxStoredBytes: 4096
}

/**
 * A snapshot file: its name changes whenever its content does, so whoever has it may keep it for
 * good. Never kept in the process (it is a file on disk, streamed).
 */
export const SNAPSHOT_FILE_FRESHNESS: Freshness = {
  cacheControl: "public, max-age=31536000, immutable",
  maxAgeSeconds: 0,
  maxStoredBytes: 0
}

/** By HttpApi group and endpoint, as src/RouteKind.ts decides a route's kind. */
export const freshnessOf = (group: string, endpoint: string): Freshness =>
  group === "Changes" && endpoint === "changes"
    ? FEED_FRESHNESS
    : group === "Snapshots" && endpoint === "file"
    ? SNAPSHOT_FILE_FRESHNESS
    : PUBLIC_FRESHNESS

/**
 * CORS (D3): public data is readable from any origin (GET/HEAD, no credentials); staff routes
 * answer CORS only for origins in CORS_STAFF_ORIGINS. Clients may read the rate-limit fields,
 * the validator and the cache status.
 */
export const EXPOSED_HEADERS = [
  "ETag",
  "RateLimit",
  "RateLimit-Policy",
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "Retry-After",
  "X-Cache",
  "traceparent"
].join(", ")

const PREFLIGHT_MAX_AGE_SECONDS = "86400"

export const corsHeaders = (options: {
  readonly staff: boolean
  readonly origin: string | undefined
  readonly preflight: boolean
  readonly staffOrigins: ReadonlyArray<string>
}): Record<string, string> => {
  let headers: Record<string, string>
  if (!options.staff) {
    headers = { "access-control-allow-origin": "*", "access-control-expose-headers": EXPOSED_HEADERS }
  } else if (options.origin !== undefined && options.staffOrigins.includes(options.origin)) {
    headers = { "access-control-allow-origin": options.origin, "access-control-expose-headers": EXPOSED_HEADERS }
  } else {
    return {}
  }
  if (options.preflight) {
    headers["access-control-allow-methods"] = "GET, HEAD, OPTIONS"
    headers["access-control-allow-headers"] = options.staff
      ? "Authorization, If-None-Match, traceparent"
      : "If-None-Match, Cache-Control, traceparent"
    headers["access-control-max-age"] = PREFLIGHT_MAX_AGE_SECONDS
  }
  return headers
}

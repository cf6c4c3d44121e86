/** Settings every test server starts with; a test passes its own on top. */
export const TEST_ENV: Readonly<Record<string, string>> = {
  PORT: "0",
  LOG_LEVEL: "warn",
  DEMO_SEED_SONGS: "0",
  // no snapshot written in the background by every test server (test/snapshots.test.ts turns it on)
  SNAPSHOT_INTERVAL_HOURS: "0",
  CDN_BASE_URL: "https://cdn.test.example",
  // Every group's tests share one server from 127.0.0.1: no rate limit to speak of (nor a bound on
  // its requests in flight), no response cache (tests change rows under it). The edge's own tests
  // start servers with the real settings.
  RATE_LIMIT_CAPACITY: "1000000",
  RATE_LIMIT_WINDOW_SECONDS: "1000000",
  RATE_LIMIT_MAX_IN_FLIGHT: "1000000",
  CACHE_TTL_SECONDS: "0",
  // The test process holds many servers and the test runner: the service's memory guard is not for it.
  MEMORY_LIMIT_MIB: "0",
  // Staff tokens in tests are minted with this secret (test/support/tokens.ts).
  ADMIN_JWT_SECRET: "test-secret-for-staff-tokens-0123456789abcdef"
}

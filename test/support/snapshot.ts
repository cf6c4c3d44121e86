import { resolve } from "node:path"
import type { TestDatabase } from "./database.js"

/**
 * `bun run snapshot --out DIR` as an operator runs it, against a test database on PostgreSQL (the
 * embedded one is held by the test's service); its exit code and standard error.
 */
export const runSnapshot = async (database: TestDatabase, out: string) => {
  if (database.kind !== "postgres") throw new Error("bun run snapshot beside a running service needs PostgreSQL")
  const child = Bun.spawn(["bun", "run", "snapshot", "--out", out], {
    cwd: resolve(import.meta.dir, "../.."),
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", DATABASE_URL: database.url, LOG_LEVEL: "warn", CDN_BASE_URL: "https://cdn.test.example" },
    stdout: "pipe",
    stderr: "pipe"
  })
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()])
  return { code, stderr }
}

import type { test } from "bun:test"

/**
 * A test that takes minutes, named so: `slow(test, why, minutes)(name, body)` runs `body` as
 * "name (slow: why)" with a time limit of `minutes`. test/run.ts lists these tests, each with the
 * time it took, at the end of a run; the list of them is in the README ("Tests").
 */
export const slow = (runner: typeof test, why: string, minutes: number) =>
  (name: string, body: () => Promise<void>) => runner(`${name} (slow: ${why})`, body, minutes * 60_000)

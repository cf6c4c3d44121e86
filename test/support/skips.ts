import { describe, test } from "bun:test"

/** A test name that says why it was not run: test/run.ts lists these and counts them. */
const withReason = <F extends (name: string, ...rest: Array<any>) => unknown>(skip: F, reason: string) =>
  ((name: string, ...rest: Array<unknown>) => skip(`${name} [skipped: ${reason}]`, ...rest)) as unknown as F

/**
 * `test` where `condition` holds; elsewhere a declared skip whose name carries its reason, so a
 * run says what it did not check (CI on PostgreSQL allows none: .ci/run).
 */
export const testWhen = (condition: boolean, reason: string): typeof test =>
  condition ? test : Object.assign(withReason(test.skip, reason), test)

/** `describe` where `condition` holds; elsewhere its tests are declared skips with the reason. */
export const describeWhen = (condition: boolean, reason: string): typeof describe =>
  condition ? describe : Object.assign(withReason(describe.skip, reason), describe)

/** PostgreSQL and the embedded database differ only here: the reason every such skip gives. */
export const ON_POSTGRES_ONLY = "needs a PostgreSQL server (TEST_DATABASE_URL)"

import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"

/**
 * Runs a program as the process: SIGINT or SIGTERM interrupts it (its finalizers run: the
 * graceful shutdown, the pool), and the process exits 0 when it ended or was stopped that way,
 * 1 when it failed. What @effect/platform-bun's runMain does; its Effect 4 line is still a release candidate.
 */
export const runMain = Runtime.makeRunMain(({ fiber, teardown }) => {
  const stop = () => void fiber.interruptUnsafe()
  process.once("SIGINT", stop)
  process.once("SIGTERM", stop)
  fiber.addObserver((exit) => {
    process.off("SIGINT", stop)
    process.off("SIGTERM", stop)
    teardown(exit, (code) => process.exit(code))
  })
})

/** Exit code 0 for a stop by signal (an interruption), 1 for a failure. */
export const teardown: Runtime.Teardown = (exit, onExit) =>
  onExit(Exit.isFailure(exit) && !Cause.hasInterruptsOnly(exit.cause) ? 1 : 0)

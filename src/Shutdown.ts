import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/** How long SIGTERM or SIGINT waits for requests in flight before closing anyway. */
export const DRAIN_TIMEOUT = Duration.seconds(10)

/**
 * How long the listener stays open after the signal, readiness failing and every answer saying
 * `Connection: close`: a load balancer has time to take the replica out, and a client gets the
 * answer to what it sent on a kept-alive connection, then moves to a new one.
 */
export const DRAIN_GRACE = Duration.seconds(1)

/**
 * Before the listener closes, answers are held this long, then sent once it is closed: a client
 * that waits for an answer is not opening a new connection as the listener closes (which would be
 * reset unread), and one that gets it after finds the port closed (refused: never sent).
 */
export const ANSWERS_HELD = Duration.millis(100)

interface StoppableServer {
  readonly stop: (closeActiveConnections?: boolean) => Promise<void> | void
}

/**
 * Requests in flight, and the Bun server that carries them (set by src/Http/Server.ts). The server's
 * own finalizers interrupt every request fiber; a graceful stop has to come first.
 */
export class InFlightRequests extends Context.Service<
  InFlightRequests,
  {
    count: number
    /** From SIGTERM or SIGINT on: readiness fails and every response says `Connection: close`. */
    draining: boolean
    /** While set, answers wait for it before they are sent (ANSWERS_HELD). */
    held: Promise<void> | undefined
    server: StoppableServer | undefined
    readonly idle: Set<() => void>
  }
>()("catalogue/InFlightRequests") {
  static readonly layer = Layer.sync(
    InFlightRequests,
    () => ({ count: 0, draining: false, held: undefined, server: undefined, idle: new Set<() => void>() })
  )
}

/** Counts each request while it runs: the hooks the outermost step of the HTTP pipeline calls. */
export const inFlightHooks = (inFlight: InFlightRequests["Service"]) => ({
  started: () => {
    inFlight.count++
  },
  ended: () => {
    inFlight.count--
    if (inFlight.count === 0) for (const resolve of inFlight.idle) resolve()
  }
})

/** The response now, or once the answers held while the listener closes are let go. */
export const whenLetGo = (inFlight: InFlightRequests["Service"], response: Response): Response | Promise<Response> =>
  inFlight.held === undefined ? response : inFlight.held.then(() => response)

/**
 * On shutdown, before the server's own finalizers interrupt what is left: fail readiness and ask
 * every client to close (DRAIN_GRACE), close the listener with the answers held a moment
 * (ANSWERS_HELD), let requests in flight finish (up to DRAIN_TIMEOUT), then let the layers close
 * the pool and the embedded database. Build it after the server layer, so it is finalized first.
 */
export const GracefulShutdownLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const inFlight = yield* InFlightRequests
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        inFlight.draining = true
        yield* Effect.logInfo(`shutting down: readiness 503, answering with Connection: close for ${Duration.format(DRAIN_GRACE)}`)
        yield* Effect.sleep(DRAIN_GRACE)
        let letGo = () => {}
        inFlight.held = new Promise<void>((resolve) => (letGo = resolve))
        yield* Effect.sleep(ANSWERS_HELD)
        // Bun closes the listener and the idle connections at once; the promise waits for the rest
        const closing = inFlight.server?.stop(false)
        inFlight.held = undefined
        letGo()
        yield* Effect.logInfo(`shutting down: no new connections; ${inFlight.count} request(s) in flight`)
        const idle = Effect.callback<void>((resume) => {
          if (inFlight.count === 0) return resume(Effect.void)
          const done = () => resume(Effect.void)
          inFlight.idle.add(done)
          return Effect.sync(() => inFlight.idle.delete(done))
        })
        const stopped = Effect.promise(async () => {
          await closing
        })
        const drained = yield* Effect.all([stopped, idle], { concurrency: 2 }).pipe(Effect.timeoutOption(DRAIN_TIMEOUT))
        if (Option.isNone(drained)) {
          yield* Effect.logWarning(
            `shutting down: ${inFlight.count} request(s) still running after ${Duration.format(DRAIN_TIMEOUT)}; closing them`
          )
          yield* Effect.promise(async () => {
            await inFlight.server?.stop(true)
          })
        }
      })
    )
  })
)

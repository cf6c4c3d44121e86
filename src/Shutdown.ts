import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"

/** How long SIGTERM or SIGINT waits for requests in flight before closing anyway. */
export const DRAIN_TIMEOUT = Duration.seconds(10)

/**
 * How long the listener stays open after the signal, every answer saying `Connection: close`:
 * a request already on its way on a keep-alive connection is answered rather than cut off when
 * the connection closes, and a load balancer still sending new connections is answered too.
 */
export const DRAIN_GRACE = Duration.seconds(1)

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
    /** From SIGTERM or SIGINT on: every response says `Connection: close`. */
    draining: boolean
    server: StoppableServer | undefined
    readonly idle: Set<() => void>
  }
>()("catalogue/InFlightRequests") {
  static readonly layer = Layer.sync(InFlightRequests, () => ({ count: 0, draining: false, server: undefined, idle: new Set<() => void>() }))
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

/**
 * On shutdown, before the server's own finalizers interrupt what is left: ask every client to
 * close (DRAIN_GRACE), stop accepting connections, let requests in flight finish (up to DRAIN_TIMEOUT), then let the layers close
 * the pool and the embedded database. Build it after the server layer, so it is finalized first.
 */
export const GracefulShutdownLive = Layer.effectDiscard(
  Effect.gen(function*() {
    const inFlight = yield* InFlightRequests
    yield* Effect.addFinalizer(() =>
      Effect.gen(function*() {
        inFlight.draining = true
        yield* Effect.logInfo(`shutting down: answering with Connection: close for ${Duration.format(DRAIN_GRACE)}`)
        yield* Effect.sleep(DRAIN_GRACE)
        yield* Effect.logInfo(`shutting down: no new connections; ${inFlight.count} request(s) in flight`)
        const idle = Effect.callback<void>((resume) => {
          if (inFlight.count === 0) return resume(Effect.void)
          const done = () => resume(Effect.void)
          inFlight.idle.add(done)
          return Effect.sync(() => inFlight.idle.delete(done))
        })
        const stopped = Effect.promise(async () => {
          await inFlight.server?.stop(false)
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

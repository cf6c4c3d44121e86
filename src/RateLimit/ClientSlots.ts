import * as Effect from "effect/Effect"

/** A request's place in its client's line: running, or waiting until a slot is handed to it. */
interface Ticket {
  granted: boolean
  wake: (() => void) | undefined
}

interface Line {
  running: number
  /** in arrival order (a Set keeps it, and drops a leaver in O(1)) */
  readonly waiting: Set<Ticket>
}

/**
 * Per-client slots for handlers (docs/edge.md, "Requests in flight"): at most `maxInFlight` of a
 * client's requests run at once, up to `maxQueued` more wait their turn in arrival order, and
 * past that the request is refused. Kept in process memory: the bound is per process, whatever
 * store holds the buckets. A client with nothing running or waiting holds no memory.
 */
export const makeClientSlots = (maxInFlight: number, maxQueued: number) => {
  const lines = new Map<string, Line>()

  /** A slot now, a place in the queue, or undefined when the queue is full. */
  const enter = (key: string): Ticket | undefined => {
    let line = lines.get(key)
    if (line === undefined) {
      line = { running: 0, waiting: new Set() }
      lines.set(key, line)
    }
    if (line.running < maxInFlight) {
      line.running++
      return { granted: true, wake: undefined }
    }
    if (line.waiting.size >= maxQueued) return undefined
    const ticket: Ticket = { granted: false, wake: undefined }
    line.waiting.add(ticket)
    return ticket
  }

  /** A finished request's slot goes to the first waiting, else it is free. */
  const release = (key: string) => {
    const line = lines.get(key)
    if (line === undefined) return
    const next = line.waiting.values().next()
    if (next.done !== true) {
      line.waiting.delete(next.value)
      next.value.granted = true
      next.value.wake?.()
      return
    }
    line.running--
    if (line.running === 0) lines.delete(key)
  }

  /** A request that stopped waiting (its client hung up): its place goes, or the slot it was just given. */
  const leave = (key: string, ticket: Ticket) => {
    if (ticket.granted) return release(key)
    const line = lines.get(key)
    line?.waiting.delete(ticket)
    if (line !== undefined && line.running === 0 && line.waiting.size === 0) lines.delete(key)
  }

  const turnOf = (ticket: Ticket) =>
    Effect.callback<void>((resume) => {
      if (ticket.granted) return resume(Effect.void)
      ticket.wake = () => resume(Effect.void)
    })

  /**
   * Runs `use` in one of the client's slots, after waiting its turn if all are taken; `full` when
   * the queue is full too. The slot is released however `use` ends: answer, failure or interruption.
   */
  const withSlot = <A, E, R>(key: string, use: Effect.Effect<A, E, R>, full: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.uninterruptibleMask((restore) => {
      const ticket = enter(key)
      if (ticket === undefined) return restore(full)
      const run = restore(use).pipe(Effect.ensuring(Effect.sync(() => release(key))))
      // a free slot (nearly every request): no wait to set up on the hot path
      if (ticket.granted) return run
      return restore(turnOf(ticket)).pipe(
        Effect.onInterrupt(() => Effect.sync(() => leave(key, ticket))),
        Effect.flatMap(() => run)
      )
    })

  return { withSlot }
}

/**
 * The mirror's HTTP client: one GET at a time per slot of a small pool, paced by the service's
 * rate-limit headers (docs/api.md, "Rate limit"). A 429 waits its `Retry-After`, however often it
 * comes; a 5xx or a network error is retried with a growing pause, a few times, then fails the run.
 */
export interface Polite {
  /** A GET answered with anything but 429 or 5xx (404 and other 4xx are the caller's to read). */
  readonly get: (url: string) => Promise<Response>
  /** milliseconds spent so far waiting for the rate limit (its headers and 429s) */
  readonly waitedMs: () => number
}

const MAX_FAILURES = 8

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Seconds named by `Retry-After` (whole seconds; an HTTP date is honoured too). */
const retryAfterMs = (response: Response): number | undefined => {
  const value = response.headers.get("retry-after")
  if (value === null) return undefined
  const seconds = Number(value)
  if (Number.isFinite(seconds)) return Math.max(0, seconds) * 1000
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now())
}

/**
 * Tokens left (`RateLimit`'s `r`, else `X-RateLimit-Remaining`) and the milliseconds one takes to
 * come back (`RateLimit-Policy`: `q` tokens per `w` seconds; else `RateLimit`'s `t`, the whole
 * seconds until the next; else a second).
 */
const budget = (response: Response): { readonly remaining: number; readonly perTokenMs: number } | undefined => {
  const field = response.headers.get("ratelimit") ?? ""
  const policy = response.headers.get("ratelimit-policy") ?? ""
  const remaining = /(?:^|;)\s*r=(\d+)/.exec(field)?.[1] ?? response.headers.get("x-ratelimit-remaining")
  if (remaining === null || remaining === undefined) return undefined
  const quota = Number(/(?:^|;)\s*q=(\d+)/.exec(policy)?.[1])
  const window = Number(/(?:^|;)\s*w=(\d+)/.exec(policy)?.[1])
  const next = Number(/(?:^|;)\s*t=(\d+)/.exec(field)?.[1])
  const perTokenMs = quota > 0 && window > 0 ? (window * 1000) / quota : next > 0 ? next * 1000 : 1000
  return { remaining: Number(remaining), perTokenMs }
}

export const makePolite = (options: { readonly concurrency: number; readonly log: (line: string) => void }): Polite => {
  let free = options.concurrency
  const waiting: Array<() => void> = []
  /** no request leaves before this instant (a 429's Retry-After, an empty bucket) */
  let notBefore = 0

  const acquire = async () => {
    if (free > 0) free--
    else await new Promise<void>((resolve) => waiting.push(resolve))
  }
  const release = () => {
    const next = waiting.shift()
    if (next === undefined) free++
    else next()
  }
  let waitedMs = 0
  const holdUntil = (instant: number) => {
    const now = Date.now()
    if (instant > notBefore) waitedMs += instant - Math.max(notBefore, now)
    notBefore = Math.max(notBefore, instant)
  }

  const attempt = async (url: string): Promise<Response> => {
    let failures = 0
    for (;;) {
      while (Date.now() < notBefore) await sleep(notBefore - Date.now())
      let response: Response
      try {
        response = await fetch(url, { redirect: "follow" })
      } catch (error) {
        failures++
        if (failures >= MAX_FAILURES) throw new Error(`GET ${url}: ${error instanceof Error ? error.message : String(error)}`)
        const pause = Math.min(30_000, 250 * 2 ** failures)
        options.log(`network error on ${url}; retrying in ${pause} ms`)
        await sleep(pause)
        continue
      }
      if (response.status === 429) {
        const pause = retryAfterMs(response) ?? 1000
        await response.body?.cancel()
        options.log(`rate limited (429); waiting ${Math.ceil(pause / 1000)} s`)
        holdUntil(Date.now() + pause)
        continue
      }
      // the last tokens are shared by every slot: wait until one is back for each rather than meet a 429
      const left = budget(response)
      if (left !== undefined && left.remaining < options.concurrency) {
        holdUntil(Date.now() + (options.concurrency - left.remaining) * left.perTokenMs)
      }
      if (response.status >= 500) {
        await response.body?.cancel()
        failures++
        if (failures >= MAX_FAILURES) throw new Error(`GET ${url}: ${response.status} after ${failures} tries`)
        const pause = retryAfterMs(response) ?? Math.min(30_000, 250 * 2 ** failures)
        options.log(`${response.status} on ${url}; retrying in ${pause} ms`)
        await sleep(pause)
        continue
      }
      return response
    }
  }

  return {
    get: async (url) => {
      await acquire()
      try {
        return await attempt(url)
      } finally {
        release()
      }
    },
    waitedMs: () => waitedMs
  }
}

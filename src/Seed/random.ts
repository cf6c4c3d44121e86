/**
 * A small, fast, seeded pseudo-random toolkit for the demo-catalogue generator.
 *
 * Nothing here touches `Math.random`: every value is a pure function of the seed, so the same
 * seed and size always produce the same catalogue. Besides a sequential generator there is
 * `streamFor(seed, stream, id)`, a generator keyed by an entity id, so facts about one row (an
 * artist's name, a song's base title) can be recomputed anywhere without keeping them in memory.
 */

/** 32-bit finaliser of MurmurHash3: a cheap, well-mixing integer hash. */
export const mix32 = (value: number): number => {
  let h = value | 0
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** Hashes a string to 32 bits (FNV-1a, then mixed). Used to turn stream names into numbers. */
export const hashString = (text: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return mix32(h)
}

/** Combines a seed, a stream and an id into one 32-bit seed. */
export const combine = (seed: number, stream: number, id: number): number =>
  mix32(mix32(seed ^ Math.imul(stream, 0x9e3779b1)) ^ Math.imul(id | 0, 0x85ebca77) ^ (id / 4294967296))

/**
 * sfc32 (Small Fast Counter, from PractRand): 128 bits of state, passes BigCrush, and is a few
 * integer operations per draw.
 */
export class Random {
  private a: number
  private b: number
  private c: number
  private d: number

  constructor(seed: number) {
    this.a = 0x9e3779b9
    this.b = 0x243f6a88
    this.c = 0xb7e15162
    this.d = seed >>> 0
    for (let i = 0; i < 12; i++) this.nextUint32()
  }

  /** A uniformly distributed unsigned 32-bit integer. */
  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return t >>> 0
  }

  /** A float in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296
  }

  /** An integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  /** True with the given probability. */
  chance(probability: number): boolean {
    return this.next() < probability
  }

  /** A uniformly chosen element of a non-empty list. */
  pick<A>(items: ReadonlyArray<A>): A {
    if (items.length === 0) throw new Error("pick from an empty list")
    return items[Math.floor(this.next() * items.length)] as A
  }

  /** An element chosen with probability proportional to its weight. */
  weighted<A>(items: ReadonlyArray<readonly [A, number]>): A {
    let total = 0
    for (const [, weight] of items) total += weight
    let target = this.next() * total
    for (const [item, weight] of items) {
      target -= weight
      if (target < 0) return item
    }
    const last = items[items.length - 1]
    if (last === undefined) throw new Error("weighted pick from an empty list")
    return last[0]
  }

  /**
   * A Zipf-like rank in [0, n): rank k comes up roughly in proportion to 1 / (k + 1), so a few
   * ranks are very common and the long tail is rare (log-uniform sampling, exponent 1).
   */
  zipf(n: number): number {
    if (n <= 1) return 0
    const rank = Math.floor(Math.exp(this.next() * Math.log(n + 1))) - 1
    return rank >= n ? n - 1 : rank < 0 ? 0 : rank
  }

  /** An exponentially distributed value with the given mean. */
  exponential(mean: number): number {
    return -Math.log(1 - this.next()) * mean
  }

  /** Lower-case hex string of the given length. */
  hex(length: number): string {
    let out = ""
    while (out.length < length) out += this.nextUint32().toString(16).padStart(8, "0")
    return out.slice(0, length)
  }

  /** A string of the given length drawn from an alphabet. */
  chars(alphabet: string, length: number): string {
    let out = ""
    for (let i = 0; i < length; i++) out += alphabet.charAt(Math.floor(this.next() * alphabet.length))
    return out
  }

  /** A `#rrggbb` colour, lower case. */
  colour(): string {
    return "#" + (this.nextUint32() & 0xffffff).toString(16).padStart(6, "0")
  }
}

/** A generator keyed by (seed, stream, id): the same triple always yields the same sequence. */
export const streamFor = (seed: number, stream: number, id: number): Random => new Random(combine(seed, stream, id))

const gcd = (a: number, b: number): number => {
  let x = Math.abs(a)
  let y = Math.abs(b)
  while (y !== 0) {
    const t = x % y
    x = y
    y = t
  }
  return x
}

/**
 * A cheap bijection on [0, n): i -> (i * multiplier + offset) mod n, with the multiplier coprime
 * to n. Spreads "the first k" of something over the whole id range without any table.
 */
export class Permutation {
  readonly n: number
  private readonly multiplier: number
  private readonly offset: number

  constructor(n: number, seed: number) {
    this.n = Math.max(1, Math.floor(n))
    let multiplier = Math.max(1, Math.floor(this.n * 0.6180339887) | 1)
    multiplier += mix32(seed) % 97
    while (gcd(multiplier, this.n) !== 1) multiplier++
    this.multiplier = multiplier % this.n === 0 ? 1 : multiplier
    this.offset = mix32(seed ^ 0x5bd1e995) % this.n
  }

  /** The image of i (0-based). Exact for n up to 2^31: the product is split to stay below 2^53. */
  at(i: number): number {
    const high = Math.floor(this.multiplier / 65536)
    const low = this.multiplier % 65536
    const product = (((i * high) % this.n) * 65536 + i * low + this.offset) % this.n
    return product
  }
}

/**
 * The seeds of every property test (fast-check): its fixed seeds, which replay a known run the
 * same way every time, and one seed drawn for this run, so that each run also explores cases no
 * run saw before. A failure names its seed; `PROPERTY_SEED=<seed> bun run test <file>` replays a
 * failure of the drawn one.
 */
import * as fc from "fast-check"

/** This run's drawn seed (the same for every property of the run), or PROPERTY_SEED. */
export const RUN_SEED: number = (() => {
  const given = process.env.PROPERTY_SEED
  if (given === undefined || given === "") return Math.floor(Math.random() * 2 ** 31)
  const seed = Number(given)
  if (!Number.isSafeInteger(seed)) throw new Error(`PROPERTY_SEED must be a whole number, got ${given}`)
  return seed
})()

export interface PropertySeed {
  readonly seed: number
  /** what a failure reports: which seed, and how to replay it */
  readonly label: string
  readonly drawn: boolean
}

/**
 * The fixed seeds, then this run's seed. `offset` is added to each (a property asked once per
 * operation or endpoint draws its own cases from `seed + index`).
 */
export const propertySeeds = (fixed: number | ReadonlyArray<number>, offset = 0): ReadonlyArray<PropertySeed> => [
  ...[fixed].flat().map((seed) => ({ seed: seed + offset, label: `fixed seed ${seed + offset}`, drawn: false })),
  { seed: RUN_SEED + offset, label: `drawn seed ${RUN_SEED + offset}, replayed by PROPERTY_SEED=${RUN_SEED}`, drawn: true }
]

const named = (label: string, error: unknown) =>
  new Error(`property failed with the ${label}:\n${error instanceof Error ? error.message : String(error)}`, { cause: error })

/**
 * `fc.assert` once per seed of `propertySeeds(fixed)`; `examples` are asked with the fixed seeds
 * only (they are fixed inputs). A failure names its seed.
 */
export function assertProperty<Ts>(property: fc.IProperty<Ts>, fixed: number | ReadonlyArray<number>, parameters?: fc.Parameters<Ts>): void
export function assertProperty<Ts>(property: fc.IAsyncProperty<Ts>, fixed: number | ReadonlyArray<number>, parameters?: fc.Parameters<Ts>): Promise<void>
export function assertProperty<Ts>(
  property: fc.IProperty<Ts> | fc.IAsyncProperty<Ts>,
  fixed: number | ReadonlyArray<number>,
  parameters: fc.Parameters<Ts> = {}
): void | Promise<void> {
  const optionsOf = ({ seed, drawn }: PropertySeed): fc.Parameters<Ts> =>
    drawn ? { ...parameters, seed, examples: [] } : { ...parameters, seed }
  const seeds = propertySeeds(fixed)
  if (property.isAsync()) {
    return (async () => {
      for (const run of seeds) {
        try {
          await fc.assert(property as fc.IAsyncProperty<Ts>, optionsOf(run))
        } catch (error) {
          throw named(run.label, error)
        }
      }
    })()
  }
  for (const run of seeds) {
    try {
      fc.assert(property as fc.IProperty<Ts>, optionsOf(run))
    } catch (error) {
      throw named(run.label, error)
    }
  }
}

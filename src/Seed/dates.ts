/** Calendar arithmetic of the seed: days are whole UTC days since the epoch. */
export const DAY_MS = 86_400_000
export const EARLIEST_YEAR = 1960
export const CATALOGUE_START_MS = Date.UTC(2012, 0, 1)
export const VIDSVC_START_DAY = Date.UTC(2006, 0, 1) / DAY_MS

export const dayOf = (year: number, month: number, day: number) => Date.UTC(year, month - 1, day) / DAY_MS
export const dateText = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10)
export const timeText = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString()
export const isLeap = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0

export const parseToday = (today: Date | string | undefined): number => {
  if (today === undefined) return Math.floor(Date.now() / DAY_MS)
  if (typeof today === "string") {
    const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(today)
    if (match === null) throw new Error(`today must be YYYY-MM-DD, got ${today}`)
    return dayOf(Number(match[1]), Number(match[2]), Number(match[3]))
  }
  return Math.floor(today.getTime() / DAY_MS)
}

export type DateType = "FULL" | "MONTH" | "YEAR" | null

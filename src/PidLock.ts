import { readFileSync, writeFileSync } from "node:fs"

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * A lock file naming the process that holds it (PGlite's data directory, the snapshots'
 * directory): taken when there is none or its holder is gone; else the live holder's pid.
 */
export const takePidLock = (path: string): number | undefined => {
  try {
    writeFileSync(path, String(process.pid), { flag: "wx" })
    return undefined
  } catch {
    // there is one: whose?
  }
  let holder = NaN
  try {
    holder = Number(readFileSync(path, "utf8").trim())
  } catch {
    // removed meanwhile
  }
  if (Number.isSafeInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) return holder
  writeFileSync(path, String(process.pid))
  return undefined
}

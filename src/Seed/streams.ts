import { hashString } from "./random.js"

/** The ids of the random streams: each row kind draws from its own stream, keyed by row id. */
export const S = {
  artist: hashString("artist"),
  namesake: hashString("namesake"),
  group: hashString("group"),
  member: hashString("member"),
  label: hashString("label"),
  song: hashString("song"),
  title: hashString("title"),
  album: hashString("album"),
  albumClose: hashString("album-close"),
  walk: hashString("walk"),
  list: hashString("list"),
  loves: hashString("loves"),
  perm: hashString("perm")
} as const


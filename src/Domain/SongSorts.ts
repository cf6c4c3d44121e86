import type { TableKeysetSort } from "./Keyset.js"
import { songSummary } from "./Song.js"

export type SongSortName = "released" | "popular" | "title"

const item = songSummary.json("s")

/**
 * The sorts of every list of public song summaries (/v1/songs, a label's and a genre's
 * songs): keys match the partial indexes of 0001 and 0002; `id` breaks ties (src/Domain/Keyset.ts).
 */
export const songSortKeys: Record<SongSortName, Omit<TableKeysetSort, "descending">> = {
  released: { source: "public_songs s", alias: "s", key: "s.released_at", keyJson: "iso_date(s.released_at)", keyType: "date", item },
  popular: {
    source: "public_songs s",
    alias: "s",
    key: "coalesce(s.vidsvc_views, -1)",
    keyJson: "coalesce(s.vidsvc_views, -1)",
    keyType: "bigint",
    item
  },
  title: { source: "public_songs s", alias: "s", key: "lower(s.title)", keyJson: "lower(s.title)", keyType: "text", item }
}

/** Whose songs a list is: one genre's or one label's (their links). */
export type SongOwner = "genre" | "label"

/**
 * Kept orders of one owner's songs, each an index range of the owner: the links' release dates
 * (sql/0028) and the labels' popularity order (sql/0030). Rows `s` are the public songs of every
 * owner with `s.order_owner` (a list filters it to one owner, always: a song of two is two rows)
 * and the sort's value as kept there, `s.order_key`.
 */
const ownOrders: Record<SongOwner, Partial<Record<SongSortName, string>>> = {
  genre: { released: "song_genres o" },
  label: { released: "song_labels o", popular: "label_song_views o" }
}
const ownKeyColumn: Partial<Record<SongSortName, string>> = { released: "released_at", popular: "views" }

/**
 * The owner's own order for this sort, the same order and cursor keys as the catalogue's; none
 * where the owner keeps none (then the catalogue's order is walked with a probe of the links).
 */
export const ownSongSort = (owner: SongOwner, name: SongSortName, descending: boolean): TableKeysetSort | undefined => {
  const rows = ownOrders[owner][name]
  const column = ownKeyColumn[name]
  if (rows === undefined || column === undefined) return undefined
  return {
    source: `(SELECT s.*, o.${owner}_id AS order_owner, o.${column} AS order_key FROM ${rows} JOIN public_songs s ON s.id = o.song_id) s`,
    alias: "s",
    key: "s.order_key",
    keyJson: name === "released" ? "iso_date(s.order_key)" : "s.order_key",
    keyType: songSortKeys[name].keyType,
    item,
    descending
  }
}

/** Newest first, most watched first, titles A-Z. */
export const songSortDescendingByDefault: Record<SongSortName, boolean> = { released: true, popular: true, title: false }

export const songSort = (name: SongSortName, descending = songSortDescendingByDefault[name]): TableKeysetSort => ({
  ...songSortKeys[name],
  descending
})

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

/**
 * Most watched within one label, from sql/0030's kept order: rows `s` are the public songs of
 * every label with `s.order_label` (a list filters it to one label, always: a song of two labels
 * is two rows) and the views as kept there; the same order and cursor keys as `popular`.
 */
export const labelPopularSort = (descending: boolean): TableKeysetSort => ({
  source: "(SELECT s.*, o.label_id AS order_label, o.views AS order_views FROM label_song_views o JOIN public_songs s ON s.id = o.song_id) s",
  alias: "s",
  key: "s.order_views",
  keyJson: "s.order_views",
  keyType: "bigint",
  item,
  descending
})

/** Newest first, most watched first, titles A-Z. */
export const songSortDescendingByDefault: Record<SongSortName, boolean> = { released: true, popular: true, title: false }

export const songSort = (name: SongSortName, descending = songSortDescendingByDefault[name]): TableKeysetSort => ({
  ...songSortKeys[name],
  descending
})

import type { TableKeysetSort } from "./Keyset.js"
import { songSummary, songSummaryOf } from "../Shapes/Song.js"

export type SongSortName = "released" | "popular" | "title"

const item = songSummary.json("s")

/**
 * The sorts of every list of public song summaries (/v1/songs, a label's and a genre's
 * songs): keys match the partial indexes songs_public_released_idx, songs_public_popular_idx and
 * songs_public_title_idx (sql/schema/2_catalogue.sql); `id` breaks ties (src/Queries/Keyset.ts).
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
 * The function that finds where an ascending walk of all public songs in the sort's order reaches
 * a position, from the sort's kept bucket counts (sql/definitions/4_orders.sql).
 */
export const songSortSeekFunction: Record<SongSortName, string> = {
  released: "public_song_released_seek",
  popular: "public_song_popular_seek",
  title: "public_song_title_seek"
}

/** Whose songs a list is: one genre's or one label's (their links). */
export type SongOwner = "genre" | "label"

/** The owner's letter in owner_song_orders. */
const ownerLetter: Record<SongOwner, string> = { genre: "g", label: "l" }
/** Each sort's key as owner_song_orders keeps it: the catalogue's sort expressions, copied. */
const ownKeyColumn: Record<SongSortName, string> = { released: "released_at", popular: "views", title: "title_key" }

/**
 * One owner's (a genre's or a label's) public songs in the sort's order, as kept
 * (the same order and cursor keys as the catalogue's): rows `s` of (id, order_owner, order_key,
 * released_at) of every owner (a list filters `s.order_owner` to one, always: a song of two is
 * two rows), read index-only, the public rule included; the summary is built for the page's rows
 * only (one primary-key probe each), never for the rows an offset skips.
 */
export const ownSongSort = (owner: SongOwner, name: SongSortName, descending: boolean): TableKeysetSort => ({
  source: `(SELECT o.song_id AS id, o.owner_id AS order_owner, o.${ownKeyColumn[name]} AS order_key, o.released_at
      FROM owner_song_orders o WHERE o.owner = '${ownerLetter[owner]}' AND song_is_public(o.public_from, NULL)) s`,
  alias: "s",
  key: "s.order_key",
  keyJson: name === "released" ? "iso_date(s.order_key)" : "s.order_key",
  keyType: songSortKeys[name].keyType,
  item: songSummaryOf("s.id"),
  descending
})

/** Newest first, most watched first, titles A-Z. */
export const songSortDescendingByDefault: Record<SongSortName, boolean> = { released: true, popular: true, title: false }

export const songSort = (name: SongSortName, descending = songSortDescendingByDefault[name]): TableKeysetSort => ({
  ...songSortKeys[name],
  descending
})

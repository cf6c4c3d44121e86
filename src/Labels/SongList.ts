import type { KeysetSort } from "../Domain/Keyset.js"
import { songSummaryJsonSql } from "../Domain/Song.js"

export type SongListSortName = "released" | "popular" | "title"

const item = songSummaryJsonSql("s")

/**
 * The sorts of the song lists inside a label or a genre (D7): newest first, most watched first,
 * or by title. Public songs only; the caller adds the label or genre filter.
 */
export const songListSorts: Record<SongListSortName, KeysetSort> = {
  released: {
    source: "public_songs s",
    alias: "s",
    key: "s.released_at",
    keyJson: "iso_date(s.released_at)",
    keyType: "date",
    item,
    descending: true
  },
  popular: {
    source: "public_songs s",
    alias: "s",
    key: "coalesce(s.vidsvc_views, -1)",
    keyJson: "coalesce(s.vidsvc_views, -1)",
    keyType: "bigint",
    item,
    descending: true
  },
  title: {
    source: "public_songs s",
    alias: "s",
    key: "lower(s.title)",
    keyJson: "lower(s.title)",
    keyType: "text",
    item,
    descending: false
  }
}

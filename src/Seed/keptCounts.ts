/**
 * The recounts (and the change feed's backfill) that replace the triggers of the seeded tables
 * after a bulk load (src/Seed/bulkLoad.ts switches them all off). A count declared in
 * kept_counts() (sql/definitions/3_counts.sql) is recounted by `recount_kept_counts` with no line
 * here; a kept table with a recount of its own adds it in its place.
 */

/**
 * The recounts, in order, run once the tables are full (after ANALYZE: planned over the empty
 * tables' statistics, the per-label recount ran for more than 15 minutes at 1M songs). A recount
 * comes after those that write what it reads: test/recount-order.test.ts reads both from the SQL
 * and fails when one does not.
 */
export const RECOUNTS = [
  // the list of scheduled songs (what the settled counts leave out), the live songs per date
  "recount_scheduled_song_links",
  "recount_artist_song_counts",
  // every declared count, each total after the counts it sums
  "recount_kept_counts",
  "recount_artist_role_counts",
  "recount_artist_album_links",
  "recount_member_contribution_ranks",
  "recount_scheduled_label_albums",
  "recount_song_facet_counts",
  "recount_owner_song_orders",
  "recount_member_contribution_orders",
  "recount_artist_song_orders",
  "recount_song_sort_buckets",
  // the search tables read the kept counts for their popularity
  "refill_search",
  "refill_member_name_grams",
  // last: the feed's first entries read the catalogue as the counts left it
  "feed_backfill"
] as const

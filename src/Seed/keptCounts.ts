/**
 * The recounts (and the change feed's backfill) that replace the triggers of the seeded tables
 * after a bulk load (src/Seed/bulkLoad.ts switches them all off). A kept count added to the schema
 * (docs/data-model.md) adds its recount here.
 */

/**
 * The recounts, in order, run once the tables are full (after ANALYZE: planned over the empty
 * tables' statistics, the per-label recount ran for more than 15 minutes at 1M songs). The
 * artist song counts, the settled contributions and the labels' and genres' settled songs read
 * the list of scheduled songs the catalogue counts rebuild, so they come after it; the members'
 * ranks read the settled contributions.
 */
export const RECOUNTS = [
  "recount_public_counts",
  "recount_catalogue_counts",
  "recount_artist_song_counts",
  "recount_artist_role_counts",
  // the artists' albums (reads the list of scheduled songs)
  "recount_artist_album_links",
  "recount_member_settled_contributions",
  // the public members of each kind
  "recount_public_member_kinds",
  // the settled songs of labels and genres, and the members' ranks (read the two above)
  "recount_link_song_counts",
  "recount_member_contribution_ranks",
  "recount_scheduled_label_albums",
  "recount_song_facet_counts",
  // the genres' and labels' songs in every order, the members' contributions in order
  "recount_owner_song_orders",
  "recount_member_contribution_orders",
  // the artists' songs in order
  "recount_artist_song_orders",
  // the popular and title buckets of settled songs (read the list of scheduled songs)
  "recount_song_sort_buckets",
  // the search tables read the kept counts for their popularity
  "refill_search",
  // the public members' short name texts (artists' follow artist_song_counts)
  "refill_member_name_grams",
  // last: the feed's first entries read the catalogue as the counts left it
  "feed_backfill"
] as const

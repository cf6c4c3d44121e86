/**
 * The kept counts and change-feed triggers a bulk load switches off, and the recounts (and the
 * feed's backfill) that replace them at the end.
 *
 * A trigger that keeps a count on a seeded table must be named here; test/seed.test.ts checks
 * this list against every trigger in the migrated schema, so adding a count trigger in a
 * migration without adding it here fails that test, and naming a trigger that no longer exists
 * fails the seed. Triggers on the count tables themselves (artist_counts, ...) stay on: the
 * recounts write those tables, and their triggers carry the change on.
 */
import type { SeedTable } from "./tables.js"

export const KEPT_COUNT_TRIGGERS: Partial<Record<SeedTable, ReadonlyArray<string>>> = {
  album_tracks: [
    "album_tracks_artist_album_count_delete", "album_tracks_artist_album_count_insert", "album_tracks_artist_album_count_truncate",
    "album_tracks_artist_album_count_update", "album_tracks_search_popularity"
  ],
  album_artists: [
    "album_artists_artist_album_count_delete", "album_artists_artist_album_count_insert", "album_artists_artist_album_count_truncate",
    "album_artists_artist_album_count_update", "album_artists_count_delete", "album_artists_count_insert", "album_artists_count_truncate",
    "album_artists_count_update"
  ],
  albums: [
    "albums_artist_album_count_update", "albums_catalogue_count_delete", "albums_catalogue_count_insert", "albums_catalogue_count_truncate",
    "albums_catalogue_count_update", "albums_count_delete", "albums_count_insert", "albums_count_truncate", "albums_count_update",
    "albums_scheduled_label_count_delete", "albums_scheduled_label_count_insert", "albums_scheduled_label_count_truncate", "albums_scheduled_label_count_update",
    "albums_search_popularity", "albums_search_delete", "albums_search_insert", "albums_search_update"
  ],
  // a rename moves the artist in sql/0025's kept name order
  artists: ["artists_name_key_update", "artists_search_delete", "artists_search_insert", "artists_search_update"],
  contributions: [
    "contributions_catalogue_count_truncate", "contributions_count_delete", "contributions_count_insert",
    "contributions_count_truncate", "contributions_count_update", "contributions_member_count_delete",
    "contributions_member_count_insert", "contributions_member_count_truncate", "contributions_member_count_update",
    "contributions_scheduled_count_delete", "contributions_scheduled_count_insert", "contributions_scheduled_count_update",
    // sql/0035: the members' contributions in order
    "contributions_order_delete", "contributions_order_insert", "contributions_order_truncate", "contributions_order_update"
  ],
  credits: [
    "credits_artist_album_count_delete", "credits_artist_album_count_insert", "credits_artist_album_count_truncate",
    "credits_artist_album_count_update", "credits_artist_role_count_delete", "credits_artist_role_count_insert", "credits_artist_role_count_truncate",
    "credits_artist_role_count_update", "credits_artist_song_count_delete", "credits_artist_song_count_insert", "credits_artist_song_count_truncate",
    "credits_artist_song_count_update", "credits_count_delete", "credits_count_insert", "credits_count_truncate",
    "credits_count_update", "credits_scheduled_count_delete", "credits_scheduled_count_insert", "credits_scheduled_count_update",
    // sql/0037: the artists' songs in order
    "credits_order_delete", "credits_order_insert", "credits_order_truncate", "credits_order_update"
  ],
  curated_lists: ["curated_lists_search_delete", "curated_lists_search_insert", "curated_lists_search_update"],
  curated_list_albums: ["curated_list_albums_search_popularity"],
  curated_list_songs: ["curated_list_songs_search_popularity"],
  genres: ["genres_search_delete", "genres_search_insert", "genres_search_update"],
  labels: ["labels_search_delete", "labels_search_insert", "labels_search_update"],
  members: [
    "members_public_total_count_delete", "members_public_total_count_insert", "members_public_total_count_truncate",
    "members_public_total_count_update", "members_kind_count_delete", "members_kind_count_insert", "members_kind_count_truncate",
    "members_kind_count_update", "members_rank_count_delete", "members_rank_count_insert", "members_rank_count_truncate",
    "members_rank_count_update", "members_settled_total_count_update",
    // a member gaining or losing a public profile moves the live contributors
    "members_visible_update",
    "members_search_delete", "members_search_insert", "members_search_update",
    // sql/0048: the public members' short name texts
    "members_name_grams_delete", "members_name_grams_insert", "members_name_grams_truncate", "members_name_grams_update"
  ],
  // a role changing tag recounts sql/0016's per-tag counts and sql/0022's artists' albums
  roles: ["roles_artist_album_count_update", "roles_artist_role_count_update", "roles_artist_song_order_update"],
  song_genres: [
    "song_genres_catalogue_count_truncate", "song_genres_count_delete", "song_genres_count_insert", "song_genres_count_truncate",
    "song_genres_count_update", "song_genres_facet_count_delete", "song_genres_facet_count_insert", "song_genres_facet_count_truncate",
    "song_genres_facet_count_update", "song_genres_genre_song_count_delete", "song_genres_genre_song_count_insert", "song_genres_genre_song_count_truncate",
    "song_genres_genre_song_count_update", "song_genres_scheduled_count_delete", "song_genres_scheduled_count_insert",
    "song_genres_scheduled_count_update",
    // sql/0028: the song's release date on the link (the seed writes it)
    "song_genres_release_date",
    // sql/0033: the genres' songs in every order
    "song_genres_order_delete", "song_genres_order_insert", "song_genres_order_truncate", "song_genres_order_update"
  ],
  song_labels: [
    "song_labels_catalogue_count_truncate", "song_labels_count_delete", "song_labels_count_insert", "song_labels_count_truncate",
    "song_labels_count_update", "song_labels_facet_count_delete", "song_labels_facet_count_insert", "song_labels_facet_count_truncate",
    "song_labels_facet_count_update", "song_labels_label_song_count_delete", "song_labels_label_song_count_insert", "song_labels_label_song_count_truncate",
    "song_labels_label_song_count_update", "song_labels_scheduled_count_delete", "song_labels_scheduled_count_insert",
    "song_labels_scheduled_count_update",
    "song_labels_release_date",
    // sql/0033: the labels' songs in every order
    "song_labels_order_delete", "song_labels_order_insert", "song_labels_order_truncate", "song_labels_order_update"
  ],
  songs: [
    // songs_count_trigger() (sql/0020) moves every kept count on insert, update and delete
    "songs_count_delete", "songs_count_insert", "songs_count_update",
    "songs_artist_role_count_truncate", "songs_artist_song_count_truncate", "songs_catalogue_count_truncate",
    "songs_facet_count_truncate", "songs_link_song_count_truncate", "songs_member_count_truncate", "songs_scheduled_count_delete", "songs_scheduled_count_insert", "songs_scheduled_count_update",
    "songs_search_popularity", "songs_search_delete", "songs_search_insert", "songs_search_update",
    "songs_sort_bucket_count_truncate",
    // sql/0032, 0033: a song's new values move its copies on its links and its owners' orders (the
    // seed writes the links' dates with the song and recounts the orders)
    "songs_link_copies_update"
  ]
}

/**
 * The change feed's triggers (sql/0010): one a table and operation, `feed_<table>_<op>`. A bulk
 * load switches them off too and writes the feed's first entries with one backfill at the end.
 */
const FEED_TABLES: ReadonlyArray<SeedTable> = [
  "songs", "credits", "song_genres", "song_labels", "album_tracks", "contributions", "song_versions", "loves", "albums",
  "album_artists", "curated_lists", "curated_list_songs", "curated_list_albums", "artists", "artist_memberships", "genres",
  "labels", "members"
]
const FEED_TRIGGERS = (table: SeedTable): ReadonlyArray<string> =>
  FEED_TABLES.includes(table) ? ["insert", "update", "delete"].map((op) => `feed_${table}_${op}`) : []

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
  // sql/0022: the artists' albums (reads the list of scheduled songs)
  "recount_artist_album_links",
  "recount_member_settled_contributions",
  // sql/0027: the public members of each kind
  "recount_public_member_kinds",
  // sql/0017: the settled songs of labels and genres, and the members' ranks (read the two above)
  "recount_link_song_counts",
  "recount_member_contribution_ranks",
  "recount_scheduled_label_albums",
  "recount_song_facet_counts",
  // sql/0033, 0035: the genres' and labels' songs in every order, the members' contributions in order
  "recount_owner_song_orders",
  "recount_member_contribution_orders",
  // sql/0037: the artists' songs in order
  "recount_artist_song_orders",
  // sql/0021: the popular and title buckets of settled songs (read the list of scheduled songs)
  "recount_song_sort_buckets",
  // the search table (sql/0015) reads the kept counts for its popularity
  "recount_search_entries",
  // sql/0048: the public members' short name texts (sql/0047's artists' follow artist_song_counts)
  "refill_member_name_grams",
  // last: the feed's first entries read the catalogue as the counts left it
  "feed_backfill"
] as const

/** (table, trigger) pairs of the kept counts and the feed, tables in write order. */
export const keptCountTriggers = (tables: ReadonlyArray<SeedTable>): ReadonlyArray<{ readonly table: SeedTable; readonly trigger: string }> =>
  tables.flatMap((table) => [...(KEPT_COUNT_TRIGGERS[table] ?? []), ...FEED_TRIGGERS(table)].map((trigger) => ({ table, trigger })))

/** The tables the seed fills, their columns, and the batches of rows it writes into them. */

/** Insert order: parents before children. */
export const SEED_TABLES = [
  "roles",
  "genres",
  "labels",
  "members",
  "artists",
  "artist_memberships",
  "songs",
  "albums",
  "credits",
  "song_genres",
  "song_labels",
  "song_versions",
  "album_tracks",
  "album_artists",
  "contributions",
  "curated_lists",
  "curated_list_songs",
  "curated_list_albums",
  "loves"
] as const
export type SeedTable = (typeof SEED_TABLES)[number]

/** Tables with an identity `id` column whose sequence is moved past the seeded ids. */
export const IDENTITY_TABLES = [
  "roles",
  "genres",
  "labels",
  "members",
  "artists",
  "songs",
  "albums",
  "curated_lists",
  "contributions"
] as const

const COLUMNS: Record<SeedTable, ReadonlyArray<string>> = {
  roles: ["id", "title", "slug", "tag", "sort_order"],
  genres: ["id", "slug", "title", "description", "color", "image_key"],
  labels: ["id", "name", "slug", "formerly_known_as"],
  members: ["id", "username", "name", "kind", "avatar_key", "joined_at", "email", "roles", "is_banned"],
  artists: ["id", "name", "slug", "prefix_title", "is_group", "avatar_key", "disambiguator", "member_id", "created_at"],
  artist_memberships: ["group_id", "member_id"],
  songs: [
    "id", "title", "slug", "released_at", "date_type", "published_at", "deleted_at", "artwork_key", "artwork_source",
    "artwork_dominant", "artwork_average", "notes", "lyrics", "views", "claps", "duration_ms", "vidsvc_video_id",
    "vidsvc_duration_seconds", "vidsvc_views", "vidsvc_views_per_day", "vidsvc_likes", "vidsvc_last_fetched",
    "streama_id", "streama_url", "streama_popularity", "streamb_id", "streamb_url", "created_at", "updated_at"
  ],
  albums: [
    "id", "title", "slug", "album_type", "released_at", "published_at", "label_id", "artwork_key",
    "artwork_dominant", "artwork_average", "created_at"
  ],
  credits: ["song_id", "position", "artist_id", "role_id"],
  song_genres: ["song_id", "genre_id", "released_at"],
  song_labels: ["song_id", "label_id", "released_at"],
  song_versions: ["song_id", "original_song_id", "kind"],
  album_tracks: ["album_id", "position", "song_id"],
  album_artists: ["album_id", "position", "artist_id"],
  contributions: ["id", "member_id", "song_id", "action", "action_at", "details"],
  curated_lists: [
    "id", "title", "description", "artwork_key", "artwork_dominant", "artwork_average", "content_type",
    "show_artists", "show_writers", "published_at", "updated_at"
  ],
  curated_list_songs: ["list_id", "position", "song_id"],
  curated_list_albums: ["list_id", "position", "album_id"],
  loves: ["member_id", "song_id", "loved_at"]
}

export type Row = Record<string, unknown>
export type Batch = Partial<Record<SeedTable, Array<Row>>>

export const insertStatement = (table: SeedTable): string => {
  const columns = COLUMNS[table].join(", ")
  return `INSERT INTO ${table} (${columns}) SELECT ${columns} FROM json_populate_recordset(NULL::${table}, $1::json)`
}

export const push = (batch: Batch, table: SeedTable, row: Row) => {
  const rows = batch[table]
  if (rows === undefined) batch[table] = [row]
  else rows.push(row)
}

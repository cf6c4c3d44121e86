import * as fc from "fast-check"

/**
 * Random writes of every kind the change feed follows, as SQL on a database holding the test
 * fixture and EDITED_ROWS: the feed's property test (test/changes.test.ts) and the mirror built
 * from a snapshot under writes (test/mirror-exact.test.ts) run them.
 */

/**
 * Rows the edits need beside the fixture: hidden albums (one naming nobody; one naming a public
 * artist, holding a public song, in a public albums-list), an invisible artist in a public group,
 * and a hidden song of the hidden artist 10 that no random edit touches.
 */
export const EDITED_ROWS = [
  `INSERT INTO albums (id, title, slug, album_type, released_at, published_at) VALUES
     (5, 'CANARY Hidden Single', 'canary-hidden-single', 'single', '2019-01-01', NULL),
     (6, 'CANARY Hidden EP', 'canary-hidden-ep', 'ep', '2019-01-01', NULL)`,
  `INSERT INTO album_artists (album_id, position, artist_id) VALUES (6, 1, 4)`,
  `INSERT INTO album_tracks (album_id, position, song_id) VALUES (6, 1, 4)`,
  `INSERT INTO curated_list_albums (list_id, position, album_id) VALUES (2, 4, 6)`,
  `INSERT INTO artists (id, name, slug, is_group) VALUES (12, 'CANARY Hidden Member', 'canary-hidden-member', false)`,
  `INSERT INTO artist_memberships (group_id, member_id) VALUES (3, 12)`,
  `INSERT INTO songs (id, title, slug, released_at, published_at) VALUES (190, 'CANARY Later', 'canary-later', '2020-01-01', NULL)`,
  `INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (190, 1, 10, 1)`
]

/** One random edit, as SQL on the test database. */
export type Edit =
  | { readonly kind: "publish" | "unpublish" | "delete" | "title" | "released" | "schedule"; readonly song: number }
  | { readonly kind: "credit" | "uncredit"; readonly song: number; readonly artist: number }
  | { readonly kind: "genre"; readonly song: number; readonly genre: number }
  | { readonly kind: "label"; readonly song: number; readonly label: number }
  | { readonly kind: "version"; readonly song: number; readonly original: number }
  | { readonly kind: "love"; readonly song: number; readonly member: number }
  | { readonly kind: "contribution"; readonly song: number; readonly member: number }
  | { readonly kind: "track" | "untrack"; readonly song: number; readonly album: number }
  | { readonly kind: "listEntry" | "unlistEntry"; readonly song: number; readonly list: number }
  | { readonly kind: "albumPublish" | "albumUnpublish" | "albumSchedule" | "albumListEntry"; readonly album: number }
  | { readonly kind: "albumTitle"; readonly album: number; readonly salt: number }
  | { readonly kind: "albumArtist"; readonly album: number; readonly artist: number }
  | { readonly kind: "listTitle"; readonly list: number; readonly salt: number }
  | { readonly kind: "listPublish" | "listUnpublish"; readonly list: number }
  | { readonly kind: "ban" | "unban" | "handle"; readonly member: number; readonly salt: number }
  | { readonly kind: "artistName" | "artistAvatar"; readonly artist: number; readonly salt: number }
  | { readonly kind: "membership"; readonly member: number }
  | { readonly kind: "genreTitle"; readonly genre: number; readonly salt: number }
  | { readonly kind: "labelName"; readonly label: number; readonly salt: number }

export type EditKind = Edit["kind"]

const SONGS = [1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 100, 101]
const song = fc.constantFrom(...SONGS)
const artist = fc.integer({ min: 1, max: 11 })
const album = fc.integer({ min: 1, max: 6 })
const list = fc.integer({ min: 1, max: 3 })
const member = fc.constantFrom(1, 2, 5, 6, 100, 300)
const salt = fc.integer({ min: 1, max: 1_000_000 })

/** Edits of each of `names`, with `fields` drawn. */
const kinds = <K extends EditKind>(names: ReadonlyArray<K>, fields: Record<string, fc.Arbitrary<unknown>>) =>
  Object.fromEntries(names.map((kind) => [kind, fc.record({ kind: fc.constant(kind), ...fields }) as unknown as fc.Arbitrary<Edit>])) as Record<K, fc.Arbitrary<Edit>>

/** Each kind's edits: every row the change feed follows is inserted, changed or removed by some kind. */
export const EDIT_ARBS: { readonly [K in EditKind]: fc.Arbitrary<Edit> } = {
  ...kinds(["publish", "unpublish", "delete", "title", "released", "schedule"], { song }),
  ...kinds(["credit", "uncredit"], { song, artist }),
  ...kinds(["genre"], { song, genre: fc.integer({ min: 1, max: 3 }) }),
  ...kinds(["label"], { song, label: fc.integer({ min: 1, max: 3 }) }),
  ...kinds(["version"], { song, original: fc.constantFrom(1, 2, 10) }),
  ...kinds(["love", "contribution"], { song, member }),
  ...kinds(["track", "untrack"], { song, album }),
  ...kinds(["listEntry", "unlistEntry"], { song, list }),
  ...kinds(["albumPublish", "albumUnpublish", "albumSchedule", "albumListEntry"], { album }),
  ...kinds(["albumTitle"], { album, salt }),
  // artist 12 is never credited: always invisible
  ...kinds(["albumArtist"], { album, artist: fc.integer({ min: 1, max: 12 }) }),
  ...kinds(["listTitle"], { list, salt }),
  ...kinds(["listPublish", "listUnpublish"], { list }),
  ...kinds(["ban", "unban", "handle"], { member, salt }),
  ...kinds(["artistName", "artistAvatar"], { artist: fc.integer({ min: 1, max: 12 }), salt }),
  ...kinds(["membership"], { member: fc.constantFrom(4, 5, 10, 12) }),
  ...kinds(["genreTitle"], { genre: fc.integer({ min: 1, max: 4 }), salt }),
  ...kinds(["labelName"], { label: fc.integer({ min: 1, max: 3 }), salt })
}

export const EDIT_KINDS = Object.keys(EDIT_ARBS) as ReadonlyArray<EditKind>

/** An edit of any kind, every kind as likely. */
export const editArb: fc.Arbitrary<Edit> = fc.oneof(...EDIT_KINDS.map((kind) => EDIT_ARBS[kind]))

/** One edit of every kind, in a random order (a run that exercises every row the feed follows). */
export const everyKindArb: fc.Arbitrary<ReadonlyArray<Edit>> = fc
  .shuffledSubarray([...EDIT_KINDS], { minLength: EDIT_KINDS.length })
  .chain((kinds) => fc.tuple(...kinds.map((kind) => EDIT_ARBS[kind])))

export const editSql = (edit: Edit): string => {
  switch (edit.kind) {
    case "publish":
      return `UPDATE songs SET published_at = now() - interval '1 minute', deleted_at = NULL WHERE id = ${edit.song}`
    case "unpublish":
      return `UPDATE songs SET published_at = NULL WHERE id = ${edit.song}`
    case "delete":
      return `UPDATE songs SET deleted_at = now() WHERE id = ${edit.song}`
    case "title":
      return `UPDATE songs SET title = left(title, 40) || '~' WHERE id = ${edit.song}`
    case "released":
      // a year earlier keeps a MONTH or YEAR date on the first of its month
      return `UPDATE songs SET released_at = (released_at - interval '1 year')::date WHERE id = ${edit.song}`
    case "schedule":
      return `UPDATE songs SET published_at = clock_timestamp() + interval '2.5 seconds', deleted_at = NULL WHERE id = ${edit.song}`
    case "credit":
      return `INSERT INTO credits (song_id, position, artist_id, role_id)
              SELECT ${edit.song}, coalesce(max(position), 0) + 1, ${edit.artist}, 1 FROM credits WHERE song_id = ${edit.song}`
    case "uncredit":
      return `DELETE FROM credits WHERE song_id = ${edit.song} AND artist_id = ${edit.artist}`
    case "genre":
      return `WITH gone AS (DELETE FROM song_genres WHERE song_id = ${edit.song} AND genre_id = ${edit.genre} RETURNING 1)
              INSERT INTO song_genres (song_id, genre_id) SELECT ${edit.song}, ${edit.genre} WHERE NOT EXISTS (SELECT 1 FROM gone)`
    case "label":
      return `WITH gone AS (DELETE FROM song_labels WHERE song_id = ${edit.song} AND label_id = ${edit.label} RETURNING 1)
              INSERT INTO song_labels (song_id, label_id) SELECT ${edit.song}, ${edit.label} WHERE NOT EXISTS (SELECT 1 FROM gone)`
    case "version":
      return `WITH gone AS (DELETE FROM song_versions WHERE song_id = ${edit.song} AND original_song_id = ${edit.original} RETURNING 1)
              INSERT INTO song_versions (song_id, original_song_id)
              SELECT ${edit.song}, ${edit.original} WHERE ${edit.song} <> ${edit.original} AND NOT EXISTS (SELECT 1 FROM gone)`
    case "love":
      return `WITH gone AS (DELETE FROM loves WHERE song_id = ${edit.song} AND member_id = ${edit.member} RETURNING 1)
              INSERT INTO loves (member_id, song_id) SELECT ${edit.member}, ${edit.song} WHERE NOT EXISTS (SELECT 1 FROM gone)`
    case "contribution":
      // the member's latest contribution to the song removed, or a new one
      return `WITH gone AS (DELETE FROM contributions WHERE id = (SELECT max(id) FROM contributions
                WHERE song_id = ${edit.song} AND member_id = ${edit.member}) RETURNING 1)
              INSERT INTO contributions (member_id, song_id, action, action_at, details)
              SELECT ${edit.member}, ${edit.song}, 'edit', now(), '{"changed_title":true}' WHERE NOT EXISTS (SELECT 1 FROM gone)`
    case "track":
      return `INSERT INTO album_tracks (album_id, position, song_id)
              SELECT ${edit.album}, coalesce(max(position), 0) + 1, ${edit.song} FROM album_tracks WHERE album_id = ${edit.album}
              ON CONFLICT DO NOTHING`
    case "untrack":
      return `DELETE FROM album_tracks WHERE album_id = ${edit.album} AND song_id = ${edit.song}`
    case "listEntry":
      return `INSERT INTO curated_list_songs (list_id, position, song_id)
              SELECT ${edit.list}, coalesce(max(position), 0) + 1, ${edit.song} FROM curated_list_songs WHERE list_id = ${edit.list}`
    case "unlistEntry":
      return `DELETE FROM curated_list_songs WHERE list_id = ${edit.list} AND song_id = ${edit.song}`
    case "albumPublish":
      return `UPDATE albums SET published_at = now() - interval '1 minute' WHERE id = ${edit.album}`
    case "albumUnpublish":
      return `UPDATE albums SET published_at = NULL WHERE id = ${edit.album}`
    case "albumSchedule":
      return `UPDATE albums SET published_at = clock_timestamp() + interval '2.5 seconds' WHERE id = ${edit.album}`
    case "albumListEntry":
      return `WITH gone AS (DELETE FROM curated_list_albums WHERE list_id = 2 AND album_id = ${edit.album} RETURNING 1)
              INSERT INTO curated_list_albums (list_id, position, album_id)
              SELECT 2, coalesce(max(position), 0) + 1, ${edit.album} FROM curated_list_albums
              WHERE list_id = 2 HAVING NOT EXISTS (SELECT 1 FROM gone)`
    case "albumTitle":
      return `UPDATE albums SET title = left(title, 30) || ' ${edit.salt}' WHERE id = ${edit.album}`
    case "albumArtist":
      return `WITH gone AS (DELETE FROM album_artists WHERE album_id = ${edit.album} AND artist_id = ${edit.artist} RETURNING 1)
              INSERT INTO album_artists (album_id, position, artist_id)
              SELECT ${edit.album}, coalesce(max(position), 0) + 1, ${edit.artist} FROM album_artists
              WHERE album_id = ${edit.album} HAVING NOT EXISTS (SELECT 1 FROM gone)`
    case "listTitle":
      return `UPDATE curated_lists SET title = left(title, 20) || ' ${edit.salt}', updated_at = now() WHERE id = ${edit.list}`
    case "listPublish":
      return `UPDATE curated_lists SET published_at = now() - interval '1 minute' WHERE id = ${edit.list}`
    case "listUnpublish":
      return `UPDATE curated_lists SET published_at = NULL WHERE id = ${edit.list}`
    case "artistName":
      return `UPDATE artists SET name = left(name, 30) || ' ${edit.salt}' WHERE id = ${edit.artist}`
    case "artistAvatar":
      return `UPDATE artists SET avatar_key = 'avatars/artists/${edit.salt}.jpg' WHERE id = ${edit.artist}`
    case "membership":
      return `WITH gone AS (DELETE FROM artist_memberships WHERE group_id = 3 AND member_id = ${edit.member} RETURNING 1)
              INSERT INTO artist_memberships (group_id, member_id) SELECT 3, ${edit.member} WHERE NOT EXISTS (SELECT 1 FROM gone)`
    case "genreTitle":
      return `UPDATE genres SET title = left(title, 20) || ' ${edit.salt}' WHERE id = ${edit.genre}`
    case "labelName":
      return `UPDATE labels SET name = left(name, 20) || ' ${edit.salt}' WHERE id = ${edit.label}`
    case "ban":
      return `UPDATE members SET is_banned = true WHERE id = ${edit.member}`
    case "unban":
      return `UPDATE members SET is_banned = false WHERE id = ${edit.member}`
    case "handle":
      return `UPDATE members SET username = 'h${edit.salt}_${edit.member}' WHERE id = ${edit.member}`
  }
}

/**
 * Edits that wait for no lock the other edits take (no kept count moves, rows no other edit
 * touches): safe in a second transaction opened while the first is still open.
 */
export const quietEditArb: fc.Arbitrary<Edit> = fc.record({ kind: fc.constant("title" as const), song: fc.integer({ min: 102, max: 110 }) })

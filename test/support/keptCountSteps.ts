import { expect } from "bun:test"

/**
 * A kept-count test step and its undo: the clock passes scheduled song `songId`'s published_at
 * with no write since (a "due" song: listed in scheduled_song_links, its time come). Triggers are
 * off for the step, as the clock writes nothing; `scheduledAt` is the song's published_at to restore.
 * The kept rows that copy a song's published_at (owner_song_orders,
 * member_contribution_orders, artist_song_orders) follow it, as they would be equal when
 * the time comes.
 */
export const clockPassesScheduledSong = (songId: number, scheduledAt: string): [string, string] => {
  const setTo = (at: string) => `SET session_replication_role = replica;
   UPDATE songs SET published_at = ${at} WHERE id = ${songId};
   UPDATE scheduled_song_links SET published_at = ${at} WHERE song_id = ${songId};
   UPDATE owner_song_orders SET public_from = ${at} WHERE song_id = ${songId};
   UPDATE member_contribution_orders SET public_from = ${at} WHERE song_id = ${songId};
   UPDATE artist_song_orders SET public_from = ${at} WHERE song_id = ${songId};
   SET session_replication_role = DEFAULT`
  return [setTo("now() - interval '1 second'"), setTo(`'${scheduledAt}'`)]
}

/**
 * One statement moving songs every way at once (songs_count_trigger() sums them in one pass, and
 * hands the settled ones to move_settled_songs()): unpublished (3), deleted (5), published (10),
 * scheduled song 12 made public now, one only re-dated into another year (4), one untouched (6).
 */
export const songsMovedEveryWay: [string, string] = [
  `CREATE TABLE songs_before AS SELECT id, published_at, deleted_at, released_at FROM songs WHERE id IN (3, 5, 10, 12, 4, 6);
   UPDATE songs SET
     published_at = CASE id WHEN 3 THEN NULL WHEN 10 THEN now() - interval '1 day'
                            WHEN 12 THEN now() - interval '1 second' ELSE published_at END,
     deleted_at = CASE id WHEN 5 THEN now() ELSE deleted_at END,
     released_at = CASE id WHEN 4 THEN DATE '1997-03-03' ELSE released_at END
   WHERE id IN (3, 5, 10, 12, 4, 6)`,
  `UPDATE songs s SET published_at = b.published_at, deleted_at = b.deleted_at, released_at = b.released_at
     FROM songs_before b WHERE b.id = s.id;
   DROP TABLE songs_before`
]

/**
 * The same for scheduled album `albumId`: the clock passes its published_at with no write since.
 * The kept rows that copy an album's published_at (scheduled_label_albums,
 * artist_album_links) follow it, as they would be equal when the time comes.
 */
export const clockPassesScheduledAlbum = (albumId: number, scheduledAt: string): [string, string] => {
  const setTo = (at: string) => `SET session_replication_role = replica;
   UPDATE albums SET published_at = ${at} WHERE id = ${albumId};
   UPDATE scheduled_label_albums SET published_at = ${at} WHERE album_id = ${albumId};
   UPDATE artist_album_links SET published_at = ${at} WHERE album_id = ${albumId};
   SET session_replication_role = DEFAULT`
  return [setTo("now() - interval '1 second'"), setTo(`'${scheduledAt}'`)]
}

/**
 * Each step, then its undo: after the change, what the service serves must equal counting the
 * public rows (`observe` gives both); after the undo, it must be what it was `before`.
 */
export const expectEveryStepCounted = async <A>(
  run: (statement: string) => Promise<unknown>,
  steps: ReadonlyArray<readonly [change: string, undo: string]>,
  observe: () => Promise<{ readonly served: A; readonly counted: A }>,
  before: A
) => {
  for (const [change, undo] of steps) {
    try {
      await run(change)
      const after = await observe()
      expect({ change, served: after.served }).toEqual({ change, served: after.counted })
    } finally {
      await run(undo)
    }
    expect({ undo, served: (await observe()).served }).toEqual({ undo, served: before })
  }
}

/**
 * Every kind of change to the fixture that moves an artist's, a member's or a list's public
 * counts, each with its undo: songs published, scheduled, deleted and due; credits and roles;
 * renames; albums, their tracks and named artists; members; contributions.
 */
export const everyKindOfChange = async (
  sql: <A extends object>(text: string) => Promise<ReadonlyArray<A>>
): Promise<ReadonlyArray<[string, string]>> => {
  const [future] = await sql<{ published_at: string }>("SELECT published_at::text FROM songs WHERE id = 12")
  const [member] = await sql<{ username: string }>("SELECT username FROM members WHERE id = 2")
  const scheduledAlbum = clockPassesScheduledAlbum(4, new Date(Date.now() + 3 * 86_400_000).toISOString())
  const dueSong = clockPassesScheduledSong(12, future!.published_at)
  const steps: Array<[string, string]> = [
    ["UPDATE songs SET deleted_at = now() WHERE id = 4", "UPDATE songs SET deleted_at = NULL WHERE id = 4"],
    ["UPDATE songs SET published_at = NULL WHERE id IN (1, 2)",
      "UPDATE songs SET published_at = CASE id WHEN 1 THEN timestamptz '2020-01-01T00:00:00Z' ELSE timestamptz '2020-01-02T00:00:00Z' END WHERE id IN (1, 2)"],
    // the scheduled song is published now: the artist credited only on hidden songs appears
    ["UPDATE songs SET published_at = now() - interval '1 second' WHERE id = 12",
      `UPDATE songs SET published_at = '${future!.published_at}' WHERE id = 12`],
    // the clock passes the scheduled song's published_at with no write since: a "due" song
    clockPassesScheduledSong(12, future!.published_at),
    // a due song unpublished, or given a label, before anything settled it
    [`${dueSong[0]}; UPDATE songs SET published_at = NULL WHERE id = 12`, `UPDATE songs SET published_at = '${future!.published_at}' WHERE id = 12`],
    [`${dueSong[0]}; INSERT INTO song_labels (song_id, label_id) VALUES (12, 3)`,
      `DELETE FROM song_labels WHERE song_id = 12 AND label_id = 3; UPDATE songs SET published_at = '${future!.published_at}' WHERE id = 12`],
    songsMovedEveryWay,
    ["DELETE FROM credits WHERE song_id = 12",
      "INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (12, 1, 10, 1), (12, 2, 1, 2)"],
    // a public song becomes scheduled, and back
    ["UPDATE songs SET published_at = now() + interval '3 days' WHERE id = 7",
      "UPDATE songs SET published_at = '2020-01-07T00:00:00Z' WHERE id = 7"],
    ["UPDATE songs SET published_at = now() - interval '1 day' WHERE id = 10", "UPDATE songs SET published_at = NULL WHERE id = 10"],
    // credits: one artist twice on a song counts once; the only credit of artist 9 moves
    ["INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (6, 9, 8, 2)", "DELETE FROM credits WHERE song_id = 6 AND position = 9"],
    ["UPDATE credits SET artist_id = 10 WHERE song_id = 7", "UPDATE credits SET artist_id = 9 WHERE song_id = 7"],
    ["DELETE FROM credits WHERE song_id = 6", "INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (6, 1, 8, 1)"],
    // roles: a credit changing role, twice in one role and once in another, a role changing tag
    ["UPDATE credits SET role_id = 3 WHERE song_id = 6 AND position = 1", "UPDATE credits SET role_id = 1 WHERE song_id = 6 AND position = 1"],
    ["INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (6, 8, 8, 1), (6, 9, 8, 3), (6, 10, 8, 4)",
      "DELETE FROM credits WHERE song_id = 6 AND position IN (8, 9, 10)"],
    ["UPDATE roles SET tag = 'writer' WHERE id = 2", "UPDATE roles SET tag = 'performer' WHERE id = 2"],
    // an honorific (keeps the folded name with it): the artist is found by "xq"
    ["UPDATE artists SET prefix_title = 'Xq ' || coalesce(prefix_title, '') WHERE id = 2",
      "UPDATE artists SET prefix_title = nullif(substr(prefix_title, 4), '') WHERE id = 2"],
    // renames (kept name keys): an artist to the end of the list and one to the front, a hidden artist
    ["UPDATE artists SET name = CASE id WHEN 1 THEN 'Zzz ' || name ELSE 'AAA ' || name END WHERE id IN (1, 8)",
      "UPDATE artists SET name = substr(name, 5) WHERE id IN (1, 8)"],
    // a hidden artist renamed, then its scheduled song published: it enters the list under its new name
    [`UPDATE artists SET name = 'AAA ' || name WHERE id NOT IN (SELECT id FROM public_artists);
      UPDATE songs SET published_at = now() - interval '1 second' WHERE id = 12`,
      `UPDATE songs SET published_at = '${future!.published_at}' WHERE id = 12;
      UPDATE artists SET name = substr(name, 5) WHERE name LIKE 'AAA %'`],
    // an album naming the hidden artist is published
    ["UPDATE albums SET published_at = now() - interval '1 hour' WHERE id = 3", "UPDATE albums SET published_at = NULL WHERE id = 3"],
    // members: banned, losing the handle, a new one
    ["UPDATE members SET is_banned = true WHERE id = 1", "UPDATE members SET is_banned = false WHERE id = 1"],
    ["UPDATE members SET username = NULL WHERE id = 2", `UPDATE members SET username = '${member!.username}' WHERE id = 2`],
    ["INSERT INTO members (id, username, name) VALUES (900, 'baru', 'Baru')", "DELETE FROM members WHERE id = 900"],
    // albums: tracks, named artists, publication, release dates
    ["INSERT INTO album_tracks (album_id, position, song_id) VALUES (2, 2, 6), (4, 2, 7)",
      "DELETE FROM album_tracks WHERE (album_id, position) IN ((2, 2), (4, 2))"],
    ["UPDATE album_tracks SET song_id = 6 WHERE album_id = 2 AND position = 1", "UPDATE album_tracks SET song_id = 2 WHERE album_id = 2 AND position = 1"],
    ["DELETE FROM album_artists WHERE album_id = 1", "INSERT INTO album_artists (album_id, position, artist_id) VALUES (1, 1, 1)"],
    ["INSERT INTO album_artists (album_id, position, artist_id) VALUES (2, 1, 5), (4, 1, 4), (4, 2, 4)",
      "DELETE FROM album_artists WHERE album_id IN (2, 4)"],
    ["UPDATE album_artists SET artist_id = 6 WHERE album_id = 1", "UPDATE album_artists SET artist_id = 1 WHERE album_id = 1"],
    ["UPDATE albums SET published_at = NULL WHERE id IN (1, 2)",
      "UPDATE albums SET published_at = '2020-01-01T00:00:00Z' WHERE id IN (1, 2)"],
    ["UPDATE albums SET published_at = now() + interval '3 days' WHERE id = 4",
      "UPDATE albums SET published_at = '2020-01-05T00:00:00Z' WHERE id = 4"],
    ["UPDATE albums SET released_at = NULL WHERE id = 1; UPDATE albums SET released_at = '1999-09-09' WHERE id = 2",
      "UPDATE albums SET released_at = CASE id WHEN 1 THEN date '1997-05-01' ELSE date '1989-02-01' END WHERE id IN (1, 2)"],
    // the clock passes a scheduled album, and a scheduled song on an album naming nobody
    [`UPDATE albums SET published_at = now() + interval '3 days' WHERE id = 4; ${scheduledAlbum[0]}`,
      `${scheduledAlbum[1]}; UPDATE albums SET published_at = '2020-01-05T00:00:00Z' WHERE id = 4`],
    [`INSERT INTO album_tracks (album_id, position, song_id) VALUES (2, 2, 12); ${dueSong[0]}`,
      `${dueSong[1]}; DELETE FROM album_tracks WHERE album_id = 2 AND position = 2`],
    ["INSERT INTO album_tracks (album_id, position, song_id) VALUES (2, 2, 12); UPDATE songs SET published_at = now() - interval '1 second' WHERE id = 12",
      `UPDATE songs SET published_at = '${future!.published_at}' WHERE id = 12; DELETE FROM album_tracks WHERE album_id = 2 AND position = 2`],
    ["UPDATE songs SET published_at = now() + interval '3 days' WHERE id = 5", "UPDATE songs SET published_at = '2020-01-05T00:00:00Z' WHERE id = 5"],
    ["UPDATE roles SET tag = 'other' WHERE id = 1", "UPDATE roles SET tag = 'performer' WHERE id = 1"],
    // contributions: onto the scheduled song, a new one, one deleted
    ["UPDATE contributions SET song_id = 12 WHERE id IN (6, 300)",
      "UPDATE contributions SET song_id = CASE id WHEN 6 THEN 2 ELSE 3 END WHERE id IN (6, 300)"],
    ["INSERT INTO contributions (id, member_id, song_id, action) VALUES (900, 100, 2, 'edit')",
      "DELETE FROM contributions WHERE id = 900"],
    [`INSERT INTO songs (id, title, slug, released_at, published_at) VALUES (900, 'Baru', 'baru', current_date, now());
      INSERT INTO credits (song_id, position, artist_id, role_id) VALUES (900, 1, 10, 1), (900, 2, 10, 2)`,
      "DELETE FROM credits WHERE song_id = 900; DELETE FROM songs WHERE id = 900"]
  ]
  return steps
}

import { expect } from "bun:test"

/**
 * A kept-count test step and its undo: the clock passes scheduled song `songId`'s published_at
 * with no write since (a "due" song: listed in scheduled_song_links, its time come). Triggers are
 * off for the step, as the clock writes nothing; `scheduledAt` is the song's published_at to restore.
 * The kept rows that copy a song's published_at (sql/0033 owner_song_orders, sql/0035
 * member_contribution_orders, sql/0037 artist_song_orders) follow it, as they would be equal when
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
 * The kept rows that copy an album's published_at (sql/0017 scheduled_label_albums, sql/0022
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

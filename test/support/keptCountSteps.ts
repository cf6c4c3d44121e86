import { expect } from "bun:test"

/**
 * A kept-count test step and its undo: the clock passes scheduled song `songId`'s published_at
 * with no write since (a "due" song: listed in scheduled_song_links, its time come). Triggers are
 * off for the step, as the clock writes nothing; `scheduledAt` is the song's published_at to restore.
 */
export const clockPassesScheduledSong = (songId: number, scheduledAt: string): [string, string] => [
  `SET session_replication_role = replica;
   UPDATE songs SET published_at = now() - interval '1 second' WHERE id = ${songId};
   UPDATE scheduled_song_links SET published_at = now() - interval '1 second' WHERE song_id = ${songId};
   SET session_replication_role = DEFAULT`,
  `SET session_replication_role = replica;
   UPDATE songs SET published_at = '${scheduledAt}' WHERE id = ${songId};
   UPDATE scheduled_song_links SET published_at = '${scheduledAt}' WHERE song_id = ${songId};
   SET session_replication_role = DEFAULT`
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

-- The albums listed under an artist, kept: /v1/artists/{id} counted them (album_count) and
-- /v1/artists/{id}/albums collected and sorted them from the artist's performer credits on album
-- tracks (~40k tracks for the most prolific artists at 1M songs: 0.2-0.3 s a request).
--
-- An artist's albums (docs/api.md): the public albums naming the artist (album_artists), and the
-- public albums without named artists on which the artist performs (a credit of a role tagged
-- performer) a public song. Kept as sql/0008 keeps its counts: artist_album_links holds the
-- *settled* pairs, i.e. the album is live and names the artist, or names nobody and has a settled
-- track (live, not listed in scheduled_song_links) the artist performs on; with the album's
-- published_at (public once it has passed: the clock needs no write) and its place in the list
-- (released_key, newest first). At read time the pairs of scheduled albums are left out and the
-- albums the artist performs on through a *due* song (listed, its time come) are added.
--
-- Every write that can change a pair recomputes the pairs of the albums it touches from the
-- tables (refresh_artist_album_links): album_artists, album_tracks, albums, credits (songs ->
-- albums), songs that become settled or stop being (sql/0020's move_settled_songs); a role
-- changing tag recounts. artist_album_counts keeps each artist's number of pairs.

SET LOCAL statement_timeout = 0;

CREATE TABLE artist_album_links (
  artist_id     integer NOT NULL REFERENCES artists (id) ON DELETE CASCADE,
  album_id      integer NOT NULL REFERENCES albums (id) ON DELETE CASCADE,
  released_key  text NOT NULL,         -- the album list's sort key: coalesce(iso_date(released_at), '')
  published_at  timestamptz NOT NULL,  -- the album's
  PRIMARY KEY (artist_id, album_id)
);
-- the artist's albums newest first as one index range (index-only: the public test reads published_at)
CREATE INDEX artist_album_links_order_idx ON artist_album_links (artist_id, released_key DESC, album_id DESC)
  INCLUDE (published_at);
-- the artist's scheduled albums (published_at ahead): a short range, subtracted from the count
CREATE INDEX artist_album_links_published_idx ON artist_album_links (artist_id, published_at);
CREATE INDEX artist_album_links_album_idx ON artist_album_links (album_id);

CREATE TABLE artist_album_counts (
  artist_id    integer PRIMARY KEY REFERENCES artists (id) ON DELETE CASCADE,
  live_albums  integer NOT NULL DEFAULT 0   -- the artist's rows in artist_album_links
);

-- The settled pairs as the tables say now. A filter on album_id reaches both arms (album_artists
-- by album, album_tracks by album, then each track's credits and song by key).
CREATE VIEW artist_album_links_settled AS
  SELECT aa.artist_id, al.id AS album_id, coalesce(iso_date(al.released_at), '') AS released_key, al.published_at
  FROM album_artists aa JOIN albums al ON al.id = aa.album_id
  WHERE album_is_live(al.published_at)
  UNION
  SELECT c.artist_id, al.id, coalesce(iso_date(al.released_at), ''), al.published_at
  FROM albums al
  JOIN album_tracks t ON t.album_id = al.id
  JOIN songs s ON s.id = t.song_id
  JOIN credits c ON c.song_id = t.song_id
  JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
  WHERE album_is_live(al.published_at)
    AND NOT EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = al.id)
    AND song_is_live(s.published_at, s.deleted_at)
    AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = s.id);

-- Recomputes the pairs of the given albums; moves artist_album_counts by the pairs that came or went.
CREATE FUNCTION refresh_artist_album_links(album_ids integer[]) RETURNS void LANGUAGE sql AS $$
  WITH wanted AS MATERIALIZED (
    SELECT w.artist_id, w.album_id, w.released_key, w.published_at
    FROM artist_album_links_settled w WHERE w.album_id = ANY (album_ids)),
  gone AS (
    DELETE FROM artist_album_links k
    WHERE k.album_id = ANY (album_ids)
      AND NOT EXISTS (SELECT 1 FROM wanted w WHERE w.artist_id = k.artist_id AND w.album_id = k.album_id)
    RETURNING k.artist_id),
  moved AS (
    UPDATE artist_album_links k SET released_key = w.released_key, published_at = w.published_at
    FROM wanted w
    WHERE k.artist_id = w.artist_id AND k.album_id = w.album_id
      AND (k.released_key, k.published_at) IS DISTINCT FROM (w.released_key, w.published_at)),
  came AS (
    INSERT INTO artist_album_links (artist_id, album_id, released_key, published_at)
    SELECT w.artist_id, w.album_id, w.released_key, w.published_at FROM wanted w
    WHERE NOT EXISTS (SELECT 1 FROM artist_album_links k WHERE k.artist_id = w.artist_id AND k.album_id = w.album_id)
    ON CONFLICT DO NOTHING
    RETURNING artist_id)
  INSERT INTO artist_album_counts AS t (artist_id, live_albums)
  SELECT x.artist_id, sum(x.delta)
  FROM (SELECT artist_id, -1 AS delta FROM gone UNION ALL SELECT artist_id, 1 FROM came) x
  GROUP BY x.artist_id HAVING sum(x.delta) <> 0
  ON CONFLICT (artist_id) DO UPDATE SET live_albums = t.live_albums + excluded.live_albums;
$$;

-- The same for the albums the given songs are tracks of.
CREATE FUNCTION refresh_artist_album_links_of_songs(song_ids integer[]) RETURNS void LANGUAGE sql AS $$
  SELECT refresh_artist_album_links(ARRAY(
    SELECT DISTINCT t.album_id FROM album_tracks t WHERE t.song_id = ANY (song_ids)));
$$;

CREATE FUNCTION recount_artist_album_links() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM artist_album_links;
  INSERT INTO artist_album_links (artist_id, album_id, released_key, published_at)
  SELECT artist_id, album_id, released_key, published_at FROM artist_album_links_settled;
  DELETE FROM artist_album_counts;
  INSERT INTO artist_album_counts (artist_id, live_albums)
  SELECT artist_id, count(*) FROM artist_album_links GROUP BY artist_id;
END $$;

CREATE FUNCTION recount_artist_album_links_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recount_artist_album_links();
  RETURN NULL;
END $$;

-- album_artists, album_tracks (argument album_id): the albums of the rows written; credits and
-- scheduled_song_links (argument song_id): the albums of their songs.
CREATE FUNCTION rows_artist_album_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids integer[] := '{}';
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    ids := ids || ARRAY(SELECT DISTINCT (to_jsonb(n) ->> TG_ARGV[0])::int FROM new_rows n);
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    ids := ids || ARRAY(SELECT DISTINCT (to_jsonb(o) ->> TG_ARGV[0])::int FROM old_rows o);
  END IF;
  IF TG_ARGV[0] = 'album_id' THEN
    PERFORM refresh_artist_album_links(ids);
  ELSE
    PERFORM refresh_artist_album_links_of_songs(ids);
  END IF;
  RETURN NULL;
END $$;

-- albums: those whose liveness, publication time or release date changed (an inserted album has
-- no artists or tracks yet; a deleted one lost them first).
CREATE FUNCTION albums_artist_album_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM refresh_artist_album_links(ARRAY(
    SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE (n.published_at, n.released_at) IS DISTINCT FROM (o.published_at, o.released_at)));
  RETURN NULL;
END $$;

CREATE TRIGGER album_artists_artist_album_count_insert AFTER INSERT ON album_artists
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('album_id');
CREATE TRIGGER album_artists_artist_album_count_update AFTER UPDATE ON album_artists
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('album_id');
CREATE TRIGGER album_artists_artist_album_count_delete AFTER DELETE ON album_artists
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('album_id');
CREATE TRIGGER album_tracks_artist_album_count_insert AFTER INSERT ON album_tracks
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('album_id');
CREATE TRIGGER album_tracks_artist_album_count_update AFTER UPDATE ON album_tracks
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('album_id');
CREATE TRIGGER album_tracks_artist_album_count_delete AFTER DELETE ON album_tracks
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('album_id');
CREATE TRIGGER credits_artist_album_count_insert AFTER INSERT ON credits
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('song_id');
CREATE TRIGGER credits_artist_album_count_update AFTER UPDATE ON credits
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('song_id');
CREATE TRIGGER credits_artist_album_count_delete AFTER DELETE ON credits
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('song_id');
CREATE TRIGGER albums_artist_album_count_update AFTER UPDATE ON albums
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_artist_album_count_trigger();
-- a role changing tag moves every credit of it (rare: recount)
CREATE TRIGGER roles_artist_album_count_update AFTER UPDATE OF tag ON roles
  FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_album_links_trigger();
CREATE TRIGGER album_artists_artist_album_count_truncate AFTER TRUNCATE ON album_artists
  FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_album_links_trigger();
CREATE TRIGGER album_tracks_artist_album_count_truncate AFTER TRUNCATE ON album_tracks
  FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_album_links_trigger();
CREATE TRIGGER credits_artist_album_count_truncate AFTER TRUNCATE ON credits
  FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_album_links_trigger();

-- songs and scheduled_song_links: the songs that became settled or stopped being (a settled song
-- becoming live or not, a live song listed or unlisted) move their albums' pairs; one line in
-- sql/0020's move_settled_songs(), which both tables' count triggers call (body as there, plus it).
CREATE OR REPLACE FUNCTION move_settled_songs(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM move_settled_song_artists(song_ids, deltas);
  PERFORM move_settled_song_contributions(song_ids, deltas);
  PERFORM move_settled_song_roles(song_ids, deltas);
  PERFORM move_settled_song_labels(song_ids, deltas);
  PERFORM move_settled_song_genres(song_ids, deltas);
  PERFORM refresh_artist_album_links_of_songs(song_ids);
END $$;

SELECT recount_artist_album_links();

-- The public albums beyond the kept pairs: albums without named artists on which the artist
-- performs a due song (usually none). A probe per due song (OFFSET 0: never the artist's credits).
CREATE FUNCTION due_artist_albums(artist integer) RETURNS TABLE (album_id integer) LANGUAGE sql STABLE AS $$
  SELECT DISTINCT t.album_id
  FROM scheduled_song_links l
  CROSS JOIN LATERAL (SELECT t.album_id FROM album_tracks t WHERE t.song_id = l.song_id OFFSET 0) t
  JOIN albums al ON al.id = t.album_id
  WHERE scheduled_link_is_due(l.published_at) AND artist = ANY (l.artist_ids)
    AND album_is_public(al.published_at)
    AND NOT EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = t.album_id)
    AND NOT EXISTS (SELECT 1 FROM artist_album_links k WHERE k.artist_id = artist AND k.album_id = t.album_id)
    AND EXISTS (SELECT 1 FROM credits c JOIN roles r ON r.id = c.role_id
                WHERE c.song_id = l.song_id AND c.artist_id = artist AND r.tag = 'performer' OFFSET 0)
$$;

-- The artist's public albums (album_count, the albums list's total): the kept pairs, less those
-- of scheduled albums (one short range), plus the due ones.
CREATE FUNCTION public_artist_album_count(artist integer) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT k.live_albums FROM artist_album_counts k WHERE k.artist_id = artist), 0)
       - (SELECT count(*) FROM artist_album_links k WHERE k.artist_id = artist AND album_is_scheduled(k.published_at))
       + (SELECT count(*) FROM due_artist_albums(artist))
$$;

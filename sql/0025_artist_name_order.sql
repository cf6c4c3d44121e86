-- /v1/artists?sort=name as an index range: the list walked artists_name_idx and probed each
-- walked artist's visibility (sql/0008's kept counts, an album probe), so an offset of 10,000
-- read ~50k buffers at 1M songs.
--
-- Nearly every visible artist is one with a settled song (sql/0008: artist_song_counts
-- settled_songs > 0). Those rows now keep the artist's name key (lower(name), the order of
-- artists_name_idx), and one partial index holds them in name order: a page of them is one
-- index-only range. The few others (an album only, or a due song only: ~300 at 1M) are read
-- from the candidates visible_artist_count() also reads and merged in at read time.
--
-- Kept by the two functions that write artist_song_counts rows (add_settled_songs,
-- recount_artist_song_counts) and by one trigger on renames (artists_name_key_update).

SET LOCAL statement_timeout = 0;

ALTER TABLE artist_song_counts ADD COLUMN name_key text;
UPDATE artist_song_counts ac SET name_key = lower(a.name) FROM artists a WHERE a.id = ac.artist_id;
ALTER TABLE artist_song_counts ALTER COLUMN name_key SET NOT NULL;
CREATE INDEX artist_song_counts_name_idx ON artist_song_counts (name_key, artist_id) WHERE settled_songs > 0;

CREATE OR REPLACE FUNCTION add_settled_songs(artist_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO artist_song_counts AS t (artist_id, settled_songs, name_key)
  SELECT x.artist_id, sum(x.delta), (SELECT lower(a.name) FROM artists a WHERE a.id = x.artist_id)
  FROM unnest(artist_ids, deltas) AS x(artist_id, delta)
  GROUP BY x.artist_id
  ON CONFLICT (artist_id) DO UPDATE SET settled_songs = t.settled_songs + excluded.settled_songs
  WHERE excluded.settled_songs <> 0;
$$;

CREATE OR REPLACE FUNCTION recount_artist_song_counts() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM artist_song_counts;
  INSERT INTO artist_song_counts (artist_id, settled_songs, name_key)
  SELECT p.artist_id, count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = p.song_id)),
         (SELECT lower(a.name) FROM artists a WHERE a.id = p.artist_id)
  FROM (SELECT DISTINCT c.artist_id, c.song_id FROM credits c JOIN songs s ON s.id = c.song_id
        WHERE song_is_live(s.published_at, s.deleted_at)) p
  GROUP BY p.artist_id;
  UPDATE artist_song_totals SET with_settled = (SELECT count(*) FROM artist_song_counts WHERE settled_songs > 0);
END $$;

CREATE FUNCTION artists_name_key_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE artist_song_counts ac SET name_key = lower(n.name)
  FROM new_rows n WHERE ac.artist_id = n.id AND ac.name_key <> lower(n.name);
  RETURN NULL;
END $$;

CREATE TRIGGER artists_name_key_update AFTER UPDATE ON artists
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION artists_name_key_trigger();

-- The visible artists without a settled song, as (name_key, id): the candidates of
-- visible_artist_count() (a row at zero, album credits only, a due song), each tested by the rule.
CREATE FUNCTION visible_unsettled_artists() RETURNS TABLE (name_key text, id integer) LANGUAGE sql STABLE AS $$
  SELECT lower(a.name), a.id
  FROM (SELECT artist_id FROM artist_song_counts WHERE settled_songs = 0
        UNION SELECT artist_id FROM artist_counts WHERE live_credits = 0 AND live_album_credits > 0
        UNION SELECT artist_id FROM due_artist_songs) x
  JOIN artists a ON a.id = x.artist_id
  WHERE NOT EXISTS (SELECT 1 FROM artist_song_counts ac WHERE ac.artist_id = x.artist_id AND ac.settled_songs > 0)
    AND (EXISTS (SELECT 1 FROM due_artist_songs d WHERE d.artist_id = x.artist_id)
         OR EXISTS (SELECT 1 FROM album_artists aa JOIN public_albums al ON al.id = aa.album_id WHERE aa.artist_id = x.artist_id));
$$;

-- /v1/artists?q= of one or two characters: such a query has no trigram, so its matches were
-- found by testing every artist's folded names and then probing each match's kept counts for
-- the public rule and its song count (~2.5 us a match): at 1M songs `q=a` (210k matches) took
-- ~0.5 s, `q=e` 0.26 s, before sorting them all for one page.
--
-- The rows of artist_song_counts with a settled song are nearly every visible artist (sql/0025).
-- They now keep the artist's folded names too (the copies of artists.search_name and
-- search_full_name, sql/0004), and the two indexes that hold them in name order (sql/0025) and in
-- song count order (sql/0008) carry them: a short query's page is a walk of one index, index-only,
-- stopped at the page, and its total one pass over the kept rows, with no probe per match. The few
-- visible artists without a settled song are tested by their own names, as before.
--
-- Kept where the rows are written (add_settled_songs, recount_artist_song_counts) and on every
-- update of artists (artists_name_key_trigger: renames and honorifics).

SET LOCAL statement_timeout = 0;

ALTER TABLE artist_song_counts ADD COLUMN search_name text, ADD COLUMN search_full_name text;
-- names only: the count triggers (search popularity, totals) have nothing to do, and at 1M songs
-- refreshing every artist's search entries would take minutes
ALTER TABLE artist_song_counts DISABLE TRIGGER USER;
UPDATE artist_song_counts ac SET search_name = a.search_name, search_full_name = a.search_full_name
FROM artists a WHERE a.id = ac.artist_id;
ALTER TABLE artist_song_counts ENABLE TRIGGER USER;

DROP INDEX artist_song_counts_name_idx;
CREATE INDEX artist_song_counts_name_idx ON artist_song_counts (name_key, artist_id)
  INCLUDE (search_name, search_full_name) WHERE settled_songs > 0;
DROP INDEX artist_song_counts_rank_idx;
CREATE INDEX artist_song_counts_rank_idx ON artist_song_counts ((-settled_songs), artist_id)
  INCLUDE (settled_songs, search_name, search_full_name);

CREATE OR REPLACE FUNCTION add_settled_songs(artist_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO artist_song_counts AS t (artist_id, settled_songs, name_key, search_name, search_full_name)
  SELECT x.artist_id, x.delta, lower(a.name), a.search_name, a.search_full_name
  FROM (SELECT u.artist_id, sum(u.delta) AS delta FROM unnest(artist_ids, deltas) AS u(artist_id, delta) GROUP BY u.artist_id) x
  LEFT JOIN artists a ON a.id = x.artist_id
  ON CONFLICT (artist_id) DO UPDATE SET settled_songs = t.settled_songs + excluded.settled_songs
  WHERE excluded.settled_songs <> 0;
$$;

CREATE OR REPLACE FUNCTION recount_artist_song_counts() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM artist_song_counts;
  INSERT INTO artist_song_counts (artist_id, settled_songs, name_key, search_name, search_full_name)
  SELECT p.artist_id, p.settled, lower(a.name), a.search_name, a.search_full_name
  FROM (SELECT q.artist_id, count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = q.song_id)) AS settled
        FROM (SELECT DISTINCT c.artist_id, c.song_id FROM credits c JOIN songs s ON s.id = c.song_id
              WHERE song_is_live(s.published_at, s.deleted_at)) q
        GROUP BY q.artist_id) p
  LEFT JOIN artists a ON a.id = p.artist_id;
  UPDATE artist_song_totals SET with_settled = (SELECT count(*) FROM artist_song_counts WHERE settled_songs > 0);
END $$;

CREATE OR REPLACE FUNCTION artists_name_key_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
BEGIN
  UPDATE artist_song_counts ac
  SET name_key = lower(n.name), search_name = n.search_name, search_full_name = n.search_full_name
  FROM new_rows n
  WHERE ac.artist_id = n.id
    AND (ac.name_key, ac.search_name, ac.search_full_name) IS DISTINCT FROM (lower(n.name), n.search_name, n.search_full_name);
  RETURN NULL;
END $$;

-- An artist's folded names contain the folded query `q`; NULL: every artist; '' none, as
-- src/Domain/NameFilter.ts (every name contains the empty text). One expression: inlined.
CREATE FUNCTION folded_names_contain(q text, search_name text, search_full_name text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT q IS NULL OR (q <> '' AND (strpos(search_name, q) > 0 OR strpos(search_full_name, q) > 0))
$$;

-- sql/0008's walk by song count, for the visible artists whose folded names contain `q` (folded
-- by the caller; NULL: every visible artist). The settled artists are one walk of
-- artist_song_counts_rank_idx, index-only, stopped at `wanted`.
CREATE FUNCTION artists_by_song_count(q text, after_count integer, after_id integer, wanted integer)
RETURNS TABLE (id integer, song_count bigint) LANGUAGE sql STABLE AS $$
  WITH due AS MATERIALIZED (SELECT artist_id, songs FROM due_artist_songs),
  settled AS (
    SELECT ac.artist_id AS id, ac.settled_songs::bigint AS song_count
    FROM artist_song_counts ac
    WHERE -ac.settled_songs < 0
      AND folded_names_contain(q, ac.search_name, ac.search_full_name)
      AND (after_count IS NULL OR (-ac.settled_songs, ac.artist_id) > (-after_count, after_id))
      AND NOT EXISTS (SELECT 1 FROM due d WHERE d.artist_id = ac.artist_id)
    ORDER BY -ac.settled_songs, ac.artist_id
    LIMIT wanted),
  moved AS (
    SELECT d.artist_id AS id, coalesce((SELECT ac.settled_songs FROM artist_song_counts ac WHERE ac.artist_id = d.artist_id), 0) + d.songs
    FROM due d JOIN artists a ON a.id = d.artist_id
    WHERE folded_names_contain(q, a.search_name, a.search_full_name)),
  without_songs AS (
    SELECT x.artist_id AS id, 0::bigint AS song_count
    FROM (SELECT artist_id FROM artist_song_counts WHERE settled_songs = 0
          UNION SELECT artist_id FROM artist_counts WHERE live_credits = 0 AND live_album_credits > 0) x
    JOIN artists a ON a.id = x.artist_id
    WHERE (SELECT count(*) FROM settled) < wanted
      AND folded_names_contain(q, a.search_name, a.search_full_name)
      AND NOT EXISTS (SELECT 1 FROM due d WHERE d.artist_id = x.artist_id)
      AND EXISTS (SELECT 1 FROM album_artists aa JOIN public_albums al ON al.id = aa.album_id WHERE aa.artist_id = x.artist_id))
  SELECT r.id, r.song_count FROM (
    SELECT * FROM settled UNION ALL SELECT * FROM moved UNION ALL SELECT * FROM without_songs) r
  WHERE after_count IS NULL OR (-r.song_count, r.id) > (-after_count, after_id)
  ORDER BY -r.song_count, r.id
  LIMIT wanted
$$;

DROP FUNCTION artists_by_song_count(integer, integer, integer);

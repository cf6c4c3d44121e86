-- /v1/artists?sort=songs, the last pages: sql/0040's walk read the rank index from its start to the
-- page, OFFSET included: at 1M songs (245k artists with a settled song) the last page walked all of
-- them, 42-45 ms on a fast machine and 83-93 on a slow one, where the first pages take ~1 ms. Past
-- the middle of the whole order (no q, no cursor) the page is now read from the end of the index,
-- the nearer one, its offset from there given by the kept number of artists with a settled song
-- (artist_song_totals, sql/0008); a page past all of them skips them by that number too, instead
-- of counting them. With q, with a cursor (a cursor page starts at its key anyway) or with due
-- songs, the walk is sql/0040's.

SET LOCAL statement_timeout = 0;

CREATE OR REPLACE FUNCTION artists_by_song_count(q text, after_count integer, after_id integer, skip integer, take integer)
RETURNS TABLE (id integer, song_count bigint) LANGUAGE plpgsql STABLE AS $$
DECLARE
  walked integer;
  -- every artist with a settled song, kept (sql/0008); the walk's length when q and the cursor are absent
  settled_total integer := (SELECT t.with_settled FROM artist_song_totals t);
  whole_order boolean := q IS NULL AND after_count IS NULL;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM due_artist_songs) THEN
    IF whole_order AND skip > settled_total / 2 THEN
      -- past the middle of the whole order: the page's settled artists read from the end of the
      -- rank index, the nearer one, and put back in order
      RETURN QUERY
        SELECT r.artist_id, r.settled_songs FROM (
          SELECT ac.artist_id, ac.settled_songs::bigint AS settled_songs
          FROM artist_song_counts ac
          WHERE -ac.settled_songs < 0
          ORDER BY -ac.settled_songs DESC, ac.artist_id DESC
          -- in bigint: an offset near 2^31 minus the kept number and the limit leaves int4
          OFFSET greatest(settled_total::bigint - skip - take, 0) LIMIT greatest(least(take, settled_total::bigint - skip), 0)) r
        ORDER BY -r.settled_songs, r.artist_id;
    ELSE
      RETURN QUERY
        SELECT ac.artist_id, ac.settled_songs::bigint
        FROM artist_song_counts ac
        WHERE -ac.settled_songs < 0
          AND folded_names_contain(q, ac.search_name, ac.search_full_name)
          AND (after_count IS NULL OR (-ac.settled_songs, ac.artist_id) > (-after_count, after_id))
        ORDER BY -ac.settled_songs, ac.artist_id
        OFFSET skip LIMIT take;
    END IF;
    GET DIAGNOSTICS walked = ROW_COUNT;
    IF walked < take THEN
      -- the page reaches past the settled artists: those without one come after them, by id
      RETURN QUERY
        SELECT x.artist_id, 0::bigint
        FROM (SELECT artist_id FROM artist_song_counts WHERE settled_songs = 0
              UNION SELECT artist_id FROM artist_counts WHERE live_credits = 0 AND live_album_credits > 0) x
        JOIN artists a ON a.id = x.artist_id
        WHERE folded_names_contain(q, a.search_name, a.search_full_name)
          AND (after_count IS NULL OR (0, x.artist_id) > (-after_count, after_id))
          AND EXISTS (SELECT 1 FROM album_artists aa JOIN public_albums al ON al.id = aa.album_id WHERE aa.artist_id = x.artist_id)
        ORDER BY x.artist_id
        OFFSET CASE WHEN walked > 0 OR skip = 0 THEN 0
                    WHEN whole_order THEN greatest(skip - settled_total, 0)
                    ELSE greatest(skip - (SELECT count(*) FROM artist_song_counts ac
                                          WHERE -ac.settled_songs < 0 AND folded_names_contain(q, ac.search_name, ac.search_full_name)
                                            AND (after_count IS NULL OR (-ac.settled_songs, ac.artist_id) > (-after_count, after_id))), 0) END
        LIMIT take - walked;
    END IF;
  ELSE
    RETURN QUERY
      WITH due AS MATERIALIZED (SELECT artist_id, songs FROM due_artist_songs),
      settled AS (
        SELECT ac.artist_id AS id, ac.settled_songs::bigint AS song_count
        FROM artist_song_counts ac
        WHERE -ac.settled_songs < 0
          AND folded_names_contain(q, ac.search_name, ac.search_full_name)
          AND (after_count IS NULL OR (-ac.settled_songs, ac.artist_id) > (-after_count, after_id))
          AND NOT EXISTS (SELECT 1 FROM due d WHERE d.artist_id = ac.artist_id)
        ORDER BY -ac.settled_songs, ac.artist_id
        LIMIT skip::bigint + take),
      moved AS (
        SELECT d.artist_id AS id, coalesce((SELECT ac.settled_songs FROM artist_song_counts ac WHERE ac.artist_id = d.artist_id), 0) + d.songs
        FROM due d JOIN artists a ON a.id = d.artist_id
        WHERE folded_names_contain(q, a.search_name, a.search_full_name)),
      without_songs AS (
        SELECT x.artist_id AS id, 0::bigint AS song_count
        FROM (SELECT artist_id FROM artist_song_counts WHERE settled_songs = 0
              UNION SELECT artist_id FROM artist_counts WHERE live_credits = 0 AND live_album_credits > 0) x
        JOIN artists a ON a.id = x.artist_id
        WHERE (SELECT count(*) FROM settled) < skip::bigint + take
          AND folded_names_contain(q, a.search_name, a.search_full_name)
          AND NOT EXISTS (SELECT 1 FROM due d WHERE d.artist_id = x.artist_id)
          AND EXISTS (SELECT 1 FROM album_artists aa JOIN public_albums al ON al.id = aa.album_id WHERE aa.artist_id = x.artist_id))
      SELECT r.id, r.song_count FROM (
        SELECT * FROM settled UNION ALL SELECT * FROM moved UNION ALL SELECT * FROM without_songs) r
      WHERE after_count IS NULL OR (-r.song_count, r.id) > (-after_count, after_id)
      ORDER BY -r.song_count, r.id
      OFFSET skip LIMIT take;
  END IF;
END $$;

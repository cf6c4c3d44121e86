-- /v1/artists?sort=songs past the first pages: sql/0008's walk (sql/0039's form) returned every
-- row up to the page (offset + limit) and sorted them, and the list sorted them again to skip the
-- offset: the last page at 1M songs (245k visible artists) sorted 245k rows three times, two of
-- them spilling to disk: 150-220 ms; the middle ~80 ms.
--
-- The walk now returns the page itself (`skip`, `take`), and while no artist has a due song (a
-- scheduled song whose time has passed since the last write: nearly always none) it is the rank
-- index's own order, read index-only and stopped at the page, followed by the artists without a
-- settled song (0 songs, by id): no sort. With due songs, the former union and sort, then the page.

SET LOCAL statement_timeout = 0;

DROP FUNCTION artists_by_song_count(text, integer, integer, integer);

CREATE FUNCTION artists_by_song_count(q text, after_count integer, after_id integer, skip integer, take integer)
RETURNS TABLE (id integer, song_count bigint) LANGUAGE plpgsql STABLE AS $$
DECLARE
  walked integer;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM due_artist_songs) THEN
    RETURN QUERY
      SELECT ac.artist_id, ac.settled_songs::bigint
      FROM artist_song_counts ac
      WHERE -ac.settled_songs < 0
        AND folded_names_contain(q, ac.search_name, ac.search_full_name)
        AND (after_count IS NULL OR (-ac.settled_songs, ac.artist_id) > (-after_count, after_id))
      ORDER BY -ac.settled_songs, ac.artist_id
      OFFSET skip LIMIT take;
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

-- public_song_facet_count (sql/0018): the scheduled songs it subtracts were counted by reading
-- every scheduled song's links (~10k rows, ~4 ms at 1M songs, up to three calls a /v1/songs page
-- with two or three filters). Now those of the facet's label or genre are found by an index of
-- the links' arrays, and an empty facet reads none. Same results.
CREATE INDEX scheduled_song_links_label_ids_idx ON scheduled_song_links USING gin (label_ids);
CREATE INDEX scheduled_song_links_genre_ids_idx ON scheduled_song_links USING gin (genre_ids);

CREATE OR REPLACE FUNCTION public_song_facet_count(for_genre integer, for_label integer, for_year integer) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
DECLARE
  live bigint := coalesce((SELECT f.live_songs FROM song_facet_counts f
                           WHERE f.genre_id = coalesce(for_genre, 0) AND f.label_id = coalesce(for_label, 0)
                             AND f.year = coalesce(for_year, 0)), 0);
BEGIN
  -- the scheduled songs are live songs: none of them in an empty facet
  IF live = 0 THEN
    RETURN 0;
  ELSIF for_label IS NOT NULL THEN
    RETURN live - (SELECT count(*) FROM scheduled_song_links_now s
                   WHERE s.label_ids @> ARRAY[for_label]
                     AND (for_genre IS NULL OR for_genre = ANY (s.genre_ids))
                     AND (for_year IS NULL OR song_release_year(s.released_at) = for_year));
  ELSIF for_genre IS NOT NULL THEN
    RETURN live - (SELECT count(*) FROM scheduled_song_links_now s
                   WHERE s.genre_ids @> ARRAY[for_genre]
                     AND (for_year IS NULL OR song_release_year(s.released_at) = for_year));
  END IF;
  RETURN live - (SELECT count(*) FROM scheduled_song_links_now s
                 WHERE for_year IS NULL OR song_release_year(s.released_at) = for_year);
END $$;

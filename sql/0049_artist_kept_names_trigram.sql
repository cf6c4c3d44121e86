-- /v1/artists?q= of three or more characters: its matches were collected from the artists' trigram
-- indexes and each probed for the public rule and its song count (~4 us a match), every one of
-- them, for the total and the page: at 1M songs a common syllable took `man` (19.6k matches) 75 ms,
-- `ari` (14.1k) 56, `din` 47, `ina` 42, `ana` 31-39.
--
-- The kept names (sql/0039: the artists with a settled song, nearly every visible one, with their
-- folded names) get trigram indexes of their own, so that such a query's matches among them are
-- counted without a probe a match; with that count the list chooses as for a short query
-- (sql/0047): the page walked along a kept order, or, when the matches are few, collected (for
-- three or more characters, as before, from the artists' own trigram indexes). `artist_name_query`
-- replaces sql/0047's `short_name_query` for every q.

SET LOCAL statement_timeout = 0;

CREATE INDEX artist_song_counts_search_name_trgm ON artist_song_counts USING gin (search_name gin_trgm_ops)
  WHERE settled_songs > 0;
CREATE INDEX artist_song_counts_search_full_name_trgm ON artist_song_counts USING gin (search_full_name gin_trgm_ops)
  WHERE settled_songs > 0;

-- The artists with a settled song whose folded names contain the folded `q`: by its kept gram
-- (sql/0047) for one or two characters, by the trigram indexes above for more (the query folded
-- once: an init plan each).
CREATE FUNCTION artist_kept_name_matches(q text) RETURNS TABLE (artist_id integer) LANGUAGE sql STABLE AS $$
  SELECT g.artist_id FROM artist_name_grams g
  WHERE g.gram = (SELECT fold_name(q)) AND char_length((SELECT fold_name(q))) BETWEEN 1 AND 2
  UNION ALL
  SELECT ac.artist_id FROM artist_song_counts ac
  WHERE ac.settled_songs > 0 AND char_length((SELECT fold_name(q))) > 2
    AND (ac.search_name LIKE '%' || (SELECT fold_name(q)) || '%' OR ac.search_full_name LIKE '%' || (SELECT fold_name(q)) || '%')
$$;

-- How many artists with a settled song have the folded `q` in a folded name: a kept gram's count
-- for one or two characters (sql/0047), the matches above counted for more (up to `up_to` of
-- them; NULL: all); none for a q that folds to nothing (src/Domain/NameFilter.ts).
CREATE FUNCTION artist_kept_name_count(q text, up_to bigint) RETURNS integer LANGUAGE sql STABLE AS $$
  SELECT CASE
      WHEN f.folded = '' THEN 0
      WHEN char_length(f.folded) <= 2 THEN coalesce((SELECT c.artists FROM artist_name_gram_counts c WHERE c.gram = f.folded), 0)
      ELSE (SELECT count(*) FROM (SELECT 1 FROM artist_kept_name_matches(q) LIMIT up_to) m)::integer
    END
  FROM (SELECT fold_name(q) AS folded) f
$$;

-- A name query's kept facts, read before its page: its kept matches, counted up to a thirtieth of
-- the kept artists (past that a walk along a kept order always costs less than collecting them:
-- src/Artists/Repo.ts's `collectsFewMatches`), and how many artists have a settled song (the
-- length of the kept orders).
CREATE FUNCTION artist_name_query(q text) RETURNS TABLE (kept_matches integer, kept_artists integer)
LANGUAGE sql STABLE AS $$
  SELECT artist_kept_name_count(q, t.with_settled / 30 + 1), t.with_settled::integer FROM artist_song_totals t
$$;

DROP FUNCTION short_name_query(text);

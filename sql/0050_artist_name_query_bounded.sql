-- sql/0049's facts counted a longer query's kept matches through the kept names' trigram indexes
-- before its page. A query whose trigrams say little (emoji, one-letter words: "a 😀") made that
-- count recheck every kept name (~200 ms at 1M) and then the page collected its (no) matches from
-- the artists' trigram indexes as before (another ~230): twice the time of sql/0048's code.
--
-- Every kept match contains each two-character text of the folded query, so the rarest of those
-- kept grams (sql/0047) bounds the matches from above in a few index probes. While that bound b is
-- so small that src/Artists/Repo.ts's `collectsFewMatches` collects at any page given b as the
-- count (60 b² <= kept artists: ~64 at 1M songs), it is the facts' answer and the matches are
-- collected as before; otherwise they are counted as sql/0049 counts them.

CREATE OR REPLACE FUNCTION artist_name_query(q text) RETURNS TABLE (kept_matches integer, kept_artists integer)
LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN char_length(f.folded) > 2 AND 60 * b.fewest::bigint * b.fewest <= t.with_settled THEN b.fewest
              ELSE artist_kept_name_count(q, t.with_settled / 30 + 1) END,
    t.with_settled::integer
  FROM artist_song_totals t
  CROSS JOIN (SELECT fold_name(q) AS folded) f
  CROSS JOIN LATERAL (
    SELECT min(coalesce(c.artists, 0)) AS fewest
    FROM generate_series(1, char_length(f.folded) - 1) i
    LEFT JOIN artist_name_gram_counts c ON c.gram = substr(f.folded, i, 2)) b
$$;

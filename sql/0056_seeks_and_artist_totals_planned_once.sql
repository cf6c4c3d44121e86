-- The last LANGUAGE sql functions with subqueries on the read paths, in PL/pgSQL (as sql/0026,
-- 0054 and 0055 did for others): a call PostgreSQL does not inline was parsed and planned at
-- every execution of the calling statement. The seeks (sql/0018, 0021) are called with the page's
-- position, an expression over the statement's total: not inlined there, ~0.5-0.7 ms of planning
-- a deep offset page at 100k songs. visible_artist_count (sql/0008: /v1/artists' total) ~1 ms of
-- planning, artist_kept_name_count (sql/0049: /v1/artists?q=) ~0.4. The same bodies and answers
-- (checked against the SQL functions over every bucket and a year's days at 100k songs);
-- `use_column` resolves a name that is both a column and a parameter or result column as the
-- SQL functions did, and the release seek's running sums are cast back to its declared bigint as
-- the SQL function's result was.

CREATE OR REPLACE FUNCTION public_song_popular_seek(skip bigint) RETURNS TABLE(bound_key bigint, bound_id integer, songs_before bigint) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH due AS (
    SELECT b.sort_key, b.song_id, count(*) AS n
    FROM scheduled_song_links l JOIN public_songs s ON s.id = l.song_id
    CROSS JOIN LATERAL (SELECT b.sort_key, b.song_id FROM song_popular_buckets b
                        WHERE (b.sort_key, b.song_id) <= (coalesce(s.vidsvc_views, -1), s.id)
                        ORDER BY b.sort_key DESC, b.song_id DESC LIMIT 1) b
    WHERE scheduled_link_is_due(l.published_at)
    GROUP BY b.sort_key, b.song_id
  ), running AS (
    SELECT b.sort_key, b.song_id,
      (sum(b.settled_songs + coalesce(d.n, 0)) OVER (ORDER BY b.sort_key, b.song_id) - (b.settled_songs + coalesce(d.n, 0)))::bigint
        AS songs_before
    FROM song_popular_buckets b LEFT JOIN due d ON d.sort_key = b.sort_key AND d.song_id = b.song_id
  )
  SELECT r.sort_key, r.song_id, r.songs_before FROM running r WHERE r.songs_before <= skip
  ORDER BY r.sort_key DESC, r.song_id DESC LIMIT 1;
END $$;

CREATE OR REPLACE FUNCTION public_song_title_seek(skip bigint) RETURNS TABLE(bound_key text, bound_id integer, songs_before bigint) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH due AS (
    SELECT b.sort_key, b.song_id, count(*) AS n
    FROM scheduled_song_links l JOIN public_songs s ON s.id = l.song_id
    CROSS JOIN LATERAL (SELECT b.sort_key, b.song_id FROM song_title_buckets b
                        WHERE (b.sort_key, b.song_id) <= (lower(s.title), s.id)
                        ORDER BY b.sort_key DESC, b.song_id DESC LIMIT 1) b
    WHERE scheduled_link_is_due(l.published_at)
    GROUP BY b.sort_key, b.song_id
  ), running AS (
    SELECT b.sort_key, b.song_id,
      (sum(b.settled_songs + coalesce(d.n, 0)) OVER (ORDER BY b.sort_key, b.song_id) - (b.settled_songs + coalesce(d.n, 0)))::bigint
        AS songs_before
    FROM song_title_buckets b LEFT JOIN due d ON d.sort_key = b.sort_key AND d.song_id = b.song_id
  )
  SELECT r.sort_key, r.song_id, r.songs_before FROM running r WHERE r.songs_before <= skip
  ORDER BY r.sort_key DESC, r.song_id DESC LIMIT 1;
END $$;

CREATE OR REPLACE FUNCTION public_song_released_seek(skip bigint) RETURNS TABLE(bound_key date, bound_id integer, songs_before bigint) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH due AS (
    SELECT b.sort_key, b.song_id, count(*) AS n
    FROM scheduled_song_links l JOIN public_songs s ON s.id = l.song_id
    CROSS JOIN LATERAL (SELECT b.sort_key, b.song_id FROM song_released_buckets b
                        WHERE (b.sort_key, b.song_id) <= (s.released_at, s.id)
                        ORDER BY b.sort_key DESC, b.song_id DESC LIMIT 1) b
    WHERE scheduled_link_is_due(l.published_at)
    GROUP BY b.sort_key, b.song_id
  ), running AS (
    SELECT b.sort_key, b.song_id,
      (sum(b.settled_songs + coalesce(d.n, 0)) OVER (ORDER BY b.sort_key, b.song_id) - (b.settled_songs + coalesce(d.n, 0)))::bigint
        AS songs_before
    FROM song_released_buckets b LEFT JOIN due d ON d.sort_key = b.sort_key AND d.song_id = b.song_id
  )
  SELECT r.sort_key, r.song_id, r.songs_before FROM running r WHERE r.songs_before <= skip
  ORDER BY r.sort_key DESC, r.song_id DESC LIMIT 1;
END $$;

CREATE OR REPLACE FUNCTION public_song_release_seek(from_date date, until_date date, newest_first boolean, skip bigint) RETURNS TABLE(released_at date, songs_before bigint) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  -- the running sums are numeric: cast back to the declared bigint as the SQL function did
  RETURN QUERY SELECT x.released_at, x.songs_before::bigint FROM (
  WITH per_date AS (
    SELECT c.released_at, c.live_songs - coalesce(sch.n, 0) AS n
    FROM song_date_counts c
    LEFT JOIN (SELECT s.released_at, count(*) AS n FROM scheduled_song_links_now s
               WHERE s.released_at >= from_date AND s.released_at < until_date GROUP BY s.released_at) sch
      ON sch.released_at = c.released_at
    WHERE c.released_at >= from_date AND c.released_at < until_date
  ), newest AS (
    SELECT p.released_at, sum(p.n) OVER (ORDER BY p.released_at DESC) - p.n AS songs_before FROM per_date p WHERE newest_first
  ), oldest AS (
    SELECT p.released_at, sum(p.n) OVER (ORDER BY p.released_at) - p.n AS songs_before FROM per_date p WHERE NOT newest_first
  )
  (SELECT * FROM newest WHERE songs_before <= skip ORDER BY released_at LIMIT 1)
  UNION ALL
  (SELECT * FROM oldest WHERE songs_before <= skip ORDER BY released_at DESC LIMIT 1)) x;
END $$;

CREATE OR REPLACE FUNCTION visible_artist_count() RETURNS bigint LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN (
  SELECT (SELECT with_settled FROM artist_song_totals)
       + (SELECT count(*) FROM due_artist_songs d
          WHERE NOT EXISTS (SELECT 1 FROM artist_song_counts ac WHERE ac.artist_id = d.artist_id AND ac.settled_songs > 0))
       + (SELECT count(*)
          FROM (SELECT artist_id FROM artist_song_counts WHERE settled_songs = 0
                UNION SELECT artist_id FROM artist_counts WHERE live_credits = 0 AND live_album_credits > 0) x
          WHERE NOT EXISTS (SELECT 1 FROM due_artist_songs d WHERE d.artist_id = x.artist_id)
            AND EXISTS (SELECT 1 FROM album_artists aa JOIN public_albums al ON al.id = aa.album_id WHERE aa.artist_id = x.artist_id)));
END $$;

CREATE OR REPLACE FUNCTION artist_kept_name_count(q text, up_to bigint) RETURNS integer LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN (
  SELECT CASE
      WHEN f.folded = '' THEN 0
      WHEN char_length(f.folded) <= 2 THEN coalesce((SELECT c.artists FROM artist_name_gram_counts c WHERE c.gram = f.folded), 0)
      ELSE (SELECT count(*) FROM (SELECT 1 FROM artist_kept_name_matches(q) LIMIT up_to) m)::integer
    END
  FROM (SELECT fold_name(q) AS folded) f);
END $$;


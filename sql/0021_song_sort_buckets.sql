-- Deep offsets of /v1/songs in each order: kept counts of settled songs per bucket of the sort's
-- key, so that an offset becomes (bucket, offset within the bucket) with a sum over ~2,000 small
-- rows. Without them, popular and title order walked every skipped row (offset 470,000 at 1M
-- songs: 470,000 index entries and rows), and release order summed sql/0018's ~24k per-date
-- counts on every deep page (public_song_release_seek: 15-20 ms of CPU at 100k songs; it stays
-- for a year's range, ~365 dates).
--
-- A bucket is a range of its sort's order, (key, id) from its bound up to the next bucket's bound.
-- The bounds are every 500th settled song when counted (recount_song_sort_buckets), plus one below
-- every song; writes never move a bound, only the counts (a recount splits the buckets again).
-- Counts are of *settled* songs (live and not listed in scheduled_song_links, the sql/0008 way);
-- a bucket's public count adds its due songs (listed, their time come: usually none).

-- The first count sorts every live song three times (~10-20 s at 1M songs).
SET LOCAL statement_timeout = 0;


-- released: released_at, id (songs_public_released_idx's key)
CREATE TABLE song_released_buckets (
  sort_key       date NOT NULL,
  song_id        integer NOT NULL,
  settled_songs  integer NOT NULL DEFAULT 0,
  PRIMARY KEY (sort_key, song_id)
);

-- popular: coalesce(vidsvc_views, -1), id (songs_public_popular_idx's key)
CREATE TABLE song_popular_buckets (
  sort_key       bigint NOT NULL,
  song_id        integer NOT NULL,
  settled_songs  integer NOT NULL DEFAULT 0,
  PRIMARY KEY (sort_key, song_id)
);

-- title: lower(title), id (songs_public_title_idx's key, the same collation)
CREATE TABLE song_title_buckets (
  sort_key       text NOT NULL,
  song_id        integer NOT NULL,
  settled_songs  integer NOT NULL DEFAULT 0,
  PRIMARY KEY (sort_key, song_id)
);

-- Moves settled songs into (+1) or out of (-1) the buckets of every sort, by their keys as the
-- sorts have them (songs_count_trigger() gives the old and new rows' keys).
CREATE FUNCTION move_song_buckets(dates date[], views bigint[], titles text[], song_ids integer[], deltas bigint[])
RETURNS void LANGUAGE sql AS $$
  UPDATE song_released_buckets t SET settled_songs = t.settled_songs + x.delta
  FROM (SELECT b.sort_key, b.song_id, sum(m.delta) AS delta
        FROM unnest(dates, song_ids, deltas) AS m(sort_key, song_id, delta)
        CROSS JOIN LATERAL (SELECT b.sort_key, b.song_id FROM song_released_buckets b
                            WHERE (b.sort_key, b.song_id) <= (m.sort_key, m.song_id)
                            ORDER BY b.sort_key DESC, b.song_id DESC LIMIT 1) b
        GROUP BY b.sort_key, b.song_id HAVING sum(m.delta) <> 0) x
  WHERE t.sort_key = x.sort_key AND t.song_id = x.song_id;
  UPDATE song_popular_buckets t SET settled_songs = t.settled_songs + x.delta
  FROM (SELECT b.sort_key, b.song_id, sum(m.delta) AS delta
        FROM unnest(views, song_ids, deltas) AS m(sort_key, song_id, delta)
        CROSS JOIN LATERAL (SELECT b.sort_key, b.song_id FROM song_popular_buckets b
                            WHERE (b.sort_key, b.song_id) <= (m.sort_key, m.song_id)
                            ORDER BY b.sort_key DESC, b.song_id DESC LIMIT 1) b
        GROUP BY b.sort_key, b.song_id HAVING sum(m.delta) <> 0) x
  WHERE t.sort_key = x.sort_key AND t.song_id = x.song_id;
  UPDATE song_title_buckets t SET settled_songs = t.settled_songs + x.delta
  FROM (SELECT b.sort_key, b.song_id, sum(m.delta) AS delta
        FROM unnest(titles, song_ids, deltas) AS m(sort_key, song_id, delta)
        CROSS JOIN LATERAL (SELECT b.sort_key, b.song_id FROM song_title_buckets b
                            WHERE (b.sort_key, b.song_id) <= (m.sort_key, m.song_id)
                            ORDER BY b.sort_key DESC, b.song_id DESC LIMIT 1) b
        GROUP BY b.sort_key, b.song_id HAVING sum(m.delta) <> 0) x
  WHERE t.sort_key = x.sort_key AND t.song_id = x.song_id;
$$;

-- The songs that became settled (+1) or stopped being (-1) by being unlisted or listed in
-- scheduled_song_links, at their current keys (the rows' own changes are songs_count_trigger()'s).
CREATE FUNCTION move_settled_song_buckets(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  SELECT move_song_buckets(array_agg(s.released_at), array_agg(coalesce(s.vidsvc_views, -1)), array_agg(lower(s.title)),
                           array_agg(s.id), array_agg(m.delta))
  FROM unnest(song_ids, deltas) AS m(song_id, delta) JOIN songs s ON s.id = m.song_id
  HAVING count(*) > 0;
$$;

-- scheduled_song_links_settled_count_trigger() of sql/0020 with the sort buckets' line. Not in
-- move_settled_songs(): songs_count_trigger() calls that too, for the settled songs that became
-- live or stopped, which its own part below has moved by their old and new keys.
-- A live song listed there stops being settled (-1); one removed (its time has come, or it was
-- rescheduled, unpublished or deleted) is settled again if it is live (+1).
CREATE OR REPLACE FUNCTION scheduled_song_links_settled_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[] := '{}';
  ns bigint[] := '{}';
  moved integer[];
  moved_deltas bigint[];
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT song_ids || array_agg(n.song_id), ns || array_agg(-1::bigint) INTO song_ids, ns FROM new_rows n;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    SELECT song_ids || array_agg(o.song_id), ns || array_agg(1::bigint) INTO song_ids, ns FROM old_rows o;
  END IF;
  SELECT array_agg(x.song_id), array_agg(x.delta) INTO moved, moved_deltas
  FROM (SELECT u.song_id, sum(u.n)::bigint AS delta FROM unnest(song_ids, ns) AS u(song_id, n)
        GROUP BY u.song_id HAVING sum(u.n) <> 0) x
  JOIN songs s ON s.id = x.song_id AND song_is_live(s.published_at, s.deleted_at);
  IF moved IS NOT NULL THEN
    PERFORM move_settled_songs(moved, moved_deltas);
    PERFORM move_settled_song_buckets(moved, moved_deltas);
  END IF;
  RETURN NULL;
END $$;

-- songs_count_trigger() of sql/0020 with the sort buckets' part first (the rest returns early
-- when no song changes liveness or date; a views or title change moves only buckets).
-- Inserted songs have no links yet; deleted songs lost theirs first (foreign keys): only the
-- counts of songs and dates move for them. Fires before songs_scheduled_count_* (name order), so
-- it sees scheduled_song_links as it was before the statement, as the settled counts need.
CREATE OR REPLACE FUNCTION songs_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[];
  dates date[];
  deltas bigint[];
  changed_ids integer[];
  changed_deltas bigint[];
  moved_dates date[];
  moved_views bigint[];
  moved_titles text[];
  moved_ids integer[];
  moved_deltas bigint[];
BEGIN
  -- sql/0021: the sort buckets of settled songs (not listed in scheduled_song_links), by the keys
  -- of the old rows (-1) and the new ones (+1): a song moves when it becomes live or stops, and
  -- when its date, views or title change. Listed songs move with scheduled_song_links' trigger.
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.released_at), array_agg(coalesce(n.vidsvc_views, -1)), array_agg(lower(n.title)), array_agg(n.id), array_agg(1::bigint)
    INTO moved_dates, moved_views, moved_titles, moved_ids, moved_deltas
    FROM new_rows n
    WHERE song_is_live(n.published_at, n.deleted_at) AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = n.id);
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.released_at), array_agg(coalesce(o.vidsvc_views, -1)), array_agg(lower(o.title)), array_agg(o.id), array_agg(-1::bigint)
    INTO moved_dates, moved_views, moved_titles, moved_ids, moved_deltas
    FROM old_rows o
    WHERE song_is_live(o.published_at, o.deleted_at) AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = o.id);
  ELSE
    SELECT array_agg(m.released_at), array_agg(m.views), array_agg(m.title), array_agg(m.id), array_agg(m.delta)
    INTO moved_dates, moved_views, moved_titles, moved_ids, moved_deltas
    FROM (
      SELECT o.released_at, coalesce(o.vidsvc_views, -1) AS views, lower(o.title) AS title, o.id, -1::bigint AS delta
      FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE song_is_live(o.published_at, o.deleted_at)
        AND NOT (song_is_live(n.published_at, n.deleted_at) AND n.released_at = o.released_at
                 AND coalesce(n.vidsvc_views, -1) = coalesce(o.vidsvc_views, -1) AND lower(n.title) = lower(o.title))
      UNION ALL
      SELECT n.released_at, coalesce(n.vidsvc_views, -1), lower(n.title), n.id, 1
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE song_is_live(n.published_at, n.deleted_at)
        AND NOT (song_is_live(o.published_at, o.deleted_at) AND o.released_at = n.released_at
                 AND coalesce(o.vidsvc_views, -1) = coalesce(n.vidsvc_views, -1) AND lower(o.title) = lower(n.title))
    ) m
    WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = m.id);
  END IF;
  IF moved_ids IS NOT NULL THEN
    PERFORM move_song_buckets(moved_dates, moved_views, moved_titles, moved_ids, moved_deltas);
  END IF;

  -- (song, release date, +1/-1): a live song entering or leaving a date.
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.id), array_agg(n.released_at), array_agg(1::bigint)
    INTO song_ids, dates, deltas
    FROM new_rows n WHERE song_is_live(n.published_at, n.deleted_at);
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.id), array_agg(o.released_at), array_agg(-1::bigint)
    INTO song_ids, dates, deltas
    FROM old_rows o WHERE song_is_live(o.published_at, o.deleted_at);
  ELSE
    SELECT array_agg(x.id), array_agg(x.released_at), array_agg(x.delta) INTO song_ids, dates, deltas
    FROM (
      SELECT o.id, o.released_at, -1::bigint AS delta
      FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE song_is_live(o.published_at, o.deleted_at)
        AND NOT (song_is_live(n.published_at, n.deleted_at) AND n.released_at = o.released_at)
      UNION ALL
      SELECT n.id, n.released_at, 1
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE song_is_live(n.published_at, n.deleted_at)
        AND NOT (song_is_live(o.published_at, o.deleted_at) AND o.released_at = n.released_at)
    ) x;
  END IF;
  IF song_ids IS NULL THEN
    RETURN NULL;
  END IF;

  PERFORM move_live_song_dates(dates, deltas);
  IF TG_OP <> 'UPDATE' THEN
    RETURN NULL;
  END IF;
  PERFORM move_live_song_facets(song_ids, dates, deltas);

  -- The songs that became live (+1) or stopped being live (-1); a new date alone sums to 0.
  SELECT array_agg(x.id), array_agg(x.delta) INTO changed_ids, changed_deltas
  FROM (SELECT u.id, sum(u.delta)::bigint AS delta FROM unnest(song_ids, deltas) AS u(id, delta)
        GROUP BY u.id HAVING sum(u.delta) <> 0) x;
  IF changed_ids IS NULL THEN
    RETURN NULL;
  END IF;
  PERFORM move_live_song_credits(changed_ids, changed_deltas);
  PERFORM move_live_song_contributions(changed_ids, changed_deltas);
  PERFORM move_live_song_labels(changed_ids, changed_deltas);
  PERFORM move_live_song_genres(changed_ids, changed_deltas);

  -- The settled ones among them: songs listed in scheduled_song_links are moved by that table's trigger.
  SELECT array_agg(ch.id), array_agg(ch.delta) INTO changed_ids, changed_deltas
  FROM unnest(changed_ids, changed_deltas) AS ch(id, delta)
  WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = ch.id);
  IF changed_ids IS NOT NULL THEN
    PERFORM move_settled_songs(changed_ids, changed_deltas);
  END IF;
  RETURN NULL;
END $$;

-- Recounts from scratch, splitting each sort into buckets of `bucket_songs` settled songs (the
-- first bound lies below every song): the initial fill, after a bulk load, after a TRUNCATE.
CREATE FUNCTION recount_song_sort_buckets(bucket_songs integer DEFAULT 500) RETURNS void LANGUAGE sql AS $$
  DELETE FROM song_released_buckets;
  WITH settled AS (
    SELECT s.released_at AS sort_key, s.id, row_number() OVER (ORDER BY s.released_at, s.id) - 1 AS n, count(*) OVER () AS songs
    FROM songs s
    WHERE song_is_live(s.published_at, s.deleted_at) AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = s.id)
  )
  INSERT INTO song_released_buckets (sort_key, song_id, settled_songs)
  SELECT CASE WHEN n = 0 THEN '-infinity'::date ELSE sort_key END, CASE WHEN n = 0 THEN -2147483648 ELSE id END,
    least(bucket_songs, songs - n)
  FROM settled WHERE n % bucket_songs = 0
  UNION ALL
  SELECT '-infinity'::date, -2147483648, 0 WHERE NOT EXISTS (SELECT 1 FROM settled);
  DELETE FROM song_popular_buckets;
  WITH settled AS (
    SELECT coalesce(s.vidsvc_views, -1) AS sort_key, s.id, row_number() OVER (ORDER BY coalesce(s.vidsvc_views, -1), s.id) - 1 AS n, count(*) OVER () AS songs
    FROM songs s
    WHERE song_is_live(s.published_at, s.deleted_at) AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = s.id)
  )
  INSERT INTO song_popular_buckets (sort_key, song_id, settled_songs)
  SELECT CASE WHEN n = 0 THEN -9223372036854775808 ELSE sort_key END, CASE WHEN n = 0 THEN -2147483648 ELSE id END,
    least(bucket_songs, songs - n)
  FROM settled WHERE n % bucket_songs = 0
  UNION ALL
  SELECT -9223372036854775808, -2147483648, 0 WHERE NOT EXISTS (SELECT 1 FROM settled);
  DELETE FROM song_title_buckets;
  WITH settled AS (
    SELECT lower(s.title) AS sort_key, s.id, row_number() OVER (ORDER BY lower(s.title), s.id) - 1 AS n, count(*) OVER () AS songs
    FROM songs s
    WHERE song_is_live(s.published_at, s.deleted_at) AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = s.id)
  )
  INSERT INTO song_title_buckets (sort_key, song_id, settled_songs)
  SELECT CASE WHEN n = 0 THEN '' ELSE sort_key END, CASE WHEN n = 0 THEN -2147483648 ELSE id END,
    least(bucket_songs, songs - n)
  FROM settled WHERE n % bucket_songs = 0
  UNION ALL
  SELECT '', -2147483648, 0 WHERE NOT EXISTS (SELECT 1 FROM settled);
$$;

CREATE FUNCTION recount_song_sort_buckets_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recount_song_sort_buckets();
  RETURN NULL;
END $$;

CREATE TRIGGER songs_sort_bucket_count_truncate AFTER TRUNCATE ON songs
  FOR EACH STATEMENT EXECUTE FUNCTION recount_song_sort_buckets_trigger();

SELECT recount_song_sort_buckets();


-- Where an ascending walk of the public songs in released order (released_at, id) reaches
-- position `skip`: the bound of the bucket to start from, and how many songs come before it. Kept
-- settled songs per bucket plus the due ones (usually none), summed over the buckets.
CREATE FUNCTION public_song_released_seek(skip bigint) RETURNS TABLE (bound_key date, bound_id integer, songs_before bigint)
LANGUAGE sql STABLE AS $$
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
  ORDER BY r.sort_key DESC, r.song_id DESC LIMIT 1
$$;

-- The same in popular order (coalesce(vidsvc_views, -1), id).
CREATE FUNCTION public_song_popular_seek(skip bigint) RETURNS TABLE (bound_key bigint, bound_id integer, songs_before bigint)
LANGUAGE sql STABLE AS $$
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
  ORDER BY r.sort_key DESC, r.song_id DESC LIMIT 1
$$;

-- The same in title order (lower(title), id).
CREATE FUNCTION public_song_title_seek(skip bigint) RETURNS TABLE (bound_key text, bound_id integer, songs_before bigint)
LANGUAGE sql STABLE AS $$
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
  ORDER BY r.sort_key DESC, r.song_id DESC LIMIT 1
$$;

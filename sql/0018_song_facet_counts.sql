-- Kept counts of /v1/songs filtered by two or three of genre, label and year, so that meta.total
-- stays exact without counting the matching songs on each request (at 1M songs,
-- ?genre=pop&year=2015 counted 21k songs of the year against pop's 280k links: ~1 s;
-- ?genre=pop&label=381 collected 89k songs of the label).
--
-- The sql/0006 pattern: counts of *live* songs kept by statement-level triggers, read as live
-- minus the songs still scheduled (scheduled_song_links_now, whose rows carry their genres,
-- labels and release date). One row per combination of two or three filters, 0 meaning "any":
-- (genre, 0, year), (0, label, year), (genre, label, 0) and (genre, label, year). Single filters
-- keep their counts of sql/0003 and 0006. ~640k rows at 1M songs.

-- The first count reads every link of every live song (~10-20 s at 1M songs).
SET LOCAL statement_timeout = 0;

CREATE TABLE song_facet_counts (
  genre_id    integer NOT NULL,  -- 0: any genre
  label_id    integer NOT NULL,  -- 0: any label
  year        integer NOT NULL,  -- 0: any year
  live_songs  integer NOT NULL DEFAULT 0,
  PRIMARY KEY (genre_id, label_id, year)
);

CREATE FUNCTION song_release_year(released_at date) RETURNS integer
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN extract(year FROM released_at)::integer;

-- The combinations one live song is in, from its links as they are now, for its release year.
CREATE FUNCTION song_facets(song integer, song_year integer)
RETURNS TABLE (genre_id integer, label_id integer, year integer) LANGUAGE sql STABLE AS $$
  SELECT g.genre_id, 0, song_year FROM song_genres g WHERE g.song_id = song
  UNION ALL
  SELECT 0, l.label_id, song_year FROM song_labels l WHERE l.song_id = song
  UNION ALL
  SELECT g.genre_id, l.label_id, y.year
  FROM song_genres g JOIN song_labels l ON l.song_id = g.song_id CROSS JOIN (VALUES (0), (song_year)) AS y(year)
  WHERE g.song_id = song
$$;

-- The combinations a changed link is in (a genre link: label_id NULL; a label link: genre_id NULL),
-- with the song's other links as they are now; added with `delta` for links of live songs.
CREATE FUNCTION add_song_link_facet_counts(song_ids integer[], genre_ids integer[], label_ids integer[], deltas integer[])
RETURNS void LANGUAGE sql AS $$
  INSERT INTO song_facet_counts AS t (genre_id, label_id, year, live_songs)
  SELECT f.genre_id, f.label_id, f.year, sum(x.delta)
  FROM unnest(song_ids, genre_ids, label_ids, deltas) AS x(song_id, genre_id, label_id, delta)
  JOIN songs s ON s.id = x.song_id AND song_is_live(s.published_at, s.deleted_at)
  CROSS JOIN LATERAL (
    SELECT x.genre_id AS genre_id, 0 AS label_id, song_release_year(s.released_at) AS year WHERE x.genre_id IS NOT NULL
    UNION ALL
    SELECT x.genre_id, l.label_id, y.year
    FROM song_labels l CROSS JOIN (VALUES (0), (song_release_year(s.released_at))) AS y(year)
    WHERE x.genre_id IS NOT NULL AND l.song_id = x.song_id
    UNION ALL
    SELECT 0, x.label_id, song_release_year(s.released_at) WHERE x.label_id IS NOT NULL
    UNION ALL
    SELECT g.genre_id, x.label_id, y.year
    FROM song_genres g CROSS JOIN (VALUES (0), (song_release_year(s.released_at))) AS y(year)
    WHERE x.label_id IS NOT NULL AND g.song_id = x.song_id
  ) f
  GROUP BY f.genre_id, f.label_id, f.year HAVING sum(x.delta) <> 0
  ON CONFLICT (genre_id, label_id, year) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
$$;

CREATE FUNCTION song_genres_facet_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    PERFORM add_song_link_facet_counts(
      ARRAY(SELECT o.song_id FROM old_rows o ORDER BY o.song_id, o.genre_id),
      ARRAY(SELECT o.genre_id FROM old_rows o ORDER BY o.song_id, o.genre_id),
      array_fill(NULL::integer, ARRAY[(SELECT count(*)::integer FROM old_rows)]),
      array_fill(-1, ARRAY[(SELECT count(*)::integer FROM old_rows)]));
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM add_song_link_facet_counts(
      ARRAY(SELECT n.song_id FROM new_rows n ORDER BY n.song_id, n.genre_id),
      ARRAY(SELECT n.genre_id FROM new_rows n ORDER BY n.song_id, n.genre_id),
      array_fill(NULL::integer, ARRAY[(SELECT count(*)::integer FROM new_rows)]),
      array_fill(1, ARRAY[(SELECT count(*)::integer FROM new_rows)]));
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION song_labels_facet_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    PERFORM add_song_link_facet_counts(
      ARRAY(SELECT o.song_id FROM old_rows o ORDER BY o.song_id, o.label_id),
      array_fill(NULL::integer, ARRAY[(SELECT count(*)::integer FROM old_rows)]),
      ARRAY(SELECT o.label_id FROM old_rows o ORDER BY o.song_id, o.label_id),
      array_fill(-1, ARRAY[(SELECT count(*)::integer FROM old_rows)]));
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    PERFORM add_song_link_facet_counts(
      ARRAY(SELECT n.song_id FROM new_rows n ORDER BY n.song_id, n.label_id),
      array_fill(NULL::integer, ARRAY[(SELECT count(*)::integer FROM new_rows)]),
      ARRAY(SELECT n.label_id FROM new_rows n ORDER BY n.song_id, n.label_id),
      array_fill(1, ARRAY[(SELECT count(*)::integer FROM new_rows)]));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER song_genres_facet_count_insert AFTER INSERT ON song_genres
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_facet_count_trigger();
CREATE TRIGGER song_genres_facet_count_update AFTER UPDATE ON song_genres
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_facet_count_trigger();
CREATE TRIGGER song_genres_facet_count_delete AFTER DELETE ON song_genres
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_facet_count_trigger();
CREATE TRIGGER song_labels_facet_count_insert AFTER INSERT ON song_labels
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_facet_count_trigger();
CREATE TRIGGER song_labels_facet_count_update AFTER UPDATE ON song_labels
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_facet_count_trigger();
CREATE TRIGGER song_labels_facet_count_delete AFTER DELETE ON song_labels
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_facet_count_trigger();

-- songs: a song becoming live or not, or moving to another year, moves every combination it is in.
-- Inserted songs have no links yet; deleted songs lost theirs first (foreign keys).
CREATE FUNCTION songs_facet_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH changed AS (
    SELECT n.id, o.released_at AS old_released_at, n.released_at AS new_released_at,
      song_is_live(o.published_at, o.deleted_at) AS was_live, song_is_live(n.published_at, n.deleted_at) AS is_live
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE song_is_live(o.published_at, o.deleted_at) <> song_is_live(n.published_at, n.deleted_at)
       OR (song_is_live(n.published_at, n.deleted_at)
           AND song_release_year(o.released_at) <> song_release_year(n.released_at))
  ), deltas AS (
    SELECT f.genre_id, f.label_id, f.year, -1 AS delta
    FROM changed ch CROSS JOIN LATERAL song_facets(ch.id, song_release_year(ch.old_released_at)) f WHERE ch.was_live
    UNION ALL
    SELECT f.genre_id, f.label_id, f.year, 1
    FROM changed ch CROSS JOIN LATERAL song_facets(ch.id, song_release_year(ch.new_released_at)) f WHERE ch.is_live
  )
  INSERT INTO song_facet_counts AS t (genre_id, label_id, year, live_songs)
  SELECT d.genre_id, d.label_id, d.year, sum(d.delta) FROM deltas d
  GROUP BY d.genre_id, d.label_id, d.year HAVING sum(d.delta) <> 0
  ON CONFLICT (genre_id, label_id, year) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
  RETURN NULL;
END $$;

CREATE TRIGGER songs_facet_count_update AFTER UPDATE ON songs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_facet_count_trigger();

-- Recounts from scratch: the initial fill, after a bulk load, after a TRUNCATE.
CREATE FUNCTION recount_song_facet_counts() RETURNS void LANGUAGE sql AS $$
  DELETE FROM song_facet_counts;
  WITH live AS (
    SELECT s.id, song_release_year(s.released_at) AS year FROM songs s WHERE song_is_live(s.published_at, s.deleted_at)
  ), genre_links AS (
    SELECT g.song_id, g.genre_id, live.year FROM song_genres g JOIN live ON live.id = g.song_id
  ), label_links AS (
    SELECT l.song_id, l.label_id, live.year FROM song_labels l JOIN live ON live.id = l.song_id
  )
  INSERT INTO song_facet_counts (genre_id, label_id, year, live_songs)
  SELECT genre_id, 0, year, count(*) FROM genre_links GROUP BY genre_id, year
  UNION ALL
  SELECT 0, label_id, year, count(*) FROM label_links GROUP BY label_id, year
  UNION ALL
  SELECT g.genre_id, l.label_id, y.year, count(*)
  FROM genre_links g JOIN label_links l ON l.song_id = g.song_id CROSS JOIN LATERAL (VALUES (0), (g.year)) AS y(year)
  GROUP BY g.genre_id, l.label_id, y.year;
$$;

CREATE FUNCTION recount_song_facet_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recount_song_facet_counts();
  RETURN NULL;
END $$;

CREATE TRIGGER songs_facet_count_truncate AFTER TRUNCATE ON songs
  FOR EACH STATEMENT EXECUTE FUNCTION recount_song_facet_counts_trigger();
CREATE TRIGGER song_genres_facet_count_truncate AFTER TRUNCATE ON song_genres
  FOR EACH STATEMENT EXECUTE FUNCTION recount_song_facet_counts_trigger();
CREATE TRIGGER song_labels_facet_count_truncate AFTER TRUNCATE ON song_labels
  FOR EACH STATEMENT EXECUTE FUNCTION recount_song_facet_counts_trigger();

SELECT recount_song_facet_counts();

-- Public songs matching two or three filters (NULL: not filtered): the kept live count minus the
-- matching songs still scheduled. A caller with an unknown genre slug must not call it with NULL.
CREATE FUNCTION public_song_facet_count(for_genre integer, for_label integer, for_year integer) RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT f.live_songs FROM song_facet_counts f
                   WHERE f.genre_id = coalesce(for_genre, 0) AND f.label_id = coalesce(for_label, 0)
                     AND f.year = coalesce(for_year, 0)), 0)
       - (SELECT count(*) FROM scheduled_song_links_now s
          WHERE (for_genre IS NULL OR for_genre = ANY (s.genre_ids))
            AND (for_label IS NULL OR for_label = ANY (s.label_ids))
            AND (for_year IS NULL OR song_release_year(s.released_at) = for_year))
$$;

-- Deep offsets of /v1/songs in release order (no genre or label filter): where a walk of the
-- public songs released in [from_date, until_date), newest first or oldest first, reaches position
-- `skip`: the date to start from and how many songs come before it. Read from the kept per-date
-- counts (sql/0006) minus the scheduled songs, so that offset 500,000 walks one date's songs, not
-- 500,000 index entries and rows.
CREATE FUNCTION public_song_release_seek(from_date date, until_date date, newest_first boolean, skip bigint)
RETURNS TABLE (released_at date, songs_before bigint) LANGUAGE sql STABLE AS $$
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
  (SELECT * FROM oldest WHERE songs_before <= skip ORDER BY released_at DESC LIMIT 1)
$$;

-- /v1/discovery's "on this day": the songs of today's month and day in its order, so that the walk
-- stops after 10 rows instead of reading every song of the day (~4,900 heap rows at 1M songs).
CREATE INDEX songs_on_this_day_idx ON songs (
  extract(month FROM released_at), extract(day FROM released_at), vidsvc_views DESC NULLS LAST, released_at DESC, id DESC
) WHERE song_is_live(published_at, deleted_at) AND date_type = 'FULL';

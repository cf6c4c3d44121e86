-- Kept public song counts of artists, as a sort key (/v1/artists?sort=songs: every artist's songs
-- were counted on each request, past the 5 s statement timeout at 1M songs) and as the artist
-- summary's song_count (count(DISTINCT song) over a prolific artist's credits on each read).
--
-- "Settled" songs: live (published_at set, not deleted) and not listed in scheduled_song_links
-- (sql/0006), i.e. already public when last written. The public songs are the settled ones plus
-- the listed ones whose published_at has passed since ("due": none until the clock passes a
-- scheduled song, gone at the next write that refreshes scheduled_song_links). So the public count
-- of an artist is settled_songs + its due songs, and only the few due artists are out of order in
-- the index; sql/0006's way (live minus still scheduled) put every artist of a scheduled song
-- (~20k at 1M songs) out of order.
--
-- Every artist with a credit on a live song has a row (settled_songs may be 0): artists without
-- settled songs are a short index range, read when a page reaches the end of the list.

-- The first count reads every credit (~10 s at 1M songs): not bounded by the service's statement timeout.
SET LOCAL statement_timeout = 0;

CREATE TABLE artist_song_counts (
  artist_id      integer PRIMARY KEY REFERENCES artists (id) ON DELETE CASCADE,
  settled_songs  integer NOT NULL DEFAULT 0
);
-- (-settled_songs, artist_id): "most songs first, then id" is one ascending range, cursors included.
CREATE INDEX artist_song_counts_rank_idx ON artist_song_counts ((-settled_songs), artist_id) INCLUDE (settled_songs);
CREATE INDEX artist_song_counts_none_idx ON artist_song_counts (artist_id) WHERE settled_songs = 0;
-- Artists named on live albums without any live credit: with the above, the end of the list.
CREATE INDEX artist_counts_albums_only_idx ON artist_counts (artist_id) WHERE live_credits = 0 AND live_album_credits > 0;

-- How many artists have settled songs (the list's total without reading every row).
CREATE TABLE artist_song_totals (
  only_row      boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  with_settled  bigint NOT NULL DEFAULT 0
);
INSERT INTO artist_song_totals DEFAULT VALUES;

CREATE FUNCTION recount_artist_song_counts() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM artist_song_counts;
  INSERT INTO artist_song_counts (artist_id, settled_songs)
  SELECT p.artist_id, count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = p.song_id))
  FROM (SELECT DISTINCT c.artist_id, c.song_id FROM credits c JOIN songs s ON s.id = c.song_id
        WHERE s.deleted_at IS NULL AND s.published_at IS NOT NULL) p
  GROUP BY p.artist_id;
  UPDATE artist_song_totals SET with_settled = (SELECT count(*) FROM artist_song_counts WHERE settled_songs > 0);
END $$;

CREATE FUNCTION recount_artist_song_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recount_artist_song_counts();
  RETURN NULL;
END $$;

-- Adds per-artist changes; artists of live songs get a row even when their change is 0.
CREATE FUNCTION add_settled_songs(artist_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO artist_song_counts AS t (artist_id, settled_songs)
  SELECT x.artist_id, sum(x.delta) FROM unnest(artist_ids, deltas) AS x(artist_id, delta)
  GROUP BY x.artist_id
  ON CONFLICT (artist_id) DO UPDATE SET settled_songs = t.settled_songs + excluded.settled_songs
  WHERE excluded.settled_songs <> 0;
$$;

-- credits: a (song, artist) pair counts once however many credits it has; a pair appears or
-- disappears when its number of credits crosses zero (before = now - added + removed).
-- Named to fire before sql/0006's *_scheduled_count_* triggers (triggers fire in name order),
-- so that it sees scheduled_song_links as it was before this statement.
CREATE FUNCTION credits_artist_song_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[] := '{}';
  artist_ids integer[] := '{}';
  ns integer[] := '{}';
  changed_artists integer[];
  deltas bigint[];
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT song_ids || array_agg(n.song_id), artist_ids || array_agg(n.artist_id), ns || array_agg(1)
    INTO song_ids, artist_ids, ns FROM new_rows n;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    SELECT song_ids || array_agg(o.song_id), artist_ids || array_agg(o.artist_id), ns || array_agg(-1)
    INTO song_ids, artist_ids, ns FROM old_rows o;
  END IF;
  SELECT array_agg(p.artist_id), array_agg(p.delta) INTO changed_artists, deltas
  FROM (
    SELECT x.artist_id,
      (CASE WHEN now_n.n > 0 THEN 1 ELSE 0 END) - (CASE WHEN now_n.n - x.n > 0 THEN 1 ELSE 0 END)::bigint AS delta
    FROM (SELECT u.song_id, u.artist_id, sum(u.n) AS n FROM unnest(song_ids, artist_ids, ns) AS u(song_id, artist_id, n)
          GROUP BY u.song_id, u.artist_id) x
    JOIN songs s ON s.id = x.song_id AND s.deleted_at IS NULL AND s.published_at IS NOT NULL
    CROSS JOIN LATERAL (SELECT count(*) AS n FROM credits c WHERE c.artist_id = x.artist_id AND c.song_id = x.song_id) now_n
    WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = x.song_id)
    UNION ALL
    -- credits on scheduled songs: a row for the artist, nothing to add
    SELECT x.artist_id, 0 FROM unnest(song_ids, artist_ids, ns) AS x(song_id, artist_id, n)
    WHERE x.n > 0 AND EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = x.song_id)
  ) p;
  IF changed_artists IS NOT NULL THEN PERFORM add_settled_songs(changed_artists, deltas); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER credits_artist_song_count_insert AFTER INSERT ON credits
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_artist_song_count_trigger();
CREATE TRIGGER credits_artist_song_count_update AFTER UPDATE ON credits
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_artist_song_count_trigger();
CREATE TRIGGER credits_artist_song_count_delete AFTER DELETE ON credits
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_artist_song_count_trigger();

-- songs: a song becoming live or not moves each of its artists by one, unless it is listed as
-- scheduled (then scheduled_song_links' own trigger below does it). Inserted songs have no
-- credits yet; deleted songs lost theirs first (foreign keys). Fires before sql/0006's
-- songs_scheduled_count_update (name order).
CREATE FUNCTION songs_artist_song_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed_artists integer[];
  deltas bigint[];
BEGIN
  SELECT array_agg(c.artist_id), array_agg(ch.delta) INTO changed_artists, deltas
  FROM (
    SELECT n.id,
      (CASE WHEN n.deleted_at IS NULL AND n.published_at IS NOT NULL THEN 1 ELSE 0 END) -
      (CASE WHEN o.deleted_at IS NULL AND o.published_at IS NOT NULL THEN 1 ELSE 0 END)::bigint AS delta
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = n.id)
  ) ch
  CROSS JOIN LATERAL (SELECT DISTINCT c.artist_id FROM credits c WHERE c.song_id = ch.id) c
  WHERE ch.delta <> 0;
  IF changed_artists IS NOT NULL THEN PERFORM add_settled_songs(changed_artists, deltas); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER songs_artist_song_count_update AFTER UPDATE ON songs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_artist_song_count_trigger();

-- scheduled_song_links: a live song listed there stops being settled; one removed (its time has
-- come, or it was rescheduled, unpublished or deleted) is settled again if it is live.
CREATE FUNCTION scheduled_song_links_artist_song_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[] := '{}';
  ns integer[] := '{}';
  changed_artists integer[];
  deltas bigint[];
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT song_ids || array_agg(n.song_id), ns || array_agg(-1) INTO song_ids, ns FROM new_rows n;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    SELECT song_ids || array_agg(o.song_id), ns || array_agg(1) INTO song_ids, ns FROM old_rows o;
  END IF;
  SELECT array_agg(c.artist_id), array_agg(x.delta) INTO changed_artists, deltas
  FROM (SELECT u.song_id, sum(u.n)::bigint AS delta FROM unnest(song_ids, ns) AS u(song_id, n)
        GROUP BY u.song_id HAVING sum(u.n) <> 0) x
  JOIN songs s ON s.id = x.song_id AND s.deleted_at IS NULL AND s.published_at IS NOT NULL
  CROSS JOIN LATERAL (SELECT DISTINCT c.artist_id FROM credits c WHERE c.song_id = x.song_id) c;
  IF changed_artists IS NOT NULL THEN PERFORM add_settled_songs(changed_artists, deltas); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER scheduled_song_links_artist_song_count_insert AFTER INSERT ON scheduled_song_links
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_artist_song_count_trigger();
CREATE TRIGGER scheduled_song_links_artist_song_count_update AFTER UPDATE ON scheduled_song_links
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_artist_song_count_trigger();
CREATE TRIGGER scheduled_song_links_artist_song_count_delete AFTER DELETE ON scheduled_song_links
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_artist_song_count_trigger();

-- artist_song_counts: an artist crossing zero settled songs moves artist_song_totals.
CREATE FUNCTION artist_song_totals_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta bigint := 0;
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    delta := delta + (SELECT count(*) FROM new_rows WHERE settled_songs > 0);
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    delta := delta - (SELECT count(*) FROM old_rows WHERE settled_songs > 0);
  END IF;
  IF delta <> 0 THEN
    UPDATE artist_song_totals SET with_settled = with_settled + delta;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER artist_song_totals_count_insert AFTER INSERT ON artist_song_counts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_song_totals_trigger();
CREATE TRIGGER artist_song_totals_count_update AFTER UPDATE ON artist_song_counts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_song_totals_trigger();
CREATE TRIGGER artist_song_totals_count_delete AFTER DELETE ON artist_song_counts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_song_totals_trigger();

CREATE TRIGGER credits_artist_song_count_truncate AFTER TRUNCATE ON credits
  FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_song_counts_trigger();
CREATE TRIGGER songs_artist_song_count_truncate AFTER TRUNCATE ON songs
  FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_song_counts_trigger();

SELECT recount_artist_song_counts();

-- The due songs of each artist: listed as scheduled, published_at passed (usually none).
CREATE VIEW due_artist_songs AS
  SELECT a.artist_id, count(DISTINCT l.song_id) AS songs
  FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.artist_ids) AS a(artist_id)
  WHERE l.published_at <= now()
  GROUP BY a.artist_id;

-- Public songs with any credit of the artist: the same number as counting its credits on
-- public_songs, read from one row and the (usually empty) due range.
CREATE FUNCTION public_artist_song_count(artist integer) RETURNS bigint LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce((SELECT settled_songs FROM artist_song_counts WHERE artist_id = artist), 0)
       + (SELECT count(*) FROM scheduled_song_links l WHERE l.published_at <= now() AND artist = ANY (l.artist_ids))
$$;

-- The visible artists (public_artists) with their public song counts, in the order of
-- /v1/artists?sort=songs, as three parts: settled artists not due (one index range), due artists
-- (usually none), and visible artists without public songs (named on a public album; read only
-- when a page reaches them). Callers order by (-song_count, id) and may pass the range start.
CREATE FUNCTION artists_by_song_count(after_count integer, after_id integer, wanted integer)
RETURNS TABLE (id integer, song_count bigint) LANGUAGE sql STABLE AS $$
  WITH due AS MATERIALIZED (SELECT artist_id, songs FROM due_artist_songs),
  settled AS (
    SELECT ac.artist_id AS id, ac.settled_songs::bigint AS song_count
    FROM artist_song_counts ac
    WHERE -ac.settled_songs < 0
      AND (after_count IS NULL OR (-ac.settled_songs, ac.artist_id) > (-after_count, after_id))
      AND NOT EXISTS (SELECT 1 FROM due d WHERE d.artist_id = ac.artist_id)
    ORDER BY -ac.settled_songs, ac.artist_id
    LIMIT wanted),
  moved AS (
    SELECT d.artist_id AS id, coalesce((SELECT ac.settled_songs FROM artist_song_counts ac WHERE ac.artist_id = d.artist_id), 0) + d.songs
    FROM due d),
  without_songs AS (
    SELECT x.artist_id AS id, 0::bigint AS song_count
    FROM (SELECT artist_id FROM artist_song_counts WHERE settled_songs = 0
          UNION SELECT artist_id FROM artist_counts WHERE live_credits = 0 AND live_album_credits > 0) x
    WHERE (SELECT count(*) FROM settled) < wanted
      AND NOT EXISTS (SELECT 1 FROM due d WHERE d.artist_id = x.artist_id)
      AND EXISTS (SELECT 1 FROM album_artists aa JOIN public_albums al ON al.id = aa.album_id WHERE aa.artist_id = x.artist_id))
  SELECT r.id, r.song_count FROM (
    SELECT * FROM settled UNION ALL SELECT * FROM moved UNION ALL SELECT * FROM without_songs) r
  WHERE after_count IS NULL OR (-r.song_count, r.id) > (-after_count, after_id)
  ORDER BY -r.song_count, r.id
  LIMIT wanted
$$;

-- How many artists are visible: settled (kept), plus due artists without settled songs, plus
-- those visible through a public album only. Same set as public_artists.
CREATE FUNCTION visible_artist_count() RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT (SELECT with_settled FROM artist_song_totals)
       + (SELECT count(*) FROM due_artist_songs d
          WHERE NOT EXISTS (SELECT 1 FROM artist_song_counts ac WHERE ac.artist_id = d.artist_id AND ac.settled_songs > 0))
       + (SELECT count(*)
          FROM (SELECT artist_id FROM artist_song_counts WHERE settled_songs = 0
                UNION SELECT artist_id FROM artist_counts WHERE live_credits = 0 AND live_album_credits > 0) x
          WHERE NOT EXISTS (SELECT 1 FROM due_artist_songs d WHERE d.artist_id = x.artist_id)
            AND EXISTS (SELECT 1 FROM album_artists aa JOIN public_albums al ON al.id = aa.album_id WHERE aa.artist_id = x.artist_id))
$$;


-- Kept public song counts of each artist per role and per role tag (performer, writer...):
-- /v1/artists/{id} counted every credit of the artist per song to list its roles (~1.7 s for an
-- artist with ~47k credits at 1M songs), and /v1/artists/{id}/songs?role= counted the role's
-- songs over credits_artist_idx for its total (up to 4 s).
--
-- Same scheme as sql/0008: the kept counts are of *settled* songs (live, not listed in
-- scheduled_song_links); the public count adds the artist's *due* songs (listed, published_at
-- passed) at read time. A song counts once per (artist, role) and once per (artist, tag)
-- however many credits it has there.

SET LOCAL statement_timeout = 0;

-- An artist's credits in some roles as one index range, index-only: songs?role= of an artist
-- with few songs in the role but many credits (a prolific writer's performances), and the
-- performances that list an artist's albums, read the role's credits only.
CREATE INDEX credits_artist_role_idx ON credits (artist_id, role_id, song_id);

CREATE TABLE artist_role_song_counts (
  artist_id      integer NOT NULL REFERENCES artists (id) ON DELETE CASCADE,
  role_id        integer NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  settled_songs  integer NOT NULL DEFAULT 0,
  PRIMARY KEY (artist_id, role_id)
);

CREATE TABLE artist_tag_song_counts (
  artist_id      integer NOT NULL REFERENCES artists (id) ON DELETE CASCADE,
  tag            text NOT NULL,
  settled_songs  integer NOT NULL DEFAULT 0,
  PRIMARY KEY (artist_id, tag)
);

-- Is the song settled: live and not listed as scheduled (reads the list as it is now).
CREATE FUNCTION song_is_settled(song integer) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM songs s WHERE s.id = song AND song_is_live(s.published_at, s.deleted_at))
     AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = song)
$$;

CREATE FUNCTION recount_artist_role_counts() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM artist_role_song_counts;
  DELETE FROM artist_tag_song_counts;
  CREATE TEMP TABLE settled_credits ON COMMIT DROP AS
    SELECT c.artist_id, c.song_id, c.role_id, r.tag
    FROM credits c JOIN roles r ON r.id = c.role_id JOIN songs s ON s.id = c.song_id
    WHERE song_is_live(s.published_at, s.deleted_at)
      AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = c.song_id);
  INSERT INTO artist_role_song_counts (artist_id, role_id, settled_songs)
  SELECT artist_id, role_id, count(DISTINCT song_id) FROM settled_credits GROUP BY artist_id, role_id;
  INSERT INTO artist_tag_song_counts (artist_id, tag, settled_songs)
  SELECT artist_id, tag, count(DISTINCT song_id) FROM settled_credits GROUP BY artist_id, tag;
  DROP TABLE settled_credits;
END $$;

CREATE FUNCTION recount_artist_role_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recount_artist_role_counts();
  RETURN NULL;
END $$;

-- Adds changes of (song, artist, role) pairs: `ns` is how many credits of each pair appeared
-- (+) or went (-) on settled songs. A pair is counted when it has a credit, so the count moves
-- when its number of credits crosses zero (before = now - added + removed); the same for
-- (song, artist, tag).
CREATE FUNCTION add_artist_role_credits(song_ids integer[], artist_ids integer[], role_ids integer[], ns integer[])
RETURNS void LANGUAGE sql AS $$
  WITH changed AS (
    SELECT u.song_id, u.artist_id, u.role_id, r.tag, u.n
    FROM unnest(song_ids, artist_ids, role_ids, ns) AS u(song_id, artist_id, role_id, n)
    JOIN roles r ON r.id = u.role_id
    WHERE song_is_settled(u.song_id)),
  by_role AS (
    SELECT x.artist_id, x.role_id,
      sum((CASE WHEN now_n.n > 0 THEN 1 ELSE 0 END) - (CASE WHEN now_n.n - x.n > 0 THEN 1 ELSE 0 END)) AS delta
    FROM (SELECT song_id, artist_id, role_id, sum(n) AS n FROM changed GROUP BY song_id, artist_id, role_id) x
    CROSS JOIN LATERAL (SELECT count(*) AS n FROM credits c
                        WHERE c.artist_id = x.artist_id AND c.song_id = x.song_id AND c.role_id = x.role_id) now_n
    GROUP BY x.artist_id, x.role_id),
  by_tag AS (
    SELECT x.artist_id, x.tag,
      sum((CASE WHEN now_n.n > 0 THEN 1 ELSE 0 END) - (CASE WHEN now_n.n - x.n > 0 THEN 1 ELSE 0 END)) AS delta
    FROM (SELECT song_id, artist_id, tag, sum(n) AS n FROM changed GROUP BY song_id, artist_id, tag) x
    CROSS JOIN LATERAL (SELECT count(*) AS n FROM credits c JOIN roles r ON r.id = c.role_id
                        WHERE c.artist_id = x.artist_id AND c.song_id = x.song_id AND r.tag = x.tag) now_n
    GROUP BY x.artist_id, x.tag),
  roles_added AS (
    INSERT INTO artist_role_song_counts AS t (artist_id, role_id, settled_songs)
    SELECT artist_id, role_id, delta FROM by_role WHERE delta <> 0
    ON CONFLICT (artist_id, role_id) DO UPDATE SET settled_songs = t.settled_songs + excluded.settled_songs)
  INSERT INTO artist_tag_song_counts AS t (artist_id, tag, settled_songs)
  SELECT artist_id, tag, delta FROM by_tag WHERE delta <> 0
  ON CONFLICT (artist_id, tag) DO UPDATE SET settled_songs = t.settled_songs + excluded.settled_songs;
$$;

-- Adds a whole song's pairs: `deltas` per song (+1 it became settled, -1 it stopped being).
CREATE FUNCTION add_artist_role_songs(song_ids integer[], deltas integer[]) RETURNS void LANGUAGE sql AS $$
  WITH moved AS (
    SELECT u.song_id, sum(u.delta) AS delta FROM unnest(song_ids, deltas) AS u(song_id, delta)
    GROUP BY u.song_id HAVING sum(u.delta) <> 0),
  roles_added AS (
    INSERT INTO artist_role_song_counts AS t (artist_id, role_id, settled_songs)
    SELECT p.artist_id, p.role_id, sum(m.delta)
    FROM moved m CROSS JOIN LATERAL (SELECT DISTINCT c.artist_id, c.role_id FROM credits c WHERE c.song_id = m.song_id) p
    GROUP BY p.artist_id, p.role_id
    ON CONFLICT (artist_id, role_id) DO UPDATE SET settled_songs = t.settled_songs + excluded.settled_songs)
  INSERT INTO artist_tag_song_counts AS t (artist_id, tag, settled_songs)
  SELECT p.artist_id, p.tag, sum(m.delta)
  FROM moved m CROSS JOIN LATERAL (SELECT DISTINCT c.artist_id, r.tag FROM credits c JOIN roles r ON r.id = c.role_id
                                   WHERE c.song_id = m.song_id) p
  GROUP BY p.artist_id, p.tag
  ON CONFLICT (artist_id, tag) DO UPDATE SET settled_songs = t.settled_songs + excluded.settled_songs;
$$;

-- credits: named to fire before sql/0006's credits_scheduled_count_* (triggers fire in name
-- order), so that scheduled_song_links is as it was before this statement.
CREATE FUNCTION credits_artist_role_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[] := '{}';
  artist_ids integer[] := '{}';
  role_ids integer[] := '{}';
  ns integer[] := '{}';
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT song_ids || array_agg(n.song_id), artist_ids || array_agg(n.artist_id), role_ids || array_agg(n.role_id),
      ns || array_agg(1)
    INTO song_ids, artist_ids, role_ids, ns FROM new_rows n;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    SELECT song_ids || array_agg(o.song_id), artist_ids || array_agg(o.artist_id), role_ids || array_agg(o.role_id),
      ns || array_agg(-1)
    INTO song_ids, artist_ids, role_ids, ns FROM old_rows o;
  END IF;
  IF song_ids IS NOT NULL THEN PERFORM add_artist_role_credits(song_ids, artist_ids, role_ids, ns); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER credits_artist_role_count_insert AFTER INSERT ON credits
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_artist_role_count_trigger();
CREATE TRIGGER credits_artist_role_count_update AFTER UPDATE ON credits
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_artist_role_count_trigger();
CREATE TRIGGER credits_artist_role_count_delete AFTER DELETE ON credits
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_artist_role_count_trigger();

-- songs: a song becoming live or not moves its pairs, unless it is listed as scheduled (then
-- scheduled_song_links' trigger does). Fires before sql/0006's songs_scheduled_count_update.
CREATE FUNCTION songs_artist_role_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[];
  deltas integer[];
BEGIN
  SELECT array_agg(n.id), array_agg((CASE WHEN song_is_live(n.published_at, n.deleted_at) THEN 1 ELSE 0 END)
                                  - (CASE WHEN song_is_live(o.published_at, o.deleted_at) THEN 1 ELSE 0 END))
  INTO song_ids, deltas
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  WHERE song_is_live(n.published_at, n.deleted_at) <> song_is_live(o.published_at, o.deleted_at)
    AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = n.id);
  IF song_ids IS NOT NULL THEN PERFORM add_artist_role_songs(song_ids, deltas); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER songs_artist_role_count_update AFTER UPDATE ON songs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_artist_role_count_trigger();

-- scheduled_song_links: a live song listed there stops being settled; one removed is settled
-- again if it is live.
CREATE FUNCTION scheduled_song_links_artist_role_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[] := '{}';
  deltas integer[] := '{}';
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT song_ids || array_agg(n.song_id), deltas || array_agg(-1) INTO song_ids, deltas FROM new_rows n;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    SELECT song_ids || array_agg(o.song_id), deltas || array_agg(1) INTO song_ids, deltas FROM old_rows o;
  END IF;
  SELECT array_agg(x.song_id), array_agg(x.delta) INTO song_ids, deltas
  FROM unnest(song_ids, deltas) AS x(song_id, delta)
  JOIN songs s ON s.id = x.song_id AND song_is_live(s.published_at, s.deleted_at);
  IF song_ids IS NOT NULL THEN PERFORM add_artist_role_songs(song_ids, deltas); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER scheduled_song_links_artist_role_count_insert AFTER INSERT ON scheduled_song_links
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_artist_role_count_trigger();
CREATE TRIGGER scheduled_song_links_artist_role_count_update AFTER UPDATE ON scheduled_song_links
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_artist_role_count_trigger();
CREATE TRIGGER scheduled_song_links_artist_role_count_delete AFTER DELETE ON scheduled_song_links
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_artist_role_count_trigger();

-- roles: a role changing tag moves every credit of it (rare: recount).
CREATE TRIGGER roles_artist_role_count_update AFTER UPDATE OF tag ON roles
  FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_role_counts_trigger();
CREATE TRIGGER credits_artist_role_count_truncate AFTER TRUNCATE ON credits
  FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_role_counts_trigger();
CREATE TRIGGER songs_artist_role_count_truncate AFTER TRUNCATE ON songs
  FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_role_counts_trigger();

SELECT recount_artist_role_counts();

-- Public songs of the artist per role (roles with none left out): kept rows plus due songs
-- (listed as scheduled, published_at passed: usually none), each due song's credits probed by
-- song (credits_pkey), never the artist's credits.
CREATE FUNCTION public_artist_role_song_counts(artist integer) RETURNS TABLE (role_id integer, songs bigint)
LANGUAGE sql STABLE AS $$
  SELECT x.role_id, sum(x.songs)::bigint FROM (
    SELECT k.role_id, k.settled_songs::bigint AS songs FROM artist_role_song_counts k WHERE k.artist_id = artist
    UNION ALL
    SELECT c.role_id, count(DISTINCT c.song_id)
    FROM scheduled_song_links l
    CROSS JOIN LATERAL (SELECT c.role_id, c.song_id FROM credits c WHERE c.song_id = l.song_id AND c.artist_id = artist OFFSET 0) c
    WHERE l.published_at <= now() AND artist = ANY (l.artist_ids)
    GROUP BY c.role_id) x
  GROUP BY x.role_id HAVING sum(x.songs) > 0
$$;

-- Public songs of the artist with a credit of a role tagged `role_tag` (performer, writer...).
-- OFFSET 0: a probe per due song, never a join (planned without the artist's id, a join would
-- start from the artist's credits).
CREATE FUNCTION public_artist_tag_song_count(artist integer, role_tag text) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT k.settled_songs FROM artist_tag_song_counts k WHERE k.artist_id = artist AND k.tag = role_tag), 0)
       + (SELECT count(*) FROM scheduled_song_links l
          WHERE l.published_at <= now() AND artist = ANY (l.artist_ids)
            AND EXISTS (SELECT 1 FROM credits c JOIN roles r ON r.id = c.role_id
                        WHERE c.song_id = l.song_id AND c.artist_id = artist AND r.tag = role_tag OFFSET 0))
$$;

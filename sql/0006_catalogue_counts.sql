-- Kept counts for /v1/stats (spec 2.13) and the meta.total of /v1/songs and /v1/albums, so that
-- neither counts the catalogue on each request (measured on the 100k-song demo: stats 4-5 s, of
-- which 1.3 s for the visible artists; /v1/songs?genre=pop 200-360 ms for its total).
--
-- Same pattern as sql/0003: triggers keep counts over *live* rows (song: published_at set and not
-- deleted; album: published_at set), and the public_* views below subtract what is still scheduled
-- for the future (few rows, found through songs_scheduled_idx / albums_scheduled_idx).
--
-- Visible artists (D11/D14: credited on a public song or named on a public album) and contributors
-- (public members with a contribution on a public song) are counted by keeping, per artist, its
-- credits on live songs and on live albums, and, catalogue-wide, how many artists and public
-- members have any; the views then take away the few whose live rows are all still scheduled.

CREATE TABLE catalogue_counts (
  only_row           boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  live_songs         bigint NOT NULL DEFAULT 0,
  live_credits       bigint NOT NULL DEFAULT 0,  -- credits on live songs
  live_artists       bigint NOT NULL DEFAULT 0,  -- artists with a live credit or live album credit
  live_contributors  bigint NOT NULL DEFAULT 0   -- public members with a contribution on a live song
);
INSERT INTO catalogue_counts DEFAULT VALUES;

CREATE TABLE artist_counts (
  artist_id           integer PRIMARY KEY REFERENCES artists (id) ON DELETE CASCADE,
  live_credits        integer NOT NULL DEFAULT 0,
  live_album_credits  integer NOT NULL DEFAULT 0
);
CREATE TABLE song_date_counts (
  released_at  date PRIMARY KEY,
  live_songs   integer NOT NULL DEFAULT 0
);
-- The live songs that were scheduled (published_at in the future) when last written, with their
-- links, one small row each: what the public counts subtract is read from one short index range
-- here instead of probing the large link tables once per scheduled song (random reads: ~250 ms
-- with a cold cache on the 100k demo, ~1k scheduled songs). Rows whose published_at has passed
-- are ignored by the readers (published_at > now()) and removed at the next write.
CREATE TABLE scheduled_song_links (
  song_id       integer PRIMARY KEY,
  published_at  timestamptz NOT NULL,
  released_at   date NOT NULL,
  artist_ids    integer[] NOT NULL,  -- one entry per credit
  member_ids    integer[] NOT NULL,  -- one entry per contribution
  genre_ids     integer[] NOT NULL,
  label_ids     integer[] NOT NULL
);
CREATE INDEX scheduled_song_links_published_idx ON scheduled_song_links (published_at);

-- Rewrites the rows of the given songs (and drops the rows whose time has passed).
CREATE FUNCTION refresh_scheduled_song_links(song_ids integer[]) RETURNS void LANGUAGE sql AS $$
  DELETE FROM scheduled_song_links WHERE song_id = ANY (song_ids) OR published_at <= now();
  INSERT INTO scheduled_song_links (song_id, published_at, released_at, artist_ids, member_ids, genre_ids, label_ids)
  SELECT s.id, s.published_at, s.released_at,
    ARRAY(SELECT c.artist_id FROM credits c WHERE c.song_id = s.id ORDER BY c.position),
    ARRAY(SELECT c.member_id FROM contributions c WHERE c.song_id = s.id),
    ARRAY(SELECT x.genre_id FROM song_genres x WHERE x.song_id = s.id),
    ARRAY(SELECT x.label_id FROM song_labels x WHERE x.song_id = s.id)
  FROM songs s
  WHERE s.id = ANY (song_ids) AND s.deleted_at IS NULL AND s.published_at > now();
$$;

-- The scheduled songs as the public counts see them.
CREATE VIEW scheduled_song_links_now AS
  SELECT * FROM scheduled_song_links WHERE published_at > now();
CREATE TABLE album_type_counts (
  album_type   text PRIMARY KEY,
  live_albums  integer NOT NULL DEFAULT 0
);

-- Recounts everything from scratch: the initial fill, after a bulk load, after a TRUNCATE.
CREATE FUNCTION recount_catalogue_counts() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM artist_counts;
  INSERT INTO artist_counts (artist_id, live_credits, live_album_credits)
  SELECT x.artist_id, sum(x.credits), sum(x.album_credits) FROM (
    SELECT c.artist_id, 1 AS credits, 0 AS album_credits
    FROM credits c JOIN songs s ON s.id = c.song_id WHERE s.deleted_at IS NULL AND s.published_at IS NOT NULL
    UNION ALL
    SELECT aa.artist_id, 0, 1 FROM album_artists aa JOIN albums al ON al.id = aa.album_id WHERE al.published_at IS NOT NULL
  ) x GROUP BY x.artist_id;

  DELETE FROM song_date_counts;
  INSERT INTO song_date_counts (released_at, live_songs)
  SELECT released_at, count(*) FROM songs
  WHERE deleted_at IS NULL AND published_at IS NOT NULL GROUP BY released_at;

  DELETE FROM scheduled_song_links;
  PERFORM refresh_scheduled_song_links(ARRAY(
    SELECT id FROM songs WHERE deleted_at IS NULL AND published_at IS NOT NULL AND published_at > now()));

  DELETE FROM album_type_counts;
  INSERT INTO album_type_counts (album_type, live_albums)
  SELECT album_type, count(*) FROM albums WHERE published_at IS NOT NULL GROUP BY album_type;

  UPDATE catalogue_counts SET
    live_songs = (SELECT count(*) FROM songs WHERE deleted_at IS NULL AND published_at IS NOT NULL),
    live_credits = (SELECT coalesce(sum(live_credits), 0) FROM artist_counts),
    live_artists = (SELECT count(*) FROM artist_counts WHERE live_credits > 0 OR live_album_credits > 0),
    live_contributors = (SELECT count(*) FROM member_contribution_counts mc JOIN members m ON m.id = mc.member_id
                         WHERE mc.live > 0 AND m.username IS NOT NULL AND NOT m.is_banned);
END $$;

CREATE FUNCTION recount_catalogue_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recount_catalogue_counts();
  RETURN NULL;
END $$;

-- artist_counts: an artist whose live credits and live album credits cross zero moves live_artists.
CREATE FUNCTION artist_counts_visible_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta bigint := 0;
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    delta := delta + (SELECT count(*) FROM new_rows WHERE live_credits > 0 OR live_album_credits > 0);
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    delta := delta - (SELECT count(*) FROM old_rows WHERE live_credits > 0 OR live_album_credits > 0);
  END IF;
  IF delta <> 0 THEN
    UPDATE catalogue_counts SET live_artists = live_artists + delta;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER artist_counts_visible_insert AFTER INSERT ON artist_counts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_counts_visible_trigger();
CREATE TRIGGER artist_counts_visible_update AFTER UPDATE ON artist_counts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_counts_visible_trigger();
CREATE TRIGGER artist_counts_visible_delete AFTER DELETE ON artist_counts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_counts_visible_trigger();

-- member_contribution_counts (kept by 0003): a public member crossing zero moves live_contributors.
-- A member with contributions cannot be deleted (contributions.member_id has no cascade), so a
-- deleted member's row had live = 0.
CREATE FUNCTION member_counts_visible_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta bigint := 0;
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    delta := delta + (SELECT count(*) FROM new_rows n JOIN members m ON m.id = n.member_id
                      WHERE n.live > 0 AND m.username IS NOT NULL AND NOT m.is_banned);
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    delta := delta - (SELECT count(*) FROM old_rows o JOIN members m ON m.id = o.member_id
                      WHERE o.live > 0 AND m.username IS NOT NULL AND NOT m.is_banned);
  END IF;
  IF delta <> 0 THEN
    UPDATE catalogue_counts SET live_contributors = live_contributors + delta;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER member_counts_visible_insert AFTER INSERT ON member_contribution_counts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_counts_visible_trigger();
CREATE TRIGGER member_counts_visible_update AFTER UPDATE ON member_contribution_counts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_counts_visible_trigger();
CREATE TRIGGER member_counts_visible_delete AFTER DELETE ON member_contribution_counts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION member_counts_visible_trigger();

-- members: gaining or losing a public profile (handle, ban) moves live_contributors.
CREATE FUNCTION members_visible_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta bigint;
BEGIN
  delta := (SELECT count(*) FROM new_rows n JOIN member_contribution_counts mc ON mc.member_id = n.id
            WHERE mc.live > 0 AND n.username IS NOT NULL AND NOT n.is_banned)
         - (SELECT count(*) FROM old_rows o JOIN member_contribution_counts mc ON mc.member_id = o.id
            WHERE mc.live > 0 AND o.username IS NOT NULL AND NOT o.is_banned);
  IF delta <> 0 THEN
    UPDATE catalogue_counts SET live_contributors = live_contributors + delta;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER members_visible_update AFTER UPDATE ON members
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION members_visible_trigger();

-- Adds per-artist changes of live credits (artist_counts.live_credits, catalogue live_credits).
CREATE FUNCTION add_live_credits(artist_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO artist_counts AS t (artist_id, live_credits)
  SELECT x.artist_id, sum(x.delta) FROM unnest(artist_ids, deltas) AS x(artist_id, delta)
  GROUP BY x.artist_id HAVING sum(x.delta) <> 0
  ON CONFLICT (artist_id) DO UPDATE SET live_credits = t.live_credits + excluded.live_credits;
  UPDATE catalogue_counts SET live_credits = live_credits + d.total
  FROM (SELECT sum(x) AS total FROM unnest(deltas) x) d WHERE d.total <> 0;
$$;

-- Adds per-artist changes of live album credits (artist_counts.live_album_credits).
CREATE FUNCTION add_live_album_credits(artist_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO artist_counts AS t (artist_id, live_album_credits)
  SELECT x.artist_id, sum(x.delta) FROM unnest(artist_ids, deltas) AS x(artist_id, delta)
  GROUP BY x.artist_id HAVING sum(x.delta) <> 0
  ON CONFLICT (artist_id) DO UPDATE SET live_album_credits = t.live_album_credits + excluded.live_album_credits;
$$;

-- credits: +1 / -1 per row on a live song.
CREATE FUNCTION credits_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  artist_ids integer[];
  deltas bigint[];
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    SELECT array_agg(c.artist_id), array_agg(-1::bigint) INTO artist_ids, deltas
    FROM old_rows c JOIN songs s ON s.id = c.song_id WHERE s.deleted_at IS NULL AND s.published_at IS NOT NULL;
    IF artist_ids IS NOT NULL THEN PERFORM add_live_credits(artist_ids, deltas); END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT array_agg(c.artist_id), array_agg(1::bigint) INTO artist_ids, deltas
    FROM new_rows c JOIN songs s ON s.id = c.song_id WHERE s.deleted_at IS NULL AND s.published_at IS NOT NULL;
    IF artist_ids IS NOT NULL THEN PERFORM add_live_credits(artist_ids, deltas); END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER credits_count_insert AFTER INSERT ON credits
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_count_trigger();
CREATE TRIGGER credits_count_update AFTER UPDATE ON credits
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_count_trigger();
CREATE TRIGGER credits_count_delete AFTER DELETE ON credits
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_count_trigger();

-- album_artists: +1 / -1 per row on a live album.
CREATE FUNCTION album_artists_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  artist_ids integer[];
  deltas bigint[];
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    SELECT array_agg(x.artist_id), array_agg(-1::bigint) INTO artist_ids, deltas
    FROM old_rows x JOIN albums al ON al.id = x.album_id WHERE al.published_at IS NOT NULL;
    IF artist_ids IS NOT NULL THEN PERFORM add_live_album_credits(artist_ids, deltas); END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT array_agg(x.artist_id), array_agg(1::bigint) INTO artist_ids, deltas
    FROM new_rows x JOIN albums al ON al.id = x.album_id WHERE al.published_at IS NOT NULL;
    IF artist_ids IS NOT NULL THEN PERFORM add_live_album_credits(artist_ids, deltas); END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER album_artists_count_insert AFTER INSERT ON album_artists
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION album_artists_count_trigger();
CREATE TRIGGER album_artists_count_update AFTER UPDATE ON album_artists
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION album_artists_count_trigger();
CREATE TRIGGER album_artists_count_delete AFTER DELETE ON album_artists
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION album_artists_count_trigger();

-- songs: live songs, per release date and catalogue-wide; a song becoming live or not also moves
-- its credits. Inserted songs have no links yet; deleted songs lost theirs first (foreign keys).
CREATE FUNCTION songs_catalogue_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[];
  dates date[];
  deltas bigint[];
  artist_ids integer[];
  credit_deltas bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.id), array_agg(n.released_at), array_agg(1::bigint)
    INTO song_ids, dates, deltas
    FROM new_rows n WHERE n.deleted_at IS NULL AND n.published_at IS NOT NULL;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.id), array_agg(o.released_at), array_agg(-1::bigint)
    INTO song_ids, dates, deltas
    FROM old_rows o WHERE o.deleted_at IS NULL AND o.published_at IS NOT NULL;
  ELSE
    SELECT array_agg(x.id), array_agg(x.released_at), array_agg(x.delta) INTO song_ids, dates, deltas
    FROM (
      SELECT o.id, o.released_at, -1::bigint AS delta
      FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE o.deleted_at IS NULL AND o.published_at IS NOT NULL
        AND NOT (n.deleted_at IS NULL AND n.published_at IS NOT NULL AND n.released_at = o.released_at)
      UNION ALL
      SELECT n.id, n.released_at, 1
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE n.deleted_at IS NULL AND n.published_at IS NOT NULL
        AND NOT (o.deleted_at IS NULL AND o.published_at IS NOT NULL AND o.released_at = n.released_at)
    ) x;
  END IF;
  IF song_ids IS NULL THEN
    RETURN NULL;
  END IF;

  UPDATE catalogue_counts SET live_songs = live_songs + d.total
  FROM (SELECT sum(x) AS total FROM unnest(deltas) x) d WHERE d.total <> 0;
  INSERT INTO song_date_counts AS t (released_at, live_songs)
  SELECT x.released_at, sum(x.delta) FROM unnest(dates, deltas) AS x(released_at, delta)
  GROUP BY x.released_at HAVING sum(x.delta) <> 0
  ON CONFLICT (released_at) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;

  IF TG_OP = 'UPDATE' THEN
    SELECT array_agg(c.artist_id), array_agg(ch.delta) INTO artist_ids, credit_deltas
    FROM (SELECT x.id, sum(x.delta) AS delta FROM unnest(song_ids, deltas) AS x(id, delta)
          GROUP BY x.id HAVING sum(x.delta) <> 0) ch
    JOIN credits c ON c.song_id = ch.id;
    IF artist_ids IS NOT NULL THEN PERFORM add_live_credits(artist_ids, credit_deltas); END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER songs_catalogue_count_insert AFTER INSERT ON songs
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_catalogue_count_trigger();
CREATE TRIGGER songs_catalogue_count_update AFTER UPDATE ON songs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_catalogue_count_trigger();
CREATE TRIGGER songs_catalogue_count_delete AFTER DELETE ON songs
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_catalogue_count_trigger();

-- albums: live albums per type; an album becoming live or not also moves its album credits.
CREATE FUNCTION albums_catalogue_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  album_ids integer[];
  album_types text[];
  deltas bigint[];
  artist_ids integer[];
  credit_deltas bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.id), array_agg(n.album_type), array_agg(1::bigint) INTO album_ids, album_types, deltas
    FROM new_rows n WHERE n.published_at IS NOT NULL;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.id), array_agg(o.album_type), array_agg(-1::bigint) INTO album_ids, album_types, deltas
    FROM old_rows o WHERE o.published_at IS NOT NULL;
  ELSE
    SELECT array_agg(x.id), array_agg(x.album_type), array_agg(x.delta) INTO album_ids, album_types, deltas
    FROM (
      SELECT o.id, o.album_type, -1::bigint AS delta FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE o.published_at IS NOT NULL AND NOT (n.published_at IS NOT NULL AND n.album_type = o.album_type)
      UNION ALL
      SELECT n.id, n.album_type, 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE n.published_at IS NOT NULL AND NOT (o.published_at IS NOT NULL AND o.album_type = n.album_type)
    ) x;
  END IF;
  IF album_ids IS NULL THEN
    RETURN NULL;
  END IF;

  INSERT INTO album_type_counts AS t (album_type, live_albums)
  SELECT x.album_type, sum(x.delta) FROM unnest(album_types, deltas) AS x(album_type, delta)
  GROUP BY x.album_type HAVING sum(x.delta) <> 0
  ON CONFLICT (album_type) DO UPDATE SET live_albums = t.live_albums + excluded.live_albums;

  IF TG_OP = 'UPDATE' THEN
    SELECT array_agg(aa.artist_id), array_agg(ch.delta) INTO artist_ids, credit_deltas
    FROM (SELECT x.id, sum(x.delta) AS delta FROM unnest(album_ids, deltas) AS x(id, delta)
          GROUP BY x.id HAVING sum(x.delta) <> 0) ch
    JOIN album_artists aa ON aa.album_id = ch.id;
    IF artist_ids IS NOT NULL THEN PERFORM add_live_album_credits(artist_ids, credit_deltas); END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER albums_catalogue_count_insert AFTER INSERT ON albums
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_catalogue_count_trigger();
CREATE TRIGGER albums_catalogue_count_update AFTER UPDATE ON albums
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_catalogue_count_trigger();
CREATE TRIGGER albums_catalogue_count_delete AFTER DELETE ON albums
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_catalogue_count_trigger();

-- songs and their links: keep scheduled_song_links for the songs scheduled before or after.
CREATE FUNCTION scheduled_song_links_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[];
BEGIN
  IF TG_TABLE_NAME = 'songs' THEN
    IF TG_OP = 'INSERT' THEN
      song_ids := ARRAY(SELECT n.id FROM new_rows n WHERE n.published_at > now());
    ELSIF TG_OP = 'DELETE' THEN
      song_ids := ARRAY(SELECT o.id FROM old_rows o WHERE o.published_at > now());
    ELSE
      song_ids := ARRAY(SELECT n.id FROM new_rows n WHERE n.published_at > now()
                        UNION SELECT o.id FROM old_rows o WHERE o.published_at > now());
    END IF;
  ELSE
    IF TG_OP = 'INSERT' THEN
      song_ids := ARRAY(SELECT DISTINCT n.song_id FROM new_rows n);
    ELSIF TG_OP = 'DELETE' THEN
      song_ids := ARRAY(SELECT DISTINCT o.song_id FROM old_rows o);
    ELSE
      song_ids := ARRAY(SELECT n.song_id FROM new_rows n UNION SELECT o.song_id FROM old_rows o);
    END IF;
    song_ids := ARRAY(SELECT s.id FROM songs s WHERE s.id = ANY (song_ids) AND s.published_at > now());
  END IF;
  IF cardinality(song_ids) > 0 THEN
    PERFORM refresh_scheduled_song_links(song_ids);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER songs_scheduled_count_insert AFTER INSERT ON songs
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE TRIGGER songs_scheduled_count_update AFTER UPDATE ON songs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE TRIGGER songs_scheduled_count_delete AFTER DELETE ON songs
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE TRIGGER credits_scheduled_count_insert AFTER INSERT ON credits
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE TRIGGER credits_scheduled_count_update AFTER UPDATE ON credits
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE TRIGGER credits_scheduled_count_delete AFTER DELETE ON credits
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE TRIGGER contributions_scheduled_count_insert AFTER INSERT ON contributions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE TRIGGER contributions_scheduled_count_update AFTER UPDATE ON contributions
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE TRIGGER contributions_scheduled_count_delete AFTER DELETE ON contributions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE TRIGGER song_genres_scheduled_count_insert AFTER INSERT ON song_genres
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE TRIGGER song_genres_scheduled_count_update AFTER UPDATE ON song_genres
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE TRIGGER song_genres_scheduled_count_delete AFTER DELETE ON song_genres
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE TRIGGER song_labels_scheduled_count_insert AFTER INSERT ON song_labels
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE TRIGGER song_labels_scheduled_count_update AFTER UPDATE ON song_labels
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE TRIGGER song_labels_scheduled_count_delete AFTER DELETE ON song_labels
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE TRIGGER song_genres_catalogue_count_truncate AFTER TRUNCATE ON song_genres
  FOR EACH STATEMENT EXECUTE FUNCTION recount_catalogue_counts_trigger();
CREATE TRIGGER song_labels_catalogue_count_truncate AFTER TRUNCATE ON song_labels
  FOR EACH STATEMENT EXECUTE FUNCTION recount_catalogue_counts_trigger();

CREATE TRIGGER songs_catalogue_count_truncate AFTER TRUNCATE ON songs
  FOR EACH STATEMENT EXECUTE FUNCTION recount_catalogue_counts_trigger();
CREATE TRIGGER albums_catalogue_count_truncate AFTER TRUNCATE ON albums
  FOR EACH STATEMENT EXECUTE FUNCTION recount_catalogue_counts_trigger();
CREATE TRIGGER credits_count_truncate AFTER TRUNCATE ON credits
  FOR EACH STATEMENT EXECUTE FUNCTION recount_catalogue_counts_trigger();
CREATE TRIGGER album_artists_count_truncate AFTER TRUNCATE ON album_artists
  FOR EACH STATEMENT EXECUTE FUNCTION recount_catalogue_counts_trigger();
CREATE TRIGGER contributions_catalogue_count_truncate AFTER TRUNCATE ON contributions
  FOR EACH STATEMENT EXECUTE FUNCTION recount_catalogue_counts_trigger();

SELECT recount_catalogue_counts();

-- Public counts: the live counts minus what is still scheduled for a future published_at
-- (scheduled rows probed one at a time, as in sql/0003).
CREATE VIEW scheduled_albums AS
  SELECT al.id, al.album_type FROM albums al WHERE al.published_at IS NOT NULL AND al.published_at > now();

-- Public members whose every live contribution is still scheduled.
CREATE VIEW scheduled_only_contributors AS
  SELECT sch.member_id
  FROM (
    SELECT x.member_id, count(*) AS n FROM scheduled_song_links_now s CROSS JOIN LATERAL unnest(s.member_ids) AS x(member_id)
    GROUP BY x.member_id
  ) sch
  CROSS JOIN LATERAL (
    SELECT 1 FROM member_contribution_counts mc JOIN members m ON m.id = mc.member_id
    WHERE mc.member_id = sch.member_id AND mc.live > 0 AND mc.live <= sch.n
      AND m.username IS NOT NULL AND NOT m.is_banned
    OFFSET 0) hidden;

-- Spec 2.13's counts over public rows. A reader of one column does not pay for the others
-- (unused columns of a view are not computed). An artist is hidden when all its live credits
-- and live album credits are still scheduled.
CREATE VIEW public_catalogue_counts AS
  WITH scheduled_credits AS MATERIALIZED (
    SELECT x.artist_id, sum(x.credits) AS credits, sum(x.album_credits) AS album_credits
    FROM (
      SELECT c.artist_id, 1 AS credits, 0 AS album_credits
      FROM scheduled_song_links_now s CROSS JOIN LATERAL unnest(s.artist_ids) AS c(artist_id)
      UNION ALL
      SELECT aa.artist_id, 0, 1
      FROM scheduled_albums al CROSS JOIN LATERAL (SELECT aa.artist_id FROM album_artists aa WHERE aa.album_id = al.id OFFSET 0) aa
    ) x
    GROUP BY x.artist_id)
  SELECT
    cc.live_songs - (SELECT count(*) FROM scheduled_song_links_now) AS songs,
    cc.live_credits - (SELECT coalesce(sum(credits), 0) FROM scheduled_credits) AS credits,
    cc.live_artists - (
      SELECT count(*) FROM scheduled_credits sch
      CROSS JOIN LATERAL (
        SELECT 1 FROM artist_counts ac
        WHERE ac.artist_id = sch.artist_id AND (ac.live_credits > 0 OR ac.live_album_credits > 0)
          AND ac.live_credits <= sch.credits AND ac.live_album_credits <= sch.album_credits
        OFFSET 0) hidden) AS artists,
    cc.live_contributors - (SELECT count(*) FROM scheduled_only_contributors) AS contributors
  FROM catalogue_counts cc;

-- Public songs released in [from, until): kept per-date counts minus the scheduled ones.
CREATE FUNCTION public_songs_released_between(from_date date, until_date date) RETURNS bigint
LANGUAGE sql STABLE AS $$
  SELECT (SELECT coalesce(sum(live_songs), 0) FROM song_date_counts
          WHERE released_at >= from_date AND released_at < until_date)
       - (SELECT count(*) FROM scheduled_song_links_now WHERE released_at >= from_date AND released_at < until_date)
$$;

-- Public songs of one genre: its kept count minus its scheduled songs.
CREATE FUNCTION public_genre_song_count(genre integer) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT (SELECT live_songs FROM genre_counts WHERE genre_id = genre)
       - (SELECT count(*) FROM scheduled_song_links_now WHERE genre = ANY (genre_ids))
$$;

-- sql/0003's public counts again (same columns), subtracting the scheduled songs read from
-- scheduled_song_links instead of probing the link tables once per scheduled song.
CREATE OR REPLACE VIEW public_member_contribution_counts AS
  SELECT mc.member_id, mc.live - coalesce(sch.n, 0) AS contribution_count
  FROM member_contribution_counts mc
  LEFT JOIN (
    SELECT x.member_id, count(*) AS n
    FROM scheduled_song_links_now s CROSS JOIN LATERAL unnest(s.member_ids) AS x(member_id)
    GROUP BY x.member_id
  ) sch ON sch.member_id = mc.member_id;

CREATE OR REPLACE VIEW public_label_counts AS
  SELECT lc.label_id,
    lc.live_songs - coalesce(ss.n, 0) AS song_count,
    lc.live_albums - coalesce(sa.n, 0) AS album_count
  FROM label_counts lc
  LEFT JOIN (
    SELECT x.label_id, count(*) AS n
    FROM scheduled_song_links_now s CROSS JOIN LATERAL unnest(s.label_ids) AS x(label_id)
    GROUP BY x.label_id
  ) ss ON ss.label_id = lc.label_id
  LEFT JOIN (
    SELECT a.label_id, count(*) AS n FROM albums a
    WHERE a.published_at IS NOT NULL AND a.published_at > now() AND a.label_id IS NOT NULL
    GROUP BY a.label_id
  ) sa ON sa.label_id = lc.label_id;

CREATE OR REPLACE VIEW public_genre_counts AS
  SELECT gc.genre_id, gc.live_songs - coalesce(sch.n, 0) AS song_count
  FROM genre_counts gc
  LEFT JOIN (
    SELECT x.genre_id, count(*) AS n
    FROM scheduled_song_links_now s CROSS JOIN LATERAL unnest(s.genre_ids) AS x(genre_id)
    GROUP BY x.genre_id
  ) sch ON sch.genre_id = gc.genre_id;

CREATE VIEW public_album_type_counts AS
  SELECT tc.album_type, tc.live_albums - coalesce(sch.n, 0) AS album_count
  FROM album_type_counts tc
  LEFT JOIN (SELECT album_type, count(*) AS n FROM scheduled_albums GROUP BY album_type) sch
    ON sch.album_type = tc.album_type;

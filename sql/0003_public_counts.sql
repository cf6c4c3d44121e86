-- Counts of public rows for the users, labels and genres lists (spec 2.8, 2.10, 2.11; D11),
-- kept by triggers so that sorting members or labels by a count reads a few thousand small rows
-- instead of joining every contribution or song on each request (measured on the 100k-song demo:
-- 166 ms to count contributions per member, 87 ms songs per label, 2 s songs per genre).
--
-- A trigger cannot notice the clock passing a song's published_at, so the stored counts cover
-- every *live* row (song: published_at set and not deleted; album: published_at set), scheduled
-- ones included; the public_*_counts views subtract the rows still scheduled for the future,
-- which are few and found through songs_scheduled_idx / albums_scheduled_idx.

CREATE TABLE member_contribution_counts (
  member_id  integer PRIMARY KEY REFERENCES members (id) ON DELETE CASCADE,
  live       integer NOT NULL DEFAULT 0
);
CREATE TABLE label_counts (
  label_id     integer PRIMARY KEY REFERENCES labels (id) ON DELETE CASCADE,
  live_songs   integer NOT NULL DEFAULT 0,
  live_albums  integer NOT NULL DEFAULT 0
);
CREATE TABLE genre_counts (
  genre_id    integer PRIMARY KEY REFERENCES genres (id) ON DELETE CASCADE,
  live_songs  integer NOT NULL DEFAULT 0
);

-- Index-only: the scheduled songs (published_at > now()) are a short range at the end.
CREATE INDEX songs_scheduled_idx ON songs (published_at, id) WHERE deleted_at IS NULL AND published_at IS NOT NULL;
CREATE INDEX albums_scheduled_idx ON albums (published_at, label_id) WHERE published_at IS NOT NULL;

-- Recounts everything from scratch: the initial fill, and after a TRUNCATE of any source table.
CREATE FUNCTION recount_public_counts() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM member_contribution_counts;
  INSERT INTO member_contribution_counts (member_id, live)
  SELECT c.member_id, count(*) FROM contributions c JOIN songs s ON s.id = c.song_id
  WHERE s.deleted_at IS NULL AND s.published_at IS NOT NULL GROUP BY c.member_id;

  DELETE FROM label_counts;
  INSERT INTO label_counts (label_id, live_songs, live_albums)
  SELECT l.id,
    (SELECT count(*) FROM song_labels sl JOIN songs s ON s.id = sl.song_id
     WHERE sl.label_id = l.id AND s.deleted_at IS NULL AND s.published_at IS NOT NULL),
    (SELECT count(*) FROM albums a WHERE a.label_id = l.id AND a.published_at IS NOT NULL)
  FROM labels l;

  DELETE FROM genre_counts;
  INSERT INTO genre_counts (genre_id, live_songs)
  SELECT sg.genre_id, count(*) FROM song_genres sg JOIN songs s ON s.id = sg.song_id
  WHERE s.deleted_at IS NULL AND s.published_at IS NOT NULL GROUP BY sg.genre_id;
END $$;

CREATE FUNCTION recount_public_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recount_public_counts();
  RETURN NULL;
END $$;

-- contributions: +1 / -1 per row on a live song.
CREATE FUNCTION contributions_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO member_contribution_counts AS t (member_id, live)
    SELECT c.member_id, -count(*) FROM old_rows c JOIN songs s ON s.id = c.song_id
    WHERE s.deleted_at IS NULL AND s.published_at IS NOT NULL GROUP BY c.member_id
    ON CONFLICT (member_id) DO UPDATE SET live = t.live + excluded.live;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO member_contribution_counts AS t (member_id, live)
    SELECT c.member_id, count(*) FROM new_rows c JOIN songs s ON s.id = c.song_id
    WHERE s.deleted_at IS NULL AND s.published_at IS NOT NULL GROUP BY c.member_id
    ON CONFLICT (member_id) DO UPDATE SET live = t.live + excluded.live;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER contributions_count_insert AFTER INSERT ON contributions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contributions_count_trigger();
CREATE TRIGGER contributions_count_update AFTER UPDATE ON contributions
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contributions_count_trigger();
CREATE TRIGGER contributions_count_delete AFTER DELETE ON contributions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION contributions_count_trigger();

-- song_labels: songs per label.
CREATE FUNCTION song_labels_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO label_counts AS t (label_id, live_songs)
    SELECT x.label_id, -count(*) FROM old_rows x JOIN songs s ON s.id = x.song_id
    WHERE s.deleted_at IS NULL AND s.published_at IS NOT NULL GROUP BY x.label_id
    ON CONFLICT (label_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO label_counts AS t (label_id, live_songs)
    SELECT x.label_id, count(*) FROM new_rows x JOIN songs s ON s.id = x.song_id
    WHERE s.deleted_at IS NULL AND s.published_at IS NOT NULL GROUP BY x.label_id
    ON CONFLICT (label_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER song_labels_count_insert AFTER INSERT ON song_labels
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_count_trigger();
CREATE TRIGGER song_labels_count_update AFTER UPDATE ON song_labels
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_count_trigger();
CREATE TRIGGER song_labels_count_delete AFTER DELETE ON song_labels
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_count_trigger();

-- song_genres: songs per genre.
CREATE FUNCTION song_genres_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO genre_counts AS t (genre_id, live_songs)
    SELECT x.genre_id, -count(*) FROM old_rows x JOIN songs s ON s.id = x.song_id
    WHERE s.deleted_at IS NULL AND s.published_at IS NOT NULL GROUP BY x.genre_id
    ON CONFLICT (genre_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO genre_counts AS t (genre_id, live_songs)
    SELECT x.genre_id, count(*) FROM new_rows x JOIN songs s ON s.id = x.song_id
    WHERE s.deleted_at IS NULL AND s.published_at IS NOT NULL GROUP BY x.genre_id
    ON CONFLICT (genre_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER song_genres_count_insert AFTER INSERT ON song_genres
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_count_trigger();
CREATE TRIGGER song_genres_count_update AFTER UPDATE ON song_genres
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_count_trigger();
CREATE TRIGGER song_genres_count_delete AFTER DELETE ON song_genres
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_count_trigger();

-- albums: albums per label, by their own published_at.
CREATE FUNCTION albums_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO label_counts AS t (label_id, live_albums)
    SELECT a.label_id, -count(*) FROM old_rows a
    WHERE a.label_id IS NOT NULL AND a.published_at IS NOT NULL GROUP BY a.label_id
    ON CONFLICT (label_id) DO UPDATE SET live_albums = t.live_albums + excluded.live_albums;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO label_counts AS t (label_id, live_albums)
    SELECT a.label_id, count(*) FROM new_rows a
    WHERE a.label_id IS NOT NULL AND a.published_at IS NOT NULL GROUP BY a.label_id
    ON CONFLICT (label_id) DO UPDATE SET live_albums = t.live_albums + excluded.live_albums;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER albums_count_insert AFTER INSERT ON albums
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_count_trigger();
CREATE TRIGGER albums_count_update AFTER UPDATE ON albums
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_count_trigger();
CREATE TRIGGER albums_count_delete AFTER DELETE ON albums
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_count_trigger();

-- songs: a song becoming live (published) or not (deleted, unpublished) moves every count it is in.
-- Inserted songs have no links yet; deleted songs lost theirs first (foreign keys).
CREATE FUNCTION songs_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (
    SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE (n.deleted_at IS NULL AND n.published_at IS NOT NULL) <> (o.deleted_at IS NULL AND o.published_at IS NOT NULL)
  ) THEN
    RETURN NULL;
  END IF;

  WITH changed AS (
    SELECT n.id AS song_id,
      (CASE WHEN n.deleted_at IS NULL AND n.published_at IS NOT NULL THEN 1 ELSE 0 END) -
      (CASE WHEN o.deleted_at IS NULL AND o.published_at IS NOT NULL THEN 1 ELSE 0 END) AS delta
    FROM new_rows n JOIN old_rows o ON o.id = n.id
  )
  INSERT INTO member_contribution_counts AS t (member_id, live)
  SELECT c.member_id, sum(ch.delta) FROM changed ch JOIN contributions c ON c.song_id = ch.song_id
  WHERE ch.delta <> 0 GROUP BY c.member_id
  ON CONFLICT (member_id) DO UPDATE SET live = t.live + excluded.live;

  WITH changed AS (
    SELECT n.id AS song_id,
      (CASE WHEN n.deleted_at IS NULL AND n.published_at IS NOT NULL THEN 1 ELSE 0 END) -
      (CASE WHEN o.deleted_at IS NULL AND o.published_at IS NOT NULL THEN 1 ELSE 0 END) AS delta
    FROM new_rows n JOIN old_rows o ON o.id = n.id
  )
  INSERT INTO label_counts AS t (label_id, live_songs)
  SELECT x.label_id, sum(ch.delta) FROM changed ch JOIN song_labels x ON x.song_id = ch.song_id
  WHERE ch.delta <> 0 GROUP BY x.label_id
  ON CONFLICT (label_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;

  WITH changed AS (
    SELECT n.id AS song_id,
      (CASE WHEN n.deleted_at IS NULL AND n.published_at IS NOT NULL THEN 1 ELSE 0 END) -
      (CASE WHEN o.deleted_at IS NULL AND o.published_at IS NOT NULL THEN 1 ELSE 0 END) AS delta
    FROM new_rows n JOIN old_rows o ON o.id = n.id
  )
  INSERT INTO genre_counts AS t (genre_id, live_songs)
  SELECT x.genre_id, sum(ch.delta) FROM changed ch JOIN song_genres x ON x.song_id = ch.song_id
  WHERE ch.delta <> 0 GROUP BY x.genre_id
  ON CONFLICT (genre_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
  RETURN NULL;
END $$;

CREATE TRIGGER songs_count_update AFTER UPDATE ON songs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_count_trigger();

CREATE TRIGGER contributions_count_truncate AFTER TRUNCATE ON contributions
  FOR EACH STATEMENT EXECUTE FUNCTION recount_public_counts_trigger();
CREATE TRIGGER song_labels_count_truncate AFTER TRUNCATE ON song_labels
  FOR EACH STATEMENT EXECUTE FUNCTION recount_public_counts_trigger();
CREATE TRIGGER song_genres_count_truncate AFTER TRUNCATE ON song_genres
  FOR EACH STATEMENT EXECUTE FUNCTION recount_public_counts_trigger();
CREATE TRIGGER albums_count_truncate AFTER TRUNCATE ON albums
  FOR EACH STATEMENT EXECUTE FUNCTION recount_public_counts_trigger();

SELECT recount_public_counts();

-- Public counts: the live counts minus what is still scheduled for a future published_at.
-- The scheduled songs' links are probed one song at a time (LATERAL ... OFFSET 0 keeps the
-- planner from hashing the whole link table): ~1k scheduled songs of 100k cost ~4 ms, not ~50.
CREATE VIEW scheduled_songs AS
  SELECT s.id FROM songs s WHERE s.deleted_at IS NULL AND s.published_at IS NOT NULL AND s.published_at > now();

CREATE VIEW public_member_contribution_counts AS
  SELECT mc.member_id, mc.live - coalesce(sch.n, 0) AS contribution_count
  FROM member_contribution_counts mc
  LEFT JOIN (
    SELECT c.member_id, count(*) AS n
    FROM scheduled_songs s CROSS JOIN LATERAL (SELECT c.member_id FROM contributions c WHERE c.song_id = s.id OFFSET 0) c
    GROUP BY c.member_id
  ) sch ON sch.member_id = mc.member_id;

CREATE VIEW public_label_counts AS
  SELECT lc.label_id,
    lc.live_songs - coalesce(ss.n, 0) AS song_count,
    lc.live_albums - coalesce(sa.n, 0) AS album_count
  FROM label_counts lc
  LEFT JOIN (
    SELECT x.label_id, count(*) AS n
    FROM scheduled_songs s CROSS JOIN LATERAL (SELECT x.label_id FROM song_labels x WHERE x.song_id = s.id OFFSET 0) x
    GROUP BY x.label_id
  ) ss ON ss.label_id = lc.label_id
  LEFT JOIN (
    SELECT a.label_id, count(*) AS n FROM albums a
    WHERE a.published_at IS NOT NULL AND a.published_at > now() AND a.label_id IS NOT NULL
    GROUP BY a.label_id
  ) sa ON sa.label_id = lc.label_id;

CREATE VIEW public_genre_counts AS
  SELECT gc.genre_id, gc.live_songs - coalesce(sch.n, 0) AS song_count
  FROM genre_counts gc
  LEFT JOIN (
    SELECT x.genre_id, count(*) AS n
    FROM scheduled_songs s CROSS JOIN LATERAL (SELECT x.genre_id FROM song_genres x WHERE x.song_id = s.id OFFSET 0) x
    GROUP BY x.genre_id
  ) sch ON sch.genre_id = gc.genre_id;

-- Spec 2.9 `details`: exactly the spec's fields, whatever the stored jsonb holds. Absent or
-- mistyped values get defaults: [] for the arrays, false for the flags, "" for texts (D14).
CREATE FUNCTION contribution_details_json(details jsonb) RETURNS json
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT json_build_object(
    'added_credits', (
      SELECT coalesce(json_agg(json_build_object(
        'artist_name', coalesce(e->>'artist_name', ''), 'role_name', coalesce(e->>'role_name', '')) ORDER BY n), '[]'::json)
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(details->'added_credits') = 'array'
                                     THEN details->'added_credits' ELSE '[]'::jsonb END) WITH ORDINALITY AS x(e, n)
      WHERE jsonb_typeof(e) = 'object'),
    'removed_credits', (
      SELECT coalesce(json_agg(json_build_object(
        'artist_name', coalesce(e->>'artist_name', ''), 'role_name', coalesce(e->>'role_name', '')) ORDER BY n), '[]'::json)
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(details->'removed_credits') = 'array'
                                     THEN details->'removed_credits' ELSE '[]'::jsonb END) WITH ORDINALITY AS x(e, n)
      WHERE jsonb_typeof(e) = 'object'),
    'changed_genres', coalesce(details->'changed_genres' = 'true'::jsonb, false),
    'changed_labels', coalesce(details->'changed_labels' = 'true'::jsonb, false),
    'changed_lyrics', coalesce(details->'changed_lyrics' = 'true'::jsonb, false),
    'changed_notes', coalesce(details->'changed_notes' = 'true'::jsonb, false),
    'changed_title', coalesce(details->'changed_title' = 'true'::jsonb, false),
    'changed_release_date', coalesce(details->'changed_release_date' = 'true'::jsonb, false),
    'changed_artwork', coalesce(details->'changed_artwork' = 'true'::jsonb, false),
    'links', (
      SELECT coalesce(json_agg(json_build_object(
        'service', coalesce(e->>'service', ''), 'change', coalesce(e->>'change', '')) ORDER BY n), '[]'::json)
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(details->'links') = 'array'
                                     THEN details->'links' ELSE '[]'::jsonb END) WITH ORDINALITY AS x(e, n)
      WHERE jsonb_typeof(e) = 'object'))
$$;

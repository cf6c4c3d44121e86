-- Index-ordered lists of members, and settled counts of labels' and genres' songs.
--
-- /v1/users?sort=contributions (the default) probed every public member's kept count (~91k at
-- 1M songs) and sorted them; sort=joined and sort=name walked their index but sorted again, the
-- tie-breaker (the handle) not being in it. /v1/labels, /v1/genres and the label and genre song
-- totals subtracted every scheduled song's links on each read (~10k at 1M songs).
--
-- The first fills read every member and every link: not bounded by the service's statement timeout.
SET LOCAL statement_timeout = 0;

-- Members ---------------------------------------------------------------------------------------

-- Every public member (member_is_public) with its handle and sql/0009's settled contribution
-- count: "most contributions first, then handle" is one index range, cursors included. The due
-- contributions (sql/0009's due_member_contributions, usually none) are merged in by the reader.
CREATE TABLE member_contribution_ranks (
  member_id  integer PRIMARY KEY REFERENCES members (id) ON DELETE CASCADE,
  handle     text NOT NULL,
  settled    integer NOT NULL
);
CREATE INDEX member_contribution_ranks_idx ON member_contribution_ranks (settled, handle) INCLUDE (member_id);

CREATE FUNCTION recount_member_contribution_ranks() RETURNS void LANGUAGE sql AS $$
  DELETE FROM member_contribution_ranks;
  INSERT INTO member_contribution_ranks (member_id, handle, settled)
  SELECT m.id, lower(m.username), coalesce(mc.settled, 0)
  FROM members m LEFT JOIN member_settled_contributions mc ON mc.member_id = m.id
  WHERE member_is_public(m.username, m.is_banned);
$$;

CREATE FUNCTION recount_member_contribution_ranks_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recount_member_contribution_ranks();
  RETURN NULL;
END $$;

-- members: a row leaves with its old version and comes back if the new one is public (a new
-- handle, a ban, a lifted ban).
CREATE FUNCTION members_contribution_rank_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    DELETE FROM member_contribution_ranks r USING old_rows o WHERE r.member_id = o.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO member_contribution_ranks (member_id, handle, settled)
    SELECT n.id, lower(n.username),
      coalesce((SELECT mc.settled FROM member_settled_contributions mc WHERE mc.member_id = n.id), 0)
    FROM new_rows n WHERE member_is_public(n.username, n.is_banned);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER members_rank_count_insert AFTER INSERT ON members
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION members_contribution_rank_trigger();
CREATE TRIGGER members_rank_count_update AFTER UPDATE ON members
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION members_contribution_rank_trigger();
CREATE TRIGGER members_rank_count_delete AFTER DELETE ON members
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION members_contribution_rank_trigger();
CREATE TRIGGER members_rank_count_truncate AFTER TRUNCATE ON members
  FOR EACH STATEMENT EXECUTE FUNCTION recount_member_contribution_ranks_trigger();

-- member_settled_contributions (sql/0009's count, written by its own triggers and recount):
-- the changed members' ranks take the new count (0 once the row is gone).
CREATE FUNCTION member_settled_rank_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed integer[];
BEGIN
  IF TG_OP = 'DELETE' THEN
    changed := ARRAY(SELECT o.member_id FROM old_rows o);
  ELSE
    changed := ARRAY(SELECT n.member_id FROM new_rows n);
  END IF;
  UPDATE member_contribution_ranks r
  SET settled = x.settled
  FROM (SELECT u.member_id, coalesce(mc.settled, 0) AS settled
        FROM unnest(changed) AS u(member_id)
        LEFT JOIN member_settled_contributions mc ON mc.member_id = u.member_id) x
  WHERE r.member_id = x.member_id AND r.settled <> x.settled;
  RETURN NULL;
END $$;

CREATE TRIGGER member_settled_rank_count_insert AFTER INSERT ON member_settled_contributions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_settled_rank_trigger();
CREATE TRIGGER member_settled_rank_count_update AFTER UPDATE ON member_settled_contributions
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_settled_rank_trigger();
CREATE TRIGGER member_settled_rank_count_delete AFTER DELETE ON member_settled_contributions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION member_settled_rank_trigger();

SELECT recount_member_contribution_ranks();

-- The members with due contributions (usually none), at their public count, for the readers' merge.
CREATE VIEW due_member_ranks AS
  SELECT r.member_id, r.handle, (r.settled + d.contributions)::int AS contribution_count
  FROM due_member_contributions d JOIN member_contribution_ranks r ON r.member_id = d.member_id;

-- The public members by the handle as tie-breaker (cursors carry no internal id), so that
-- sort=joined and sort=name are one index range without a sort of every member.
CREATE INDEX members_public_joined_handle_idx ON members (joined_at, lower(username))
  WHERE member_is_public(username, is_banned);
CREATE INDEX members_public_name_handle_idx ON members (lower(name), lower(username))
  WHERE member_is_public(username, is_banned);

-- Labels and genres ------------------------------------------------------------------------------

-- Settled songs per label and genre, as sql/0008 keeps them per artist: live songs
-- (song_is_live) not listed in scheduled_song_links. Public = settled + due (listed, time passed).
CREATE TABLE label_song_counts (
  label_id       integer PRIMARY KEY REFERENCES labels (id) ON DELETE CASCADE,
  settled_songs  integer NOT NULL DEFAULT 0
);
CREATE TABLE genre_song_counts (
  genre_id       integer PRIMARY KEY REFERENCES genres (id) ON DELETE CASCADE,
  settled_songs  integer NOT NULL DEFAULT 0
);

CREATE FUNCTION recount_link_song_counts() RETURNS void LANGUAGE sql AS $$
  DELETE FROM label_song_counts;
  INSERT INTO label_song_counts (label_id, settled_songs)
  SELECT x.label_id, count(*) FROM song_labels x JOIN songs s ON s.id = x.song_id
  WHERE song_is_live(s.published_at, s.deleted_at)
    AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = x.song_id)
  GROUP BY x.label_id;
  DELETE FROM genre_song_counts;
  INSERT INTO genre_song_counts (genre_id, settled_songs)
  SELECT x.genre_id, count(*) FROM song_genres x JOIN songs s ON s.id = x.song_id
  WHERE song_is_live(s.published_at, s.deleted_at)
    AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = x.song_id)
  GROUP BY x.genre_id;
$$;

CREATE FUNCTION recount_link_song_counts_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recount_link_song_counts();
  RETURN NULL;
END $$;

CREATE FUNCTION add_label_settled_songs(label_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO label_song_counts AS t (label_id, settled_songs)
  SELECT x.label_id, sum(x.delta) FROM unnest(label_ids, deltas) AS x(label_id, delta)
  GROUP BY x.label_id HAVING sum(x.delta) <> 0
  ON CONFLICT (label_id) DO UPDATE SET settled_songs = t.settled_songs + excluded.settled_songs;
$$;

CREATE FUNCTION add_genre_settled_songs(genre_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO genre_song_counts AS t (genre_id, settled_songs)
  SELECT x.genre_id, sum(x.delta) FROM unnest(genre_ids, deltas) AS x(genre_id, delta)
  GROUP BY x.genre_id HAVING sum(x.delta) <> 0
  ON CONFLICT (genre_id) DO UPDATE SET settled_songs = t.settled_songs + excluded.settled_songs;
$$;

-- song_labels / song_genres: +1 / -1 per link of a settled song. Named to fire before sql/0006's
-- *_scheduled_count_* triggers (name order), seeing scheduled_song_links as it was.
CREATE FUNCTION song_labels_label_song_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[] := '{}';
  label_ids integer[] := '{}';
  ns bigint[] := '{}';
  changed integer[];
  deltas bigint[];
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT song_ids || array_agg(n.song_id), label_ids || array_agg(n.label_id), ns || array_agg(1::bigint)
    INTO song_ids, label_ids, ns FROM new_rows n;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    SELECT song_ids || array_agg(o.song_id), label_ids || array_agg(o.label_id), ns || array_agg(-1::bigint)
    INTO song_ids, label_ids, ns FROM old_rows o;
  END IF;
  SELECT array_agg(x.label_id), array_agg(x.n) INTO changed, deltas
  FROM unnest(song_ids, label_ids, ns) AS x(song_id, label_id, n)
  JOIN songs s ON s.id = x.song_id AND song_is_live(s.published_at, s.deleted_at)
  WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = x.song_id);
  IF changed IS NOT NULL THEN PERFORM add_label_settled_songs(changed, deltas); END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION song_genres_genre_song_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[] := '{}';
  genre_ids integer[] := '{}';
  ns bigint[] := '{}';
  changed integer[];
  deltas bigint[];
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT song_ids || array_agg(n.song_id), genre_ids || array_agg(n.genre_id), ns || array_agg(1::bigint)
    INTO song_ids, genre_ids, ns FROM new_rows n;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    SELECT song_ids || array_agg(o.song_id), genre_ids || array_agg(o.genre_id), ns || array_agg(-1::bigint)
    INTO song_ids, genre_ids, ns FROM old_rows o;
  END IF;
  SELECT array_agg(x.genre_id), array_agg(x.n) INTO changed, deltas
  FROM unnest(song_ids, genre_ids, ns) AS x(song_id, genre_id, n)
  JOIN songs s ON s.id = x.song_id AND song_is_live(s.published_at, s.deleted_at)
  WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = x.song_id);
  IF changed IS NOT NULL THEN PERFORM add_genre_settled_songs(changed, deltas); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER song_labels_label_song_count_insert AFTER INSERT ON song_labels
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_label_song_count_trigger();
CREATE TRIGGER song_labels_label_song_count_update AFTER UPDATE ON song_labels
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_label_song_count_trigger();
CREATE TRIGGER song_labels_label_song_count_delete AFTER DELETE ON song_labels
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_label_song_count_trigger();
CREATE TRIGGER song_labels_label_song_count_truncate AFTER TRUNCATE ON song_labels
  FOR EACH STATEMENT EXECUTE FUNCTION recount_link_song_counts_trigger();
CREATE TRIGGER song_genres_genre_song_count_insert AFTER INSERT ON song_genres
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_genre_song_count_trigger();
CREATE TRIGGER song_genres_genre_song_count_update AFTER UPDATE ON song_genres
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_genre_song_count_trigger();
CREATE TRIGGER song_genres_genre_song_count_delete AFTER DELETE ON song_genres
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_genre_song_count_trigger();
CREATE TRIGGER song_genres_genre_song_count_truncate AFTER TRUNCATE ON song_genres
  FOR EACH STATEMENT EXECUTE FUNCTION recount_link_song_counts_trigger();

-- songs: a settled song becoming live or not moves its labels and genres (fires before
-- songs_scheduled_count_update, as sql/0008's songs trigger).
CREATE FUNCTION songs_link_song_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  moved integer[];
  moved_deltas bigint[];
  changed integer[];
  deltas bigint[];
BEGIN
  SELECT array_agg(ch.id), array_agg(ch.delta) INTO moved, moved_deltas
  FROM (
    SELECT n.id,
      (CASE WHEN song_is_live(n.published_at, n.deleted_at) THEN 1 ELSE 0 END) -
      (CASE WHEN song_is_live(o.published_at, o.deleted_at) THEN 1 ELSE 0 END)::bigint AS delta
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = n.id)
  ) ch
  WHERE ch.delta <> 0;
  IF moved IS NULL THEN RETURN NULL; END IF;
  SELECT array_agg(x.label_id), array_agg(m.delta) INTO changed, deltas
  FROM unnest(moved, moved_deltas) AS m(song_id, delta) JOIN song_labels x ON x.song_id = m.song_id;
  IF changed IS NOT NULL THEN PERFORM add_label_settled_songs(changed, deltas); END IF;
  SELECT array_agg(x.genre_id), array_agg(m.delta) INTO changed, deltas
  FROM unnest(moved, moved_deltas) AS m(song_id, delta) JOIN song_genres x ON x.song_id = m.song_id;
  IF changed IS NOT NULL THEN PERFORM add_genre_settled_songs(changed, deltas); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER songs_link_song_count_update AFTER UPDATE ON songs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_link_song_count_trigger();
CREATE TRIGGER songs_link_song_count_truncate AFTER TRUNCATE ON songs
  FOR EACH STATEMENT EXECUTE FUNCTION recount_link_song_counts_trigger();

-- scheduled_song_links: a live song listed there stops being settled; one removed is settled again.
CREATE FUNCTION scheduled_song_links_link_song_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[] := '{}';
  ns bigint[] := '{}';
  moved integer[];
  moved_deltas bigint[];
  changed integer[];
  deltas bigint[];
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
  IF moved IS NULL THEN RETURN NULL; END IF;
  SELECT array_agg(x.label_id), array_agg(m.delta) INTO changed, deltas
  FROM unnest(moved, moved_deltas) AS m(song_id, delta) JOIN song_labels x ON x.song_id = m.song_id;
  IF changed IS NOT NULL THEN PERFORM add_label_settled_songs(changed, deltas); END IF;
  SELECT array_agg(x.genre_id), array_agg(m.delta) INTO changed, deltas
  FROM unnest(moved, moved_deltas) AS m(song_id, delta) JOIN song_genres x ON x.song_id = m.song_id;
  IF changed IS NOT NULL THEN PERFORM add_genre_settled_songs(changed, deltas); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER scheduled_song_links_link_song_count_insert AFTER INSERT ON scheduled_song_links
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_link_song_count_trigger();
CREATE TRIGGER scheduled_song_links_link_song_count_update AFTER UPDATE ON scheduled_song_links
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_link_song_count_trigger();
CREATE TRIGGER scheduled_song_links_link_song_count_delete AFTER DELETE ON scheduled_song_links
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_link_song_count_trigger();

SELECT recount_link_song_counts();

-- The due songs of each label and genre: listed as scheduled, published_at passed (usually none).
CREATE VIEW due_label_songs AS
  SELECT x.label_id, count(*) AS songs
  FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.label_ids) AS x(label_id)
  WHERE l.published_at <= now()
  GROUP BY x.label_id;
CREATE VIEW due_genre_songs AS
  SELECT x.genre_id, count(*) AS songs
  FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.genre_ids) AS x(genre_id)
  WHERE l.published_at <= now()
  GROUP BY x.genre_id;

-- The labelled albums that were scheduled (album_is_live, not album_is_public) when last
-- written, as scheduled_song_links lists songs: one small row each, so that the labels' public
-- album counts subtract a short read of this table instead of fetching every scheduled album from
-- the wide albums table (~3.7k albums, ~1.7k pages at 1M songs). Rows whose time has passed are
-- ignored by the readers and removed at the next write.
CREATE TABLE scheduled_label_albums (
  album_id      integer PRIMARY KEY,
  label_id      integer NOT NULL,
  published_at  timestamptz NOT NULL
);
CREATE INDEX scheduled_label_albums_label_idx ON scheduled_label_albums (label_id, published_at);

CREATE FUNCTION recount_scheduled_label_albums() RETURNS void LANGUAGE sql AS $$
  DELETE FROM scheduled_label_albums;
  INSERT INTO scheduled_label_albums (album_id, label_id, published_at)
  SELECT a.id, a.label_id, a.published_at FROM albums a
  WHERE a.label_id IS NOT NULL AND album_is_live(a.published_at) AND NOT album_is_public(a.published_at);
$$;

CREATE FUNCTION recount_scheduled_label_albums_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recount_scheduled_label_albums();
  RETURN NULL;
END $$;

CREATE FUNCTION albums_scheduled_label_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM scheduled_label_albums WHERE published_at <= now();
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    DELETE FROM scheduled_label_albums s USING old_rows o WHERE s.album_id = o.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO scheduled_label_albums (album_id, label_id, published_at)
    SELECT n.id, n.label_id, n.published_at FROM new_rows n
    WHERE n.label_id IS NOT NULL AND album_is_live(n.published_at) AND NOT album_is_public(n.published_at);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER albums_scheduled_label_count_insert AFTER INSERT ON albums
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_scheduled_label_trigger();
CREATE TRIGGER albums_scheduled_label_count_update AFTER UPDATE ON albums
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_scheduled_label_trigger();
CREATE TRIGGER albums_scheduled_label_count_delete AFTER DELETE ON albums
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_scheduled_label_trigger();
CREATE TRIGGER albums_scheduled_label_count_truncate AFTER TRUNCATE ON albums
  FOR EACH STATEMENT EXECUTE FUNCTION recount_scheduled_label_albums_trigger();

SELECT recount_scheduled_label_albums();

-- sql/0006's public_label_counts, public_genre_counts and public_genre_song_count again (same
-- columns, same numbers): settled + due songs instead of live minus every scheduled song's links;
-- live albums minus those still scheduled, read from scheduled_label_albums.
CREATE OR REPLACE VIEW public_label_counts AS
  SELECT lc.label_id,
    coalesce(k.settled_songs, 0) + coalesce(d.songs, 0) AS song_count,
    lc.live_albums - coalesce(sa.albums, 0) AS album_count
  FROM label_counts lc
  LEFT JOIN label_song_counts k ON k.label_id = lc.label_id
  LEFT JOIN due_label_songs d ON d.label_id = lc.label_id
  LEFT JOIN (SELECT s.label_id, count(*) AS albums FROM scheduled_label_albums s
             WHERE s.published_at > now() GROUP BY s.label_id) sa ON sa.label_id = lc.label_id;

CREATE OR REPLACE VIEW public_genre_counts AS
  SELECT gc.genre_id, coalesce(k.settled_songs, 0) + coalesce(d.songs, 0) AS song_count
  FROM genre_counts gc
  LEFT JOIN genre_song_counts k ON k.genre_id = gc.genre_id
  LEFT JOIN due_genre_songs d ON d.genre_id = gc.genre_id;

CREATE OR REPLACE FUNCTION public_genre_song_count(genre integer) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT settled_songs FROM genre_song_counts WHERE genre_id = genre), 0)
       + (SELECT count(*) FROM scheduled_song_links l WHERE l.published_at <= now() AND genre = ANY (l.genre_ids))
$$;

-- Public songs of one label: the kept total of its list, and what its list's walk is chosen by.
CREATE FUNCTION public_label_song_count(label integer) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT settled_songs FROM label_song_counts WHERE label_id = label), 0)
       + (SELECT count(*) FROM scheduled_song_links l WHERE l.published_at <= now() AND label = ANY (l.label_ids))
$$;

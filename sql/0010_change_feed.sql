-- The change feed of /v1/changes (docs/changes.md): which public rows changed, never their content.
--
-- Triggers note every row whose public JSON may have changed ("touches"). Whether a touch is served
-- as `upsert` or `remove` is decided when the feed is read, from the state the reader sees, so two
-- transactions that each leave a row half-changed cannot make the feed disagree with the catalogue.
-- A touch also records whether the row was public at some moment up to the write (`may_remove`):
-- a row that was never public is never reported removed.
--
-- Two streams share the table:
-- * immediate touches (due_at IS NULL), read in (xid, position) order and only for transactions
--   older than the reader's snapshot xmin, so a transaction that commits late is never skipped;
-- * due touches (due_at set): written when a song, album or list is scheduled (published_at in the
--   future), for it and the rows it makes visible or changes, read by due_at once it has passed.

-- The backfill at the end reads the whole catalogue (about a minute at 1M songs).
SET LOCAL statement_timeout = 0;

CREATE TABLE change_log (
  position    bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  xid         xid8 NOT NULL DEFAULT pg_current_xact_id(),
  kind        text NOT NULL CHECK (kind IN ('songs', 'albums', 'curated_lists', 'artists', 'genres', 'labels', 'users')),
  row_key     text NOT NULL,           -- the id, or the username of a member
  may_remove  boolean NOT NULL,        -- the row was public at some moment up to this write
  at          timestamptz NOT NULL DEFAULT clock_timestamp(),
  due_at      timestamptz              -- set: a scheduled row's time to appear
);
CREATE INDEX change_log_immediate_idx ON change_log (xid, position) WHERE due_at IS NULL;
CREATE INDEX change_log_due_idx ON change_log (due_at, xid, position) WHERE due_at IS NOT NULL;
CREATE INDEX curated_lists_scheduled_idx ON curated_lists (published_at) WHERE published_at IS NOT NULL;

-- When the feed began: a reader without a cursor starts from the backfill below and from this time.
CREATE TABLE change_feed_origin (
  only_row    boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  started_at  timestamptz NOT NULL
);

-- Is the row public, counting only schedules that passed by `as_of` (<= now())? The visibility
-- rules of the public_* views, with the time as a parameter.
CREATE FUNCTION feed_public(kind text, row_key text, as_of timestamptz) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF kind = 'songs' THEN
    RETURN EXISTS (SELECT 1 FROM songs WHERE id = row_key::int AND deleted_at IS NULL AND published_at <= as_of);
  ELSIF kind = 'albums' THEN
    RETURN EXISTS (SELECT 1 FROM albums WHERE id = row_key::int AND published_at <= as_of);
  ELSIF kind = 'curated_lists' THEN
    RETURN EXISTS (SELECT 1 FROM curated_lists WHERE id = row_key::int AND published_at <= as_of);
  ELSIF kind = 'artists' THEN
    RETURN EXISTS (SELECT 1 FROM credits c JOIN songs s ON s.id = c.song_id
                   WHERE c.artist_id = row_key::int AND s.deleted_at IS NULL AND s.published_at <= as_of)
        OR EXISTS (SELECT 1 FROM album_artists aa JOIN albums al ON al.id = aa.album_id
                   WHERE aa.artist_id = row_key::int AND al.published_at <= as_of);
  ELSIF kind = 'genres' THEN
    RETURN EXISTS (SELECT 1 FROM genres WHERE id = row_key::int);
  ELSIF kind = 'labels' THEN
    RETURN EXISTS (SELECT 1 FROM labels WHERE id = row_key::int);
  ELSIF kind = 'users' THEN
    RETURN EXISTS (SELECT 1 FROM members WHERE lower(username) = lower(row_key) AND username = row_key AND NOT is_banned);
  END IF;
  RETURN false;
END $$;

-- Touches rows of one kind; `was_public` says they were public before this write.
CREATE FUNCTION feed_touch(kind text, row_keys text[], was_public boolean) RETURNS void LANGUAGE sql AS $$
  INSERT INTO change_log (kind, row_key, may_remove)
  SELECT kind, k, was_public OR feed_public(kind, k, clock_timestamp())
  FROM (SELECT DISTINCT k FROM unnest(row_keys) AS x(k) WHERE k IS NOT NULL) x;
$$;

-- The rows that show a song (or that it makes visible): its artists, genres, labels, albums,
-- curated lists (directly or through an album), contributors, and the songs it is a version of.
CREATE FUNCTION feed_song_links(song_ids integer[]) RETURNS TABLE (song_id integer, kind text, row_key text)
LANGUAGE sql STABLE AS $$
  SELECT c.song_id, 'artists', c.artist_id::text FROM credits c WHERE c.song_id IN (SELECT unnest(song_ids))
  UNION SELECT x.song_id, 'genres', x.genre_id::text FROM song_genres x WHERE x.song_id IN (SELECT unnest(song_ids))
  UNION SELECT x.song_id, 'labels', x.label_id::text FROM song_labels x WHERE x.song_id IN (SELECT unnest(song_ids))
  UNION SELECT t.song_id, 'albums', t.album_id::text FROM album_tracks t WHERE t.song_id IN (SELECT unnest(song_ids))
  UNION SELECT l.song_id, 'curated_lists', l.list_id::text FROM curated_list_songs l WHERE l.song_id IN (SELECT unnest(song_ids))
  UNION SELECT t.song_id, 'curated_lists', l.list_id::text
        FROM album_tracks t JOIN curated_list_albums l ON l.album_id = t.album_id WHERE t.song_id IN (SELECT unnest(song_ids))
  UNION SELECT c.song_id, 'users', m.username
        FROM contributions c JOIN members m ON m.id = c.member_id WHERE c.song_id IN (SELECT unnest(song_ids)) AND m.username IS NOT NULL
  UNION SELECT v.song_id, 'songs', v.original_song_id::text FROM song_versions v WHERE v.song_id IN (SELECT unnest(song_ids))
  UNION SELECT v.original_song_id, 'songs', v.song_id::text FROM song_versions v WHERE v.original_song_id IN (SELECT unnest(song_ids))
$$;

-- The rows that show an album: its named artists, label, curated lists and tracks.
CREATE FUNCTION feed_album_links(album_ids integer[]) RETURNS TABLE (album_id integer, kind text, row_key text)
LANGUAGE sql STABLE AS $$
  SELECT aa.album_id, 'artists', aa.artist_id::text FROM album_artists aa WHERE aa.album_id IN (SELECT unnest(album_ids))
  UNION SELECT al.id, 'labels', al.label_id::text FROM albums al WHERE al.id IN (SELECT unnest(album_ids)) AND al.label_id IS NOT NULL
  UNION SELECT l.album_id, 'curated_lists', l.list_id::text FROM curated_list_albums l WHERE l.album_id IN (SELECT unnest(album_ids))
  UNION SELECT t.album_id, 'songs', t.song_id::text FROM album_tracks t WHERE t.album_id IN (SELECT unnest(album_ids))
$$;

-- Touches songs and every row that shows them; `was_public`: the songs public before this write.
-- A song still scheduled also gets due touches at its published_at, for it and those rows.
CREATE FUNCTION feed_touch_songs(song_ids integer[], was_public integer[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  IF cardinality(song_ids) = 0 THEN RETURN; END IF;
  INSERT INTO change_log (kind, row_key, may_remove)
  SELECT 'songs', x.id::text, x.id IN (SELECT unnest(was_public)) OR coalesce(s.deleted_at IS NULL AND s.published_at <= t, false)
  FROM (SELECT DISTINCT id FROM unnest(song_ids) AS u(id)) x LEFT JOIN songs s ON s.id = x.id;

  INSERT INTO change_log (kind, row_key, may_remove)
  SELECT r.kind, r.row_key, feed_public(r.kind, r.row_key, t) OR bool_or(r.kind = 'artists' AND r.song_id IN (SELECT unnest(was_public)))
  FROM feed_song_links(song_ids) r GROUP BY r.kind, r.row_key;

  INSERT INTO change_log (kind, row_key, may_remove, at, due_at)
  SELECT x.kind, x.row_key, false, x.due, x.due FROM (
    SELECT 'songs' AS kind, s.id::text AS row_key, s.published_at AS due
    FROM songs s WHERE s.id IN (SELECT unnest(song_ids)) AND s.deleted_at IS NULL AND s.published_at > t
    UNION
    SELECT r.kind, r.row_key, s.published_at
    FROM songs s JOIN feed_song_links(song_ids) r ON r.song_id = s.id
    WHERE s.id IN (SELECT unnest(song_ids)) AND s.deleted_at IS NULL AND s.published_at > t) x;
END $$;

-- The same for albums.
CREATE FUNCTION feed_touch_albums(album_ids integer[], was_public integer[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  IF cardinality(album_ids) = 0 THEN RETURN; END IF;
  INSERT INTO change_log (kind, row_key, may_remove)
  SELECT 'albums', x.id::text, x.id IN (SELECT unnest(was_public)) OR coalesce(al.published_at <= t, false)
  FROM (SELECT DISTINCT id FROM unnest(album_ids) AS u(id)) x LEFT JOIN albums al ON al.id = x.id;

  INSERT INTO change_log (kind, row_key, may_remove)
  SELECT r.kind, r.row_key, feed_public(r.kind, r.row_key, t) OR bool_or(r.kind = 'artists' AND r.album_id IN (SELECT unnest(was_public)))
  FROM feed_album_links(album_ids) r GROUP BY r.kind, r.row_key;

  INSERT INTO change_log (kind, row_key, may_remove, at, due_at)
  SELECT x.kind, x.row_key, false, x.due, x.due FROM (
    SELECT 'albums' AS kind, al.id::text AS row_key, al.published_at AS due
    FROM albums al WHERE al.id IN (SELECT unnest(album_ids)) AND al.published_at > t
    UNION
    SELECT r.kind, r.row_key, al.published_at
    FROM albums al JOIN feed_album_links(album_ids) r ON r.album_id = al.id
    WHERE al.id IN (SELECT unnest(album_ids)) AND al.published_at > t AND r.kind <> 'songs') x;
END $$;

-- Touches every public row, and the scheduled ones at their time: the feed's first entries (here),
-- and again after a bulk load that ran with the feed triggers off (the seed).
CREATE FUNCTION feed_backfill() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  INSERT INTO change_log (kind, row_key, may_remove, at)
  SELECT 'genres', id::text, true, t FROM genres
  UNION ALL SELECT 'labels', id::text, true, t FROM labels
  UNION ALL SELECT 'users', username, true, t FROM members WHERE username IS NOT NULL AND NOT is_banned
  UNION ALL SELECT 'songs', id::text, true, t FROM songs WHERE deleted_at IS NULL AND published_at <= t
  UNION ALL SELECT 'albums', id::text, true, t FROM albums WHERE published_at <= t
  UNION ALL SELECT 'curated_lists', id::text, true, t FROM curated_lists WHERE published_at <= t
  UNION ALL SELECT 'artists', a.id::text, true, t FROM artists a
    WHERE EXISTS (SELECT 1 FROM credits c JOIN songs s ON s.id = c.song_id
                  WHERE c.artist_id = a.id AND s.deleted_at IS NULL AND s.published_at <= t)
       OR EXISTS (SELECT 1 FROM album_artists aa JOIN albums al ON al.id = aa.album_id
                  WHERE aa.artist_id = a.id AND al.published_at <= t);

  PERFORM feed_touch_songs(ARRAY(SELECT id FROM songs WHERE deleted_at IS NULL AND published_at > t), '{}');
  PERFORM feed_touch_albums(ARRAY(SELECT id FROM albums WHERE published_at > t), '{}');
  INSERT INTO change_log (kind, row_key, may_remove, at, due_at)
  SELECT 'curated_lists', id::text, false, published_at, published_at FROM curated_lists WHERE published_at > t;
END $$;

-- songs: the song and every row that shows it.
CREATE FUNCTION feed_songs_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM feed_touch_songs(ARRAY(SELECT id FROM new_rows), '{}');
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM feed_touch_songs(
      ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n IS DISTINCT FROM o),
      ARRAY(SELECT o.id FROM old_rows o WHERE o.deleted_at IS NULL AND o.published_at <= t));
  ELSE
    PERFORM feed_touch('songs', ARRAY(SELECT id::text FROM old_rows WHERE deleted_at IS NULL AND published_at <= t), true);
  END IF;
  RETURN NULL;
END $$;

-- Tables of a song's links: the rows the old links showed, then the songs with their current links.
CREATE FUNCTION feed_song_links_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
  song_ids integer[] := '{}';
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    IF TG_TABLE_NAME = 'credits' THEN
      INSERT INTO change_log (kind, row_key, may_remove)
      SELECT 'artists', o.artist_id::text,
        feed_public('artists', o.artist_id::text, t) OR bool_or(feed_public('songs', o.song_id::text, t))
      FROM old_rows o GROUP BY o.artist_id;
    ELSIF TG_TABLE_NAME = 'song_genres' THEN
      PERFORM feed_touch('genres', ARRAY(SELECT genre_id::text FROM old_rows), true);
    ELSIF TG_TABLE_NAME = 'song_labels' THEN
      PERFORM feed_touch('labels', ARRAY(SELECT label_id::text FROM old_rows), true);
    ELSIF TG_TABLE_NAME = 'album_tracks' THEN
      PERFORM feed_touch('albums', ARRAY(SELECT album_id::text FROM old_rows), false);
    ELSIF TG_TABLE_NAME = 'contributions' THEN
      PERFORM feed_touch('users', ARRAY(SELECT m.username FROM old_rows o JOIN members m ON m.id = o.member_id), false);
    ELSIF TG_TABLE_NAME = 'song_versions' THEN
      song_ids := ARRAY(SELECT original_song_id FROM old_rows);
    END IF;
    song_ids := song_ids || ARRAY(SELECT song_id FROM old_rows);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    IF TG_TABLE_NAME = 'song_versions' THEN
      song_ids := song_ids || ARRAY(SELECT original_song_id FROM new_rows);
    END IF;
    song_ids := song_ids || ARRAY(SELECT song_id FROM new_rows);
  END IF;
  PERFORM feed_touch_songs(ARRAY(SELECT DISTINCT x FROM unnest(song_ids) AS u(x)), '{}');
  RETURN NULL;
END $$;

-- loves: the song's love count and the member's loves.
CREATE FUNCTION feed_loves_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids text[] := '{}';
  member_ids integer[] := '{}';
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    song_ids := ARRAY(SELECT song_id::text FROM old_rows);
    member_ids := ARRAY(SELECT member_id FROM old_rows);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    song_ids := song_ids || ARRAY(SELECT song_id::text FROM new_rows);
    member_ids := member_ids || ARRAY(SELECT member_id FROM new_rows);
  END IF;
  PERFORM feed_touch('songs', song_ids, false);
  PERFORM feed_touch('users', ARRAY(SELECT username FROM members WHERE id IN (SELECT unnest(member_ids))), false);
  RETURN NULL;
END $$;

-- albums: the album and the rows that show it; a label it left.
CREATE FUNCTION feed_albums_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM feed_touch_albums(ARRAY(SELECT id FROM new_rows), '{}');
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM feed_touch('labels', ARRAY(SELECT o.label_id::text FROM old_rows o JOIN new_rows n ON n.id = o.id
                                       WHERE o.label_id IS DISTINCT FROM n.label_id), true);
    PERFORM feed_touch_albums(
      ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n IS DISTINCT FROM o),
      ARRAY(SELECT o.id FROM old_rows o WHERE o.published_at <= t));
  ELSE
    PERFORM feed_touch('albums', ARRAY(SELECT id::text FROM old_rows WHERE published_at <= t), true);
    PERFORM feed_touch('labels', ARRAY(SELECT label_id::text FROM old_rows), true);
  END IF;
  RETURN NULL;
END $$;

-- album_artists: the artists it named (public through a public album), then the albums.
CREATE FUNCTION feed_album_artists_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
  album_ids integer[] := '{}';
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    INSERT INTO change_log (kind, row_key, may_remove)
    SELECT 'artists', o.artist_id::text,
      feed_public('artists', o.artist_id::text, t) OR bool_or(feed_public('albums', o.album_id::text, t))
    FROM old_rows o GROUP BY o.artist_id;
    album_ids := ARRAY(SELECT album_id FROM old_rows);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    album_ids := album_ids || ARRAY(SELECT album_id FROM new_rows);
  END IF;
  PERFORM feed_touch_albums(ARRAY(SELECT DISTINCT x FROM unnest(album_ids) AS u(x)), '{}');
  RETURN NULL;
END $$;

-- curated_lists: the list, and a due touch when it is scheduled.
CREATE FUNCTION feed_curated_lists_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM feed_touch('curated_lists', ARRAY(SELECT id::text FROM old_rows WHERE published_at <= t), true);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    PERFORM feed_touch('curated_lists', ARRAY(SELECT id::text FROM new_rows), false);
    INSERT INTO change_log (kind, row_key, may_remove, at, due_at)
    SELECT 'curated_lists', id::text, false, published_at, published_at FROM new_rows WHERE published_at > t;
  END IF;
  RETURN NULL;
END $$;

-- curated_list_songs, curated_list_albums: the lists.
CREATE FUNCTION feed_list_entries_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  list_ids text[] := '{}';
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN list_ids := ARRAY(SELECT list_id::text FROM old_rows); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN list_ids := list_ids || ARRAY(SELECT list_id::text FROM new_rows); END IF;
  PERFORM feed_touch('curated_lists', list_ids, false);
  RETURN NULL;
END $$;

-- artists: the artist; a change of what others show of it touches its songs, albums and groups.
CREATE FUNCTION feed_artists_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  artist_ids integer[] := '{}';
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN artist_ids := ARRAY(SELECT id FROM old_rows); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN artist_ids := artist_ids || ARRAY(SELECT id FROM new_rows); END IF;
  PERFORM feed_touch('artists', ARRAY(SELECT x::text FROM unnest(artist_ids) AS u(x)), false);
  IF TG_OP = 'UPDATE' THEN
    artist_ids := ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
                        WHERE (n.name, n.slug, n.prefix_title, n.is_group, n.avatar_key, n.disambiguator, n.member_id)
                              IS DISTINCT FROM (o.name, o.slug, o.prefix_title, o.is_group, o.avatar_key, o.disambiguator, o.member_id));
    IF cardinality(artist_ids) > 0 THEN
      PERFORM feed_touch('songs', ARRAY(SELECT DISTINCT song_id::text FROM credits WHERE artist_id IN (SELECT unnest(artist_ids))), false);
      PERFORM feed_touch('albums', ARRAY(SELECT DISTINCT album_id::text FROM album_artists WHERE artist_id IN (SELECT unnest(artist_ids))), false);
      PERFORM feed_touch('artists', ARRAY(
        SELECT group_id::text FROM artist_memberships WHERE member_id IN (SELECT unnest(artist_ids))
        UNION SELECT member_id::text FROM artist_memberships WHERE group_id IN (SELECT unnest(artist_ids))), false);
    END IF;
  END IF;
  RETURN NULL;
END $$;

-- artist_memberships: both artists.
CREATE FUNCTION feed_artist_memberships_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  artist_ids text[] := '{}';
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    artist_ids := ARRAY(SELECT group_id::text FROM old_rows UNION SELECT member_id::text FROM old_rows);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    artist_ids := artist_ids || ARRAY(SELECT group_id::text FROM new_rows UNION SELECT member_id::text FROM new_rows);
  END IF;
  PERFORM feed_touch('artists', artist_ids, false);
  RETURN NULL;
END $$;

-- genres and labels are always public; a renamed one touches the songs (and albums) that show it.
CREATE FUNCTION feed_genres_labels_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids integer[] := '{}';
  kind text := TG_TABLE_NAME;
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN ids := ARRAY(SELECT id FROM old_rows); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN ids := ids || ARRAY(SELECT id FROM new_rows); END IF;
  PERFORM feed_touch(kind, ARRAY(SELECT x::text FROM unnest(ids) AS u(x)), true);
  IF TG_OP = 'UPDATE' THEN
    IF kind = 'genres' THEN
      PERFORM feed_touch('songs', ARRAY(SELECT DISTINCT song_id::text FROM song_genres WHERE genre_id IN (SELECT unnest(ids))), false);
    ELSE
      PERFORM feed_touch('songs', ARRAY(SELECT DISTINCT song_id::text FROM song_labels WHERE label_id IN (SELECT unnest(ids))), false);
      PERFORM feed_touch('albums', ARRAY(SELECT id::text FROM albums WHERE label_id IN (SELECT unnest(ids))), false);
    END IF;
  END IF;
  RETURN NULL;
END $$;

-- members: a profile is keyed by its handle, so a new handle is the old one removed and the new
-- one added; a ban or a new handle also changes how their contributions and loves show.
CREATE FUNCTION feed_members_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  member_ids integer[] := '{}';
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM feed_touch('users', ARRAY(SELECT username FROM old_rows WHERE username IS NOT NULL AND NOT is_banned), true);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    PERFORM feed_touch('users', ARRAY(SELECT username FROM new_rows), false);
  END IF;
  IF TG_OP = 'UPDATE' THEN
    member_ids := ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
                        WHERE (n.username, n.name, n.kind, n.avatar_key, n.is_banned)
                              IS DISTINCT FROM (o.username, o.name, o.kind, o.avatar_key, o.is_banned));
    IF cardinality(member_ids) > 0 THEN
      PERFORM feed_touch('songs', ARRAY(SELECT song_id::text FROM contributions WHERE member_id IN (SELECT unnest(member_ids))
                                        UNION SELECT song_id::text FROM loves WHERE member_id IN (SELECT unnest(member_ids))), false);
      PERFORM feed_touch('artists', ARRAY(SELECT id::text FROM artists WHERE member_id IN (SELECT unnest(member_ids))), false);
    END IF;
  END IF;
  RETURN NULL;
END $$;

DO $$
DECLARE
  r record;
BEGIN
  FOR r IN SELECT * FROM (VALUES
    ('songs', 'feed_songs_trigger'),
    ('credits', 'feed_song_links_trigger'),
    ('song_genres', 'feed_song_links_trigger'),
    ('song_labels', 'feed_song_links_trigger'),
    ('album_tracks', 'feed_song_links_trigger'),
    ('contributions', 'feed_song_links_trigger'),
    ('song_versions', 'feed_song_links_trigger'),
    ('loves', 'feed_loves_trigger'),
    ('albums', 'feed_albums_trigger'),
    ('album_artists', 'feed_album_artists_trigger'),
    ('curated_lists', 'feed_curated_lists_trigger'),
    ('curated_list_songs', 'feed_list_entries_trigger'),
    ('curated_list_albums', 'feed_list_entries_trigger'),
    ('artists', 'feed_artists_trigger'),
    ('artist_memberships', 'feed_artist_memberships_trigger'),
    ('genres', 'feed_genres_labels_trigger'),
    ('labels', 'feed_genres_labels_trigger'),
    ('members', 'feed_members_trigger')
  ) AS v(tbl, fn) LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows '
                   'FOR EACH STATEMENT EXECUTE FUNCTION %I()', 'feed_' || r.tbl || '_insert', r.tbl, r.fn);
    EXECUTE format('CREATE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows '
                   'FOR EACH STATEMENT EXECUTE FUNCTION %I()', 'feed_' || r.tbl || '_update', r.tbl, r.fn);
    EXECUTE format('CREATE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows '
                   'FOR EACH STATEMENT EXECUTE FUNCTION %I()', 'feed_' || r.tbl || '_delete', r.tbl, r.fn);
  END LOOP;
END $$;

INSERT INTO change_feed_origin (started_at) VALUES (clock_timestamp());
SELECT feed_backfill();
-- statistics now: planned over an empty table, the first reads sort the whole log
ANALYZE change_log;

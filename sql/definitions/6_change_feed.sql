-- The change feed (docs/changes.md): triggers on every table whose rows show in a public answer
-- append a touch to change_log for each row that may have changed, with `may_remove` when it was
-- public before; a scheduled row gets a due touch at its published_at. The reader filters the
-- touches by the rules at read time.

-- album_artists: the artists it named (public through a public album), then the albums.
CREATE OR REPLACE FUNCTION feed_album_artists_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER feed_album_artists_delete AFTER DELETE ON album_artists REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_album_artists_trigger();
CREATE OR REPLACE TRIGGER feed_album_artists_insert AFTER INSERT ON album_artists REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_album_artists_trigger();
CREATE OR REPLACE TRIGGER feed_album_artists_update AFTER UPDATE ON album_artists REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_album_artists_trigger();

-- The rows that show an album: its named artists, label, curated lists and tracks.
CREATE OR REPLACE FUNCTION feed_album_links(album_ids integer[]) RETURNS TABLE(album_id integer, kind text, row_key text) LANGUAGE sql STABLE AS $$
  SELECT aa.album_id, 'artists', aa.artist_id::text FROM album_artists aa WHERE aa.album_id IN (SELECT unnest(album_ids))
  UNION SELECT al.id, 'labels', al.label_id::text FROM albums al WHERE al.id IN (SELECT unnest(album_ids)) AND al.label_id IS NOT NULL
  UNION SELECT l.album_id, 'curated_lists', l.list_id::text FROM curated_list_albums l WHERE l.album_id IN (SELECT unnest(album_ids))
  UNION SELECT t.album_id, 'songs', t.song_id::text FROM album_tracks t WHERE t.album_id IN (SELECT unnest(album_ids))
$$;

CREATE OR REPLACE FUNCTION feed_albums_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
      ARRAY(SELECT o.id FROM old_rows o WHERE album_is_public_at(o.published_at, t)));
  ELSE
    PERFORM feed_touch('albums', ARRAY(SELECT id::text FROM old_rows WHERE album_is_public_at(published_at, t)), true);
    PERFORM feed_touch('labels', ARRAY(SELECT label_id::text FROM old_rows), true);
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER feed_albums_delete AFTER DELETE ON albums REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_albums_trigger();
CREATE OR REPLACE TRIGGER feed_albums_insert AFTER INSERT ON albums REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_albums_trigger();
CREATE OR REPLACE TRIGGER feed_albums_update AFTER UPDATE ON albums REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_albums_trigger();

-- artist_memberships: both artists.
CREATE OR REPLACE FUNCTION feed_artist_memberships_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER feed_artist_memberships_delete AFTER DELETE ON artist_memberships REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_artist_memberships_trigger();
CREATE OR REPLACE TRIGGER feed_artist_memberships_insert AFTER INSERT ON artist_memberships REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_artist_memberships_trigger();
CREATE OR REPLACE TRIGGER feed_artist_memberships_update AFTER UPDATE ON artist_memberships REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_artist_memberships_trigger();

-- artists: the artist; a change of what others show of it touches its songs, albums and groups.
CREATE OR REPLACE FUNCTION feed_artists_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER feed_artists_delete AFTER DELETE ON artists REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_artists_trigger();
CREATE OR REPLACE TRIGGER feed_artists_insert AFTER INSERT ON artists REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_artists_trigger();
CREATE OR REPLACE TRIGGER feed_artists_update AFTER UPDATE ON artists REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_artists_trigger();

CREATE OR REPLACE FUNCTION feed_backfill() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  INSERT INTO change_log (kind, row_key, may_remove, at)
  SELECT 'genres', id::text, true, t FROM genres
  UNION ALL SELECT 'labels', id::text, true, t FROM labels
  UNION ALL SELECT 'users', username, true, t FROM members WHERE member_is_public(username, is_banned)
  UNION ALL SELECT 'songs', id::text, true, t FROM songs WHERE song_is_public_at(published_at, deleted_at, t)
  UNION ALL SELECT 'albums', id::text, true, t FROM albums WHERE album_is_public_at(published_at, t)
  UNION ALL SELECT 'curated_lists', id::text, true, t FROM curated_lists WHERE curated_list_is_public_at(published_at, t)
  UNION ALL SELECT 'artists', a.id::text, true, t FROM artists a
    WHERE EXISTS (SELECT 1 FROM credits c JOIN songs s ON s.id = c.song_id
                  WHERE c.artist_id = a.id AND song_is_public_at(s.published_at, s.deleted_at, t))
       OR EXISTS (SELECT 1 FROM album_artists aa JOIN albums al ON al.id = aa.album_id
                  WHERE aa.artist_id = a.id AND album_is_public_at(al.published_at, t));

  PERFORM feed_touch_songs(ARRAY(SELECT id FROM songs WHERE song_is_live(published_at, deleted_at) AND published_at > t), '{}');
  PERFORM feed_touch_albums(ARRAY(SELECT id FROM albums WHERE published_at > t), '{}');
  INSERT INTO change_log (kind, row_key, may_remove, at, due_at)
  SELECT 'curated_lists', id::text, false, published_at, published_at FROM curated_lists WHERE published_at > t;
END $$;

CREATE OR REPLACE FUNCTION feed_curated_lists_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM feed_touch('curated_lists', ARRAY(SELECT id::text FROM old_rows WHERE curated_list_is_public_at(published_at, t)), true);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    PERFORM feed_touch('curated_lists', ARRAY(SELECT id::text FROM new_rows), false);
    INSERT INTO change_log (kind, row_key, may_remove, at, due_at)
    SELECT 'curated_lists', id::text, false, published_at, published_at FROM new_rows WHERE published_at > t;
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER feed_curated_lists_delete AFTER DELETE ON curated_lists REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_curated_lists_trigger();
CREATE OR REPLACE TRIGGER feed_curated_lists_insert AFTER INSERT ON curated_lists REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_curated_lists_trigger();
CREATE OR REPLACE TRIGGER feed_curated_lists_update AFTER UPDATE ON curated_lists REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_curated_lists_trigger();

-- genres and labels are always public; a renamed one touches the songs (and albums) that show it.
CREATE OR REPLACE FUNCTION feed_genres_labels_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER feed_genres_delete AFTER DELETE ON genres REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_genres_labels_trigger();
CREATE OR REPLACE TRIGGER feed_genres_insert AFTER INSERT ON genres REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_genres_labels_trigger();
CREATE OR REPLACE TRIGGER feed_genres_update AFTER UPDATE ON genres REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_genres_labels_trigger();
CREATE OR REPLACE TRIGGER feed_labels_delete AFTER DELETE ON labels REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_genres_labels_trigger();
CREATE OR REPLACE TRIGGER feed_labels_insert AFTER INSERT ON labels REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_genres_labels_trigger();
CREATE OR REPLACE TRIGGER feed_labels_update AFTER UPDATE ON labels REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_genres_labels_trigger();

-- curated_list_songs, curated_list_albums: the lists.
CREATE OR REPLACE FUNCTION feed_list_entries_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  list_ids text[] := '{}';
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN list_ids := ARRAY(SELECT list_id::text FROM old_rows); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN list_ids := list_ids || ARRAY(SELECT list_id::text FROM new_rows); END IF;
  PERFORM feed_touch('curated_lists', list_ids, false);
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER feed_curated_list_albums_delete AFTER DELETE ON curated_list_albums REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_list_entries_trigger();
CREATE OR REPLACE TRIGGER feed_curated_list_albums_insert AFTER INSERT ON curated_list_albums REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_list_entries_trigger();
CREATE OR REPLACE TRIGGER feed_curated_list_albums_update AFTER UPDATE ON curated_list_albums REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_list_entries_trigger();
CREATE OR REPLACE TRIGGER feed_curated_list_songs_delete AFTER DELETE ON curated_list_songs REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_list_entries_trigger();
CREATE OR REPLACE TRIGGER feed_curated_list_songs_insert AFTER INSERT ON curated_list_songs REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_list_entries_trigger();
CREATE OR REPLACE TRIGGER feed_curated_list_songs_update AFTER UPDATE ON curated_list_songs REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_list_entries_trigger();

-- loves: the song's love count and the member's loves.
CREATE OR REPLACE FUNCTION feed_loves_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER feed_loves_delete AFTER DELETE ON loves REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_loves_trigger();
CREATE OR REPLACE TRIGGER feed_loves_insert AFTER INSERT ON loves REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_loves_trigger();
CREATE OR REPLACE TRIGGER feed_loves_update AFTER UPDATE ON loves REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_loves_trigger();

CREATE OR REPLACE FUNCTION feed_members_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  member_ids integer[] := '{}';
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM feed_touch('users', ARRAY(SELECT username FROM old_rows WHERE member_is_public(username, is_banned)), true);
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
CREATE OR REPLACE TRIGGER feed_members_delete AFTER DELETE ON members REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_members_trigger();
CREATE OR REPLACE TRIGGER feed_members_insert AFTER INSERT ON members REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_members_trigger();
CREATE OR REPLACE TRIGGER feed_members_update AFTER UPDATE ON members REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_members_trigger();

CREATE OR REPLACE FUNCTION feed_public(kind text, row_key text, as_of timestamp with time zone) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  IF kind = 'songs' THEN
    RETURN EXISTS (SELECT 1 FROM songs WHERE id = row_key::int AND song_is_public_at(published_at, deleted_at, as_of));
  ELSIF kind = 'albums' THEN
    RETURN EXISTS (SELECT 1 FROM albums WHERE id = row_key::int AND album_is_public_at(published_at, as_of));
  ELSIF kind = 'curated_lists' THEN
    RETURN EXISTS (SELECT 1 FROM curated_lists WHERE id = row_key::int AND curated_list_is_public_at(published_at, as_of));
  ELSIF kind = 'artists' THEN
    RETURN EXISTS (SELECT 1 FROM credits c JOIN songs s ON s.id = c.song_id
                   WHERE c.artist_id = row_key::int AND song_is_public_at(s.published_at, s.deleted_at, as_of))
        OR EXISTS (SELECT 1 FROM album_artists aa JOIN albums al ON al.id = aa.album_id
                   WHERE aa.artist_id = row_key::int AND album_is_public_at(al.published_at, as_of));
  ELSIF kind = 'genres' THEN
    RETURN EXISTS (SELECT 1 FROM genres WHERE id = row_key::int);
  ELSIF kind = 'labels' THEN
    RETURN EXISTS (SELECT 1 FROM labels WHERE id = row_key::int);
  ELSIF kind = 'users' THEN
    RETURN EXISTS (SELECT 1 FROM members WHERE lower(username) = lower(row_key) AND username = row_key AND member_is_public(username, is_banned));
  END IF;
  RETURN false;
END $$;

-- The rows that show a song (or that it makes visible): its artists, genres, labels, albums,
-- curated lists (directly or through an album), contributors, and the songs it is a version of.
CREATE OR REPLACE FUNCTION feed_song_links(song_ids integer[]) RETURNS TABLE(song_id integer, kind text, row_key text) LANGUAGE sql STABLE AS $$
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

-- Tables of a song's links: the rows the old links showed, then the songs with their current links.
CREATE OR REPLACE FUNCTION feed_song_links_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER feed_album_tracks_delete AFTER DELETE ON album_tracks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_album_tracks_insert AFTER INSERT ON album_tracks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_album_tracks_update AFTER UPDATE ON album_tracks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_contributions_delete AFTER DELETE ON contributions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_contributions_insert AFTER INSERT ON contributions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_contributions_update AFTER UPDATE ON contributions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_credits_delete AFTER DELETE ON credits REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_credits_insert AFTER INSERT ON credits REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_credits_update AFTER UPDATE ON credits REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_song_genres_delete AFTER DELETE ON song_genres REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_song_genres_insert AFTER INSERT ON song_genres REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_song_genres_update AFTER UPDATE ON song_genres REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_song_labels_delete AFTER DELETE ON song_labels REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_song_labels_insert AFTER INSERT ON song_labels REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_song_labels_update AFTER UPDATE ON song_labels REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_song_versions_delete AFTER DELETE ON song_versions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_song_versions_insert AFTER INSERT ON song_versions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();
CREATE OR REPLACE TRIGGER feed_song_versions_update AFTER UPDATE ON song_versions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_song_links_trigger();

CREATE OR REPLACE FUNCTION feed_songs_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM feed_touch_songs(ARRAY(SELECT id FROM new_rows), '{}');
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM feed_touch_songs(
      ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n IS DISTINCT FROM o),
      ARRAY(SELECT o.id FROM old_rows o WHERE song_is_public_at(o.published_at, o.deleted_at, t)));
  ELSE
    PERFORM feed_touch('songs', ARRAY(SELECT id::text FROM old_rows WHERE song_is_public_at(published_at, deleted_at, t)), true);
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER feed_songs_delete AFTER DELETE ON songs REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_songs_trigger();
CREATE OR REPLACE TRIGGER feed_songs_insert AFTER INSERT ON songs REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_songs_trigger();
CREATE OR REPLACE TRIGGER feed_songs_update AFTER UPDATE ON songs REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION feed_songs_trigger();

-- Touches rows of one kind; `was_public` says they were public before this write.
CREATE OR REPLACE FUNCTION feed_touch(kind text, row_keys text[], was_public boolean) RETURNS void LANGUAGE sql AS $$
  INSERT INTO change_log (kind, row_key, may_remove)
  SELECT kind, k, was_public OR feed_public(kind, k, clock_timestamp())
  FROM (SELECT DISTINCT k FROM unnest(row_keys) AS x(k) WHERE k IS NOT NULL) x;
$$;

CREATE OR REPLACE FUNCTION feed_touch_albums(album_ids integer[], was_public integer[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  IF cardinality(album_ids) = 0 THEN RETURN; END IF;
  INSERT INTO change_log (kind, row_key, may_remove)
  SELECT 'albums', x.id::text, x.id IN (SELECT unnest(was_public)) OR coalesce(album_is_public_at(al.published_at, t), false)
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

CREATE OR REPLACE FUNCTION feed_touch_songs(song_ids integer[], was_public integer[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  IF cardinality(song_ids) = 0 THEN RETURN; END IF;
  INSERT INTO change_log (kind, row_key, may_remove)
  SELECT 'songs', x.id::text, x.id IN (SELECT unnest(was_public)) OR coalesce(song_is_public_at(s.published_at, s.deleted_at, t), false)
  FROM (SELECT DISTINCT id FROM unnest(song_ids) AS u(id)) x LEFT JOIN songs s ON s.id = x.id;

  INSERT INTO change_log (kind, row_key, may_remove)
  SELECT r.kind, r.row_key, feed_public(r.kind, r.row_key, t) OR bool_or(r.kind = 'artists' AND r.song_id IN (SELECT unnest(was_public)))
  FROM feed_song_links(song_ids) r GROUP BY r.kind, r.row_key;

  INSERT INTO change_log (kind, row_key, may_remove, at, due_at)
  SELECT x.kind, x.row_key, false, x.due, x.due FROM (
    SELECT 'songs' AS kind, s.id::text AS row_key, s.published_at AS due
    FROM songs s WHERE s.id IN (SELECT unnest(song_ids)) AND song_is_live(s.published_at, s.deleted_at) AND s.published_at > t
    UNION
    SELECT r.kind, r.row_key, s.published_at
    FROM songs s JOIN feed_song_links(song_ids) r ON r.song_id = s.id
    WHERE s.id IN (SELECT unnest(song_ids)) AND song_is_live(s.published_at, s.deleted_at) AND s.published_at > t) x;
END $$;

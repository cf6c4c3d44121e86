-- The change feed (docs/changes.md): triggers on every table whose rows show in a public answer
-- append a touch to change_log for each row that may have changed (the reader serves it as an
-- upsert or a remove by the rules at read time); a scheduled row, and each row it will change,
-- gets a due touch at its published_at (change_due). Kept in SQL so that a write and its touches
-- commit together, whatever wrote it. Building blocks first, then the triggers, a table each.

-- ---- Which rows are public, and touching them ---------------------------------------------

-- Whether row `row_key` of `kind` is public at `as_of`, as far as the catalogue says now (an
-- artist: visible through a public song credit or a public album naming it).
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

-- Touches the rows of one kind that are public at the write or were before it (`was_public`).
CREATE OR REPLACE FUNCTION feed_touch(kind text, row_keys text[], was_public boolean) RETURNS void LANGUAGE sql AS $$
  INSERT INTO change_log (kind, row_key)
  SELECT kind, k FROM (SELECT DISTINCT k FROM unnest(row_keys) AS x(k) WHERE k IS NOT NULL) x
  WHERE was_public OR feed_public(kind, k, clock_timestamp());
$$;

-- ---- Artists whose visibility their groups and members show -------------------------------

-- Each artist with each of its groups and members: a group shows its visible members, a member
-- its visible groups.
CREATE OR REPLACE VIEW feed_artist_partners AS
  SELECT member_id AS artist_id, group_id AS partner_id FROM artist_memberships
  UNION ALL SELECT group_id, member_id FROM artist_memberships;

-- Whether an artist is visible at t through a credit on a public song other than `song_ids` or a
-- public album other than `album_ids` naming it: visible whatever those rows do (with none left
-- out, visible at t as far as the catalogue says: the rule of feed_public, for set-based callers).
CREATE OR REPLACE FUNCTION feed_artist_visible_beyond(artist integer, song_ids integer[], album_ids integer[], t timestamptz)
RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM credits c JOIN songs s ON s.id = c.song_id
                 WHERE c.artist_id = artist AND c.song_id <> ALL (song_ids) AND song_is_public_at(s.published_at, s.deleted_at, t))
      OR EXISTS (SELECT 1 FROM album_artists aa JOIN albums al ON al.id = aa.album_id
                 WHERE aa.artist_id = artist AND aa.album_id <> ALL (album_ids) AND album_is_public_at(al.published_at, t));
END $$;

-- Whether an artist is in a group or has members (the few whose visibility others show).
CREATE OR REPLACE FUNCTION feed_artist_grouped(artist integer) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN EXISTS (SELECT 1 FROM feed_artist_partners p WHERE p.artist_id = artist);
END $$;

-- The groups and members (public now) of artists whose visibility moved, or that changed what a
-- partner shows of them.
CREATE OR REPLACE FUNCTION feed_touch_partners(artist_ids integer[]) RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_custom_plan
  AS $$
BEGIN
  PERFORM feed_touch('artists', ARRAY(
    SELECT p.partner_id::text FROM feed_artist_partners p WHERE p.artist_id IN (SELECT unnest(artist_ids))), false);
END $$;

-- ---- The rows that show a song or an album ------------------------------------------------

-- The rows that show these songs. With `through_albums` (the song joins or leaves its albums'
-- entries), also the rows that show the entries of its albums public at `as_of` (NULL: at the
-- song's own published_at, its due time): the artists it names, else the performers of its tracks
-- public then, and the albums-lists holding it.
CREATE OR REPLACE FUNCTION feed_song_links(song_ids integer[], through_albums boolean, as_of timestamptz)
RETURNS TABLE (song_id integer, kind text, row_key text, sure boolean) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  -- two statements, not one with `through_albums` in its filters: a statement is planned at each
  -- call (its callers' song_ids are one song or thousands) and the albums' joins cost the most to plan
  RETURN QUERY
    SELECT c.song_id, 'artists', c.artist_id::text, true FROM credits c WHERE c.song_id IN (SELECT unnest(song_ids))
    UNION SELECT x.song_id, 'genres', x.genre_id::text, true FROM song_genres x WHERE x.song_id IN (SELECT unnest(song_ids))
    UNION SELECT x.song_id, 'labels', x.label_id::text, true FROM song_labels x WHERE x.song_id IN (SELECT unnest(song_ids))
    UNION SELECT t.song_id, 'albums', t.album_id::text, false FROM album_tracks t WHERE t.song_id IN (SELECT unnest(song_ids))
    UNION SELECT l.song_id, 'curated_lists', l.list_id::text, false
          FROM curated_list_songs l JOIN curated_lists cl ON cl.id = l.list_id AND cl.content_type = 'songs'
          WHERE l.song_id IN (SELECT unnest(song_ids))
    UNION SELECT c.song_id, 'users', m.username, false
          FROM contributions c JOIN members m ON m.id = c.member_id WHERE c.song_id IN (SELECT unnest(song_ids)) AND m.username IS NOT NULL
    UNION SELECT l.song_id, 'users', m.username, false
          FROM loves l JOIN members m ON m.id = l.member_id WHERE l.song_id IN (SELECT unnest(song_ids)) AND m.username IS NOT NULL
    UNION SELECT v.song_id, 'songs', v.original_song_id::text, false FROM song_versions v WHERE v.song_id IN (SELECT unnest(song_ids))
    UNION SELECT v.original_song_id, 'songs', v.song_id::text, false FROM song_versions v WHERE v.original_song_id IN (SELECT unnest(song_ids));
  IF through_albums THEN
    RETURN QUERY
      SELECT t.song_id, 'curated_lists', l.list_id::text, false
            FROM album_tracks t JOIN songs s ON s.id = t.song_id JOIN albums al ON al.id = t.album_id
            JOIN curated_list_albums l ON l.album_id = t.album_id
            JOIN curated_lists cl ON cl.id = l.list_id AND cl.content_type = 'albums'
            WHERE t.song_id IN (SELECT unnest(song_ids))
              AND album_is_public_at(al.published_at, coalesce(as_of, s.published_at))
      UNION SELECT t.song_id, 'artists', aa.artist_id::text, false
            FROM album_tracks t JOIN songs s ON s.id = t.song_id JOIN albums al ON al.id = t.album_id
            JOIN album_artists aa ON aa.album_id = t.album_id
            WHERE t.song_id IN (SELECT unnest(song_ids))
              AND album_is_public_at(al.published_at, coalesce(as_of, s.published_at))
      UNION SELECT t.song_id, 'artists', c.artist_id::text, false
            FROM album_tracks t JOIN songs s ON s.id = t.song_id JOIN albums al ON al.id = t.album_id
            JOIN album_tracks o ON o.album_id = t.album_id JOIN songs os ON os.id = o.song_id
            JOIN credits c ON c.song_id = o.song_id JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
            WHERE t.song_id IN (SELECT unnest(song_ids))
              AND album_is_public_at(al.published_at, coalesce(as_of, s.published_at))
              AND song_is_public_at(os.published_at, os.deleted_at, coalesce(as_of, s.published_at))
              AND NOT EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = t.album_id);
  END IF;
END $$;

-- The rows that show the entry of these albums: its named artists, else the performers of its
-- tracks public at `as_of` (NULL: at the album's own published_at, its due time); its label; the
-- albums-lists holding it.
CREATE OR REPLACE FUNCTION feed_album_links(album_ids integer[], with_label boolean, as_of timestamptz)
RETURNS TABLE (album_id integer, kind text, row_key text, sure boolean) LANGUAGE sql STABLE AS $$
  SELECT aa.album_id, 'artists', aa.artist_id::text, true FROM album_artists aa WHERE aa.album_id IN (SELECT unnest(album_ids))
  UNION SELECT t.album_id, 'artists', c.artist_id::text, false
        FROM album_tracks t JOIN albums al ON al.id = t.album_id JOIN songs s ON s.id = t.song_id
        JOIN credits c ON c.song_id = t.song_id JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
        WHERE t.album_id IN (SELECT unnest(album_ids))
          AND song_is_public_at(s.published_at, s.deleted_at, coalesce(as_of, al.published_at))
          AND NOT EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = t.album_id)
  UNION SELECT al.id, 'labels', al.label_id::text, true FROM albums al
        WHERE with_label AND al.id IN (SELECT unnest(album_ids)) AND al.label_id IS NOT NULL
  UNION SELECT l.album_id, 'curated_lists', l.list_id::text, false
        FROM curated_list_albums l JOIN curated_lists cl ON cl.id = l.list_id AND cl.content_type = 'albums'
        WHERE l.album_id IN (SELECT unnest(album_ids))
$$;

-- ---- Due touches: what a scheduled row changes at its published_at ------------------------

-- Deletes the sources' due touches still ahead (their rows are written anew, moved or withdrawn)
-- and notes them in change_withdrawn until the transaction commits.
CREATE OR REPLACE FUNCTION feed_due_forget(sources text[], t timestamptz) RETURNS void LANGUAGE sql AS $$
  WITH gone AS (DELETE FROM change_due WHERE source IN (SELECT unnest(sources)) AND due_at > t RETURNING due_at, kind, row_key, source)
  INSERT INTO change_withdrawn (due_at, kind, row_key, source) SELECT DISTINCT due_at, kind, row_key, source FROM gone;
$$;

-- At commit: a due touch this transaction deleted whose time has come meanwhile, and that it did
-- not write again, was public to every reader from its time until now (the withdrawal was not
-- visible yet; a hot standby's due stream may have served it, and anyone may have fetched it), so
-- its row gets an immediate touch: served as remove when no longer public, upsert when still.
-- The first call of the transaction does the work for all its rows; the others find none.
CREATE OR REPLACE FUNCTION feed_withdrawn_at_commit() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  WITH mine AS (DELETE FROM change_withdrawn WHERE xid = pg_current_xact_id() RETURNING due_at, kind, row_key, source)
  INSERT INTO change_log (kind, row_key)
  SELECT DISTINCT m.kind, m.row_key FROM mine m
  WHERE m.due_at <= t
    AND NOT EXISTS (SELECT 1 FROM change_due d
                    WHERE d.due_at = m.due_at AND d.kind = m.kind AND d.row_key = m.row_key AND d.source = m.source);
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER feed_withdrawn_at_commit AFTER INSERT ON change_withdrawn
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION feed_withdrawn_at_commit();

-- Due touches of scheduled songs, written anew: the song and the rows it will change at its time,
-- each only if public then as far as the catalogue says now. A song no longer scheduled keeps none
-- ahead.
CREATE OR REPLACE FUNCTION feed_due_songs(song_ids integer[]) RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_custom_plan
  AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  IF cardinality(song_ids) = 0 THEN RETURN; END IF;
  PERFORM feed_due_forget(ARRAY(SELECT 'songs:' || x FROM unnest(song_ids) AS u(x)), t);
  -- only the scheduled ones have a due time: an import of public songs reads no links
  song_ids := ARRAY(SELECT s.id FROM songs s WHERE s.id = ANY (song_ids) AND song_is_live(s.published_at, s.deleted_at) AND s.published_at > t);
  IF cardinality(song_ids) = 0 THEN RETURN; END IF;
  INSERT INTO change_due (due_at, kind, row_key, source)
  SELECT x.due, x.kind, x.row_key, 'songs:' || x.id FROM (
    SELECT s.id, s.published_at AS due, 'songs' AS kind, s.id::text AS row_key, true AS sure
    FROM songs s WHERE s.id IN (SELECT unnest(song_ids)) AND song_is_live(s.published_at, s.deleted_at) AND s.published_at > t
    UNION ALL
    SELECT s.id, s.published_at, r.kind, r.row_key, r.sure
    FROM songs s JOIN feed_song_links(song_ids, true, NULL) r ON r.song_id = s.id
    WHERE s.id IN (SELECT unnest(song_ids)) AND song_is_live(s.published_at, s.deleted_at) AND s.published_at > t
    UNION ALL
    -- the groups and members of an artist that becomes visible then (not visible just before)
    SELECT s.id, s.published_at, 'artists', p.partner_id::text, false
    FROM songs s JOIN credits c ON c.song_id = s.id JOIN feed_artist_partners p ON p.artist_id = c.artist_id
    WHERE s.id IN (SELECT unnest(song_ids)) AND song_is_live(s.published_at, s.deleted_at) AND s.published_at > t
      AND NOT feed_artist_visible_beyond(p.artist_id, '{}', '{}', s.published_at - interval '1 microsecond')) x
  GROUP BY x.due, x.kind, x.row_key, x.id
  HAVING bool_or(x.sure) OR feed_public(x.kind, x.row_key, x.due);
END $$;

-- The same for albums: the album and the rows that show its entry, its label.
CREATE OR REPLACE FUNCTION feed_due_albums(album_ids integer[]) RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_custom_plan
  AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  IF cardinality(album_ids) = 0 THEN RETURN; END IF;
  PERFORM feed_due_forget(ARRAY(SELECT 'albums:' || x FROM unnest(album_ids) AS u(x)), t);
  album_ids := ARRAY(SELECT al.id FROM albums al WHERE al.id = ANY (album_ids) AND al.published_at > t);
  IF cardinality(album_ids) = 0 THEN RETURN; END IF;
  INSERT INTO change_due (due_at, kind, row_key, source)
  SELECT x.due, x.kind, x.row_key, 'albums:' || x.id FROM (
    SELECT al.id, al.published_at AS due, 'albums' AS kind, al.id::text AS row_key, true AS sure
    FROM albums al WHERE al.id IN (SELECT unnest(album_ids)) AND al.published_at > t
    UNION ALL
    SELECT al.id, al.published_at, r.kind, r.row_key, r.sure
    FROM albums al JOIN feed_album_links(album_ids, true, NULL) r ON r.album_id = al.id
    WHERE al.id IN (SELECT unnest(album_ids)) AND al.published_at > t
    UNION ALL
    -- the groups and members of an artist that becomes visible then (not visible just before)
    SELECT al.id, al.published_at, 'artists', p.partner_id::text, false
    FROM albums al JOIN album_artists aa ON aa.album_id = al.id JOIN feed_artist_partners p ON p.artist_id = aa.artist_id
    WHERE al.id IN (SELECT unnest(album_ids)) AND al.published_at > t
      AND NOT feed_artist_visible_beyond(p.artist_id, '{}', '{}', al.published_at - interval '1 microsecond')) x
  GROUP BY x.due, x.kind, x.row_key, x.id
  HAVING bool_or(x.sure) OR feed_public(x.kind, x.row_key, x.due);
END $$;

-- The same for curated lists (nothing else shows a list).
CREATE OR REPLACE FUNCTION feed_due_lists(list_ids integer[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  IF cardinality(list_ids) = 0 THEN RETURN; END IF;
  PERFORM feed_due_forget(ARRAY(SELECT 'curated_lists:' || x FROM unnest(list_ids) AS u(x)), t);
  INSERT INTO change_due (due_at, kind, row_key, source)
  SELECT published_at, 'curated_lists', id::text, 'curated_lists:' || id
  FROM curated_lists WHERE id IN (SELECT unnest(list_ids)) AND published_at > t;
END $$;

-- Scheduled songs and albums whose due touches name (or could name) these rows: written anew when
-- the rows' visibility or schedule may have moved. The rows' own due touches are not among them:
-- the caller has written those (feed_touch_songs, feed_touch_albums).
CREATE OR REPLACE FUNCTION feed_due_linked(kind text, row_keys text[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  ids integer[];
BEGIN
  IF cardinality(row_keys) = 0 THEN RETURN; END IF;
  IF kind = 'users' THEN
    ids := ARRAY(SELECT c.song_id FROM contributions c JOIN members m ON m.id = c.member_id WHERE m.username IN (SELECT unnest(row_keys))
                 UNION SELECT l.song_id FROM loves l JOIN members m ON m.id = l.member_id WHERE m.username IN (SELECT unnest(row_keys)));
  ELSIF kind = 'songs' THEN
    -- their versions and originals; the scheduled albums holding them and the other tracks of their
    -- albums, whose due touches name the performers of the tracks public then
    ids := ARRAY(SELECT v.song_id FROM song_versions v WHERE v.original_song_id = ANY (row_keys::integer[])
                 UNION SELECT v.original_song_id FROM song_versions v WHERE v.song_id = ANY (row_keys::integer[])
                 UNION SELECT o.song_id FROM album_tracks t JOIN album_tracks o ON o.album_id = t.album_id
                       WHERE t.song_id = ANY (row_keys::integer[])
                 EXCEPT SELECT unnest(row_keys::integer[]));
    PERFORM feed_due_albums(ARRAY(SELECT DISTINCT al.id FROM album_tracks t JOIN albums al ON al.id = t.album_id
                                  WHERE t.song_id = ANY (row_keys::integer[]) AND album_is_scheduled(al.published_at)));
  ELSIF kind = 'albums' THEN
    ids := ARRAY(SELECT t.song_id FROM album_tracks t WHERE t.album_id = ANY (row_keys::integer[]));
  ELSIF kind = 'curated_lists' THEN
    ids := ARRAY(SELECT l.song_id FROM curated_list_songs l WHERE l.list_id = ANY (row_keys::integer[])
                 UNION SELECT t.song_id FROM curated_list_albums l JOIN album_tracks t ON t.album_id = l.album_id
                 WHERE l.list_id = ANY (row_keys::integer[]));
    PERFORM feed_due_albums(ARRAY(SELECT al.id FROM curated_list_albums l JOIN albums al ON al.id = l.album_id
                                  WHERE l.list_id = ANY (row_keys::integer[]) AND album_is_scheduled(al.published_at)));
  ELSE
    RETURN;
  END IF;
  PERFORM feed_due_songs(ARRAY(SELECT s.id FROM songs s WHERE s.id IN (SELECT unnest(ids)) AND song_is_scheduled(s.published_at, s.deleted_at)));
END $$;


-- Artists in groups whose visibility moved now: their groups and members (public now), and the
-- due touches of the scheduled songs crediting them and albums naming them, which name those
-- partners only when the artist is not visible just before their time.
CREATE OR REPLACE FUNCTION feed_grouped_visibility_moved(artist_ids integer[]) RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_custom_plan
  AS $$
BEGIN
  IF cardinality(artist_ids) = 0 THEN RETURN; END IF;
  PERFORM feed_touch_partners(artist_ids);
  PERFORM feed_due_songs(ARRAY(SELECT DISTINCT s.id FROM credits c JOIN songs s ON s.id = c.song_id
                               WHERE c.artist_id IN (SELECT unnest(artist_ids)) AND song_is_scheduled(s.published_at, s.deleted_at)));
  PERFORM feed_due_albums(ARRAY(SELECT DISTINCT al.id FROM album_artists aa JOIN albums al ON al.id = aa.album_id
                                WHERE aa.artist_id IN (SELECT unnest(artist_ids)) AND album_is_scheduled(al.published_at)));
END $$;

-- ---- A song or an album touched with the rows that show it --------------------------------

-- Touches the songs public now or listed in `was_public` and, unless `self_only`, the rows that
-- show them (feed_song_links); writes the due touches of the scheduled ones anew.
CREATE OR REPLACE FUNCTION feed_touch_songs(song_ids integer[], was_public integer[], through_albums boolean, self_only boolean)
RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_custom_plan
  AS $$
DECLARE
  t timestamptz := clock_timestamp();
  seen integer[];
BEGIN
  IF cardinality(song_ids) = 0 THEN RETURN; END IF;
  seen := ARRAY(SELECT x.id FROM (SELECT DISTINCT id FROM unnest(song_ids) AS u(id)) x LEFT JOIN songs s ON s.id = x.id
                WHERE x.id IN (SELECT unnest(was_public)) OR coalesce(song_is_public_at(s.published_at, s.deleted_at, t), false));
  IF cardinality(seen) > 0 THEN
    INSERT INTO change_log (kind, row_key) SELECT 'songs', x::text FROM unnest(seen) AS u(x);
    IF NOT self_only THEN
      INSERT INTO change_log (kind, row_key)
      SELECT r.kind, r.row_key FROM feed_song_links(seen, through_albums, t) r
      GROUP BY r.kind, r.row_key
      HAVING bool_or(r.sure) OR bool_or(r.kind = 'artists' AND r.song_id IN (SELECT unnest(was_public))) OR feed_public(r.kind, r.row_key, t);
    END IF;
  END IF;
  PERFORM feed_due_songs(song_ids);
END $$;

-- The same for albums: the album, the rows that show its entry and, `with_label`, its label.
CREATE OR REPLACE FUNCTION feed_touch_albums(album_ids integer[], was_public integer[], with_label boolean)
RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_custom_plan
  AS $$
DECLARE
  t timestamptz := clock_timestamp();
  seen integer[];
BEGIN
  IF cardinality(album_ids) = 0 THEN RETURN; END IF;
  seen := ARRAY(SELECT x.id FROM (SELECT DISTINCT id FROM unnest(album_ids) AS u(id)) x LEFT JOIN albums al ON al.id = x.id
                WHERE x.id IN (SELECT unnest(was_public)) OR coalesce(album_is_public_at(al.published_at, t), false));
  IF cardinality(seen) > 0 THEN
    INSERT INTO change_log (kind, row_key) SELECT 'albums', x::text FROM unnest(seen) AS u(x);
    INSERT INTO change_log (kind, row_key)
    SELECT r.kind, r.row_key FROM feed_album_links(seen, with_label, t) r
    GROUP BY r.kind, r.row_key
    HAVING bool_or(r.sure) OR bool_or(r.kind = 'artists' AND r.album_id IN (SELECT unnest(was_public))) OR feed_public(r.kind, r.row_key, t);
  END IF;
  PERFORM feed_due_albums(album_ids);
END $$;

-- ---- What other rows' answers show of a row -------------------------------------------------
-- The columns of a song, an album, an artist or a member that another row's answer shows (for a
-- member, also those their own profile shows; for a curated list, which no other row shows, those its
-- own answer shows): a change of one touches the rows that show it, a change of another column the
-- row alone (a list: nothing). Each compares old row `o` with new row `n` (one
-- expression: inlined) and is held to the TypeScript shapes that show those columns by
-- test/feed-columns.test.ts: a field added to a shape and missing here fails it.

-- A song's summary and its entries in lists and albums.
CREATE OR REPLACE FUNCTION feed_song_shown_moved(o songs, n songs) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (o.title, o.slug, o.released_at, o.date_type, o.artwork_key, o.artwork_source, o.artwork_average,
          o.duration_ms, o.vidsvc_video_id, o.vidsvc_duration_seconds, o.vidsvc_views, o.vidsvc_views_per_day,
          o.streama_url, o.streamb_url, o.streama_popularity, o.views)
         IS DISTINCT FROM
         (n.title, n.slug, n.released_at, n.date_type, n.artwork_key, n.artwork_source, n.artwork_average,
          n.duration_ms, n.vidsvc_video_id, n.vidsvc_duration_seconds, n.vidsvc_views, n.vidsvc_views_per_day,
          n.streama_url, n.streamb_url, n.streama_popularity, n.views);

-- An album's entry in lists, and its own detail.
CREATE OR REPLACE FUNCTION feed_album_shown_moved(o albums, n albums) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (o.title, o.slug, o.album_type, o.released_at, o.artwork_key, o.artwork_dominant, o.artwork_average)
         IS DISTINCT FROM (n.title, n.slug, n.album_type, n.released_at, n.artwork_key, n.artwork_dominant, n.artwork_average);

-- An artist in a song's credits.
CREATE OR REPLACE FUNCTION feed_artist_credit_moved(o artists, n artists) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (o.name, o.is_group, o.avatar_key, o.member_id) IS DISTINCT FROM (n.name, n.is_group, n.avatar_key, n.member_id);

-- An artist named in a song summary (a performer) or a songs-list entry (a writer).
CREATE OR REPLACE FUNCTION feed_artist_name_moved(o artists, n artists) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN o.name IS DISTINCT FROM n.name;

-- An artist in an album's entry, and in its groups' and members' answers.
CREATE OR REPLACE FUNCTION feed_artist_entry_moved(o artists, n artists) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (o.name, o.prefix_title, o.is_group, o.avatar_key) IS DISTINCT FROM (n.name, n.prefix_title, n.is_group, n.avatar_key);

-- A curated list's own answer (its detail, and its summary in the lists).
CREATE OR REPLACE FUNCTION feed_curated_list_shown_moved(o curated_lists, n curated_lists) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (o.title, o.description, o.artwork_key, o.artwork_dominant, o.artwork_average, o.updated_at,
          o.show_artists, o.show_writers, o.content_type)
         IS DISTINCT FROM
         (n.title, n.description, n.artwork_key, n.artwork_dominant, n.artwork_average, n.updated_at,
          n.show_artists, n.show_writers, n.content_type);

-- A member's own profile (and whether it is public).
CREATE OR REPLACE FUNCTION feed_member_profile_moved(o members, n members) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (o.username, o.name, o.kind, o.avatar_key, o.is_banned, o.joined_at)
         IS DISTINCT FROM (n.username, n.name, n.kind, n.avatar_key, n.is_banned, n.joined_at);

-- A member shown by songs (contributors) and credits (an artist's member).
CREATE OR REPLACE FUNCTION feed_member_shown_moved(o members, n members) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (o.username, o.name, o.avatar_key, o.is_banned) IS DISTINCT FROM (n.username, n.name, n.avatar_key, n.is_banned);

-- ---- The triggers, a table (or a family of link tables) each --------------------------------

-- songs: a change of visibility or of what others show of a song (its summary, its entry in albums
-- and lists) touches the song and the rows that show it; a change shown on its own paths alone
-- (published_at, lyrics, notes, counters...) the song only; a song neither public now nor before,
-- nothing. The due touches of scheduled ones (and of scheduled songs naming them) are written anew.
CREATE OR REPLACE FUNCTION feed_songs_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  t timestamptz := clock_timestamp();
  moved integer[];
  shown integer[];
  own integer[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM feed_touch_songs(ARRAY(SELECT id FROM new_rows), '{}', true, false);
    PERFORM feed_due_linked('songs', ARRAY(SELECT id::text FROM new_rows));
  ELSIF TG_OP = 'UPDATE' THEN
    -- public before and public now differ
    moved := ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
                   WHERE coalesce(song_is_public_at(o.published_at, o.deleted_at, t), false)
                           <> coalesce(song_is_public_at(n.published_at, n.deleted_at, t), false)
                      OR (o.published_at, o.deleted_at) IS DISTINCT FROM (n.published_at, n.deleted_at)
                         AND NOT coalesce(song_is_public_at(n.published_at, n.deleted_at, t), false));
    shown := ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
                   WHERE n.id NOT IN (SELECT unnest(moved))
                     AND feed_song_shown_moved(o, n));
    own := ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
                 WHERE n.id NOT IN (SELECT unnest(moved)) AND n.id NOT IN (SELECT unnest(shown)));
    PERFORM feed_touch_songs(moved, ARRAY(SELECT o.id FROM old_rows o WHERE song_is_public_at(o.published_at, o.deleted_at, t)), true, false);
    -- artists in groups whose visibility moved with these songs
    PERFORM feed_grouped_visibility_moved(ARRAY(
      SELECT c.artist_id FROM credits c JOIN old_rows o ON o.id = c.song_id JOIN new_rows n ON n.id = o.id
      WHERE c.song_id IN (SELECT unnest(moved)) AND feed_artist_grouped(c.artist_id)
      GROUP BY c.artist_id
      HAVING bool_or(coalesce(song_is_public_at(o.published_at, o.deleted_at, t), false))
               <> bool_or(coalesce(song_is_public_at(n.published_at, n.deleted_at, t), false))
         AND NOT feed_artist_visible_beyond(c.artist_id, moved, '{}', t)));
    PERFORM feed_touch_songs(shown, '{}', false, false);
    -- an album entry shows the latest release date of its public tracks: the public albums where it moved
    PERFORM feed_touch_albums(ARRAY(
      SELECT tr.album_id FROM album_tracks tr JOIN albums al ON al.id = tr.album_id JOIN songs s ON s.id = tr.song_id
      LEFT JOIN old_rows o ON o.id = tr.song_id AND o.id IN (SELECT unnest(shown))
      WHERE tr.album_id IN (SELECT x.album_id FROM album_tracks x JOIN new_rows n ON n.id = x.song_id JOIN old_rows o ON o.id = n.id
                            WHERE n.id IN (SELECT unnest(shown)) AND n.released_at IS DISTINCT FROM o.released_at)
        AND album_is_public_at(al.published_at, t) AND song_is_public_at(s.published_at, s.deleted_at, t)
      GROUP BY tr.album_id
      HAVING max(s.released_at) IS DISTINCT FROM max(CASE WHEN o.id IS NULL THEN s.released_at ELSE o.released_at END)), '{}', false);
    PERFORM feed_touch_songs(own, '{}', false, true);
    PERFORM feed_due_linked('songs', ARRAY(SELECT x::text FROM unnest(moved) AS u(x)));
  ELSE
    PERFORM feed_touch('songs', ARRAY(SELECT id::text FROM old_rows WHERE song_is_public_at(published_at, deleted_at, t)), true);
    DELETE FROM change_due WHERE source IN (SELECT 'songs:' || id FROM old_rows) AND due_at > t;
  END IF;
  RETURN NULL;
END $$;
SELECT attach_after_statement('songs', 'feed_songs', 'feed_songs_trigger');

-- Tables of a song's links: only links of a public song touch anything, and only what they change.
-- A credit: the song, the artists whose roles on it moved, every row that shows the song when its
-- performers moved, the songs-lists holding it when its writers moved; a genre or label: the song and the genre
-- or label; a track: the album, the rows that show its entry and the song's performers (an album
-- that names nobody is listed under them); a contribution: the song and the contributor; a version:
-- each song whose other side is public. The due touches of the scheduled songs among them are
-- written anew, and, for a credit or a track, those of the scheduled albums holding the song and
-- of those albums' scheduled tracks (an album that names nobody is listed under its performers).
CREATE OR REPLACE FUNCTION feed_song_links_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  t timestamptz := clock_timestamp();
  song_ids integer[] := '{}';
  album_ids integer[] := '{}';
  public_ids integer[];
  linked text[] := '{}';
  added text[] := '{}';
  removed text[] := '{}';
  writers_moved integer[];
  entries_moved integer[];
  regrouped integer[];
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN song_ids := ARRAY(SELECT song_id FROM old_rows); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN song_ids := song_ids || ARRAY(SELECT song_id FROM new_rows); END IF;
  IF TG_TABLE_NAME = 'song_versions' THEN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
      song_ids := song_ids || ARRAY(SELECT original_song_id FROM old_rows);
      linked := ARRAY(SELECT o.song_id::text FROM old_rows o JOIN songs s ON s.id = o.original_song_id
                      WHERE song_is_public_at(s.published_at, s.deleted_at, t)
                      UNION SELECT o.original_song_id::text FROM old_rows o JOIN songs s ON s.id = o.song_id
                      WHERE song_is_public_at(s.published_at, s.deleted_at, t));
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
      song_ids := song_ids || ARRAY(SELECT original_song_id FROM new_rows);
      linked := linked || ARRAY(SELECT n.song_id::text FROM new_rows n JOIN songs s ON s.id = n.original_song_id
                                WHERE song_is_public_at(s.published_at, s.deleted_at, t)
                                UNION SELECT n.original_song_id::text FROM new_rows n JOIN songs s ON s.id = n.song_id
                                WHERE song_is_public_at(s.published_at, s.deleted_at, t));
    END IF;
    PERFORM feed_touch('songs', linked, false);
  ELSE
    public_ids := ARRAY(SELECT s.id FROM songs s WHERE s.id IN (SELECT unnest(song_ids)) AND song_is_public_at(s.published_at, s.deleted_at, t));
    IF cardinality(public_ids) > 0 THEN
      IF TG_TABLE_NAME = 'credits' THEN
        -- the credits of these songs after and before the statement, as 'song:position:artist:role' texts
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          removed := ARRAY(SELECT concat_ws(':', song_id, position, artist_id, role_id) FROM old_rows WHERE song_id IN (SELECT unnest(public_ids)));
        END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') THEN
          added := ARRAY(SELECT concat_ws(':', song_id, position, artist_id, role_id) FROM new_rows WHERE song_id IN (SELECT unnest(public_ids)));
        END IF;
        WITH after_c AS (
          SELECT c.song_id, c.position, c.artist_id, c.role_id FROM credits c WHERE c.song_id IN (SELECT unnest(public_ids))
        ), added_c AS (
          SELECT split_part(x, ':', 1)::int AS song_id, split_part(x, ':', 2)::int AS position,
                 split_part(x, ':', 3)::int AS artist_id, split_part(x, ':', 4)::int AS role_id FROM unnest(added) AS u(x)
        ), removed_c AS (
          SELECT split_part(x, ':', 1)::int, split_part(x, ':', 2)::int, split_part(x, ':', 3)::int, split_part(x, ':', 4)::int
          FROM unnest(removed) AS u(x)
        ), sides AS (
          SELECT true AS after, * FROM after_c
          UNION ALL SELECT false, * FROM ((SELECT * FROM after_c EXCEPT ALL SELECT * FROM added_c) UNION ALL SELECT * FROM removed_c) b
        ), held AS (
          SELECT after, song_id, artist_id, array_agg(DISTINCT role_id ORDER BY role_id) AS roles FROM sides GROUP BY after, song_id, artist_id
        ), shown AS (
          SELECT after, song_id, tag, string_agg(artist_id::text, ',' ORDER BY first_position, artist_id) AS names
          FROM (SELECT s.after, s.song_id, r.tag, s.artist_id, min(s.position) AS first_position
                FROM sides s JOIN roles r ON r.id = s.role_id WHERE r.tag IN ('performer', 'writer')
                GROUP BY s.after, s.song_id, r.tag, s.artist_id) x
          GROUP BY after, song_id, tag
        ), entry_tracks AS (
          -- the public tracks of the public albums naming nobody that hold these songs: their entry
          -- shows the tracks' performers, each once, by first track and first credit
          SELECT tr.album_id, tr.position AS track, tr.song_id FROM album_tracks tr
          JOIN albums al ON al.id = tr.album_id JOIN songs s ON s.id = tr.song_id
          WHERE tr.album_id IN (SELECT x.album_id FROM album_tracks x WHERE x.song_id IN (SELECT unnest(public_ids)))
            AND album_is_public_at(al.published_at, t) AND song_is_public_at(s.published_at, s.deleted_at, t)
            AND NOT EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = tr.album_id)
        ), entry_credits AS (
          SELECT v.after, e.album_id, e.track, c.artist_id, c.position, c.role_id
          FROM entry_tracks e JOIN credits c ON c.song_id = e.song_id CROSS JOIN (VALUES (true), (false)) AS v(after)
          WHERE e.song_id NOT IN (SELECT unnest(public_ids))
          UNION ALL SELECT s.after, e.album_id, e.track, s.artist_id, s.position, s.role_id FROM entry_tracks e JOIN sides s ON s.song_id = e.song_id
        ), entries AS (
          SELECT after, album_id, string_agg(artist_id::text, ',' ORDER BY first_track, first_credit, artist_id) AS names
          FROM (SELECT e.after, e.album_id, e.artist_id, min(e.track) AS first_track, min(e.position) AS first_credit
                FROM entry_credits e JOIN roles r ON r.id = e.role_id AND r.tag = 'performer'
                GROUP BY e.after, e.album_id, e.artist_id) x
          GROUP BY after, album_id
        )
        SELECT
          -- an artist shows the roles it holds on each song: touched when those moved
          ARRAY(SELECT DISTINCT coalesce(a.artist_id, b.artist_id)::text
                FROM (SELECT * FROM held WHERE after) a FULL JOIN (SELECT * FROM held WHERE NOT after) b
                  ON b.song_id = a.song_id AND b.artist_id = a.artist_id
                WHERE a.roles IS DISTINCT FROM b.roles),
          -- others show a song's performers (its summary) and a songs-list its writers, each artist
          -- once in credit order: only a song whose list of them moved is touched where it shows
          ARRAY(SELECT p.id FROM unnest(public_ids) AS p(id)
                LEFT JOIN shown a ON a.after AND a.tag = 'performer' AND a.song_id = p.id
                LEFT JOIN shown b ON NOT b.after AND b.tag = 'performer' AND b.song_id = p.id
                WHERE a.names IS DISTINCT FROM b.names),
          ARRAY(SELECT p.id FROM unnest(public_ids) AS p(id)
                LEFT JOIN shown a ON a.after AND a.tag = 'writer' AND a.song_id = p.id
                LEFT JOIN shown b ON NOT b.after AND b.tag = 'writer' AND b.song_id = p.id
                WHERE a.names IS DISTINCT FROM b.names),
          -- an album entry shows its artists: touched where it shows when they moved
          ARRAY(SELECT DISTINCT e.album_id FROM entry_tracks e
                LEFT JOIN entries a ON a.after AND a.album_id = e.album_id
                LEFT JOIN entries b ON NOT b.after AND b.album_id = e.album_id
                WHERE a.names IS DISTINCT FROM b.names),
          -- an artist in a group whose first or last public credit this was: visible or not now
          ARRAY(SELECT h.artist_id FROM held h WHERE feed_artist_grouped(h.artist_id)
                GROUP BY h.artist_id
                HAVING bool_or(h.after) <> bool_or(NOT h.after) AND NOT feed_artist_visible_beyond(h.artist_id, public_ids, '{}', t))
        INTO linked, public_ids, writers_moved, entries_moved, regrouped;
        PERFORM feed_grouped_visibility_moved(regrouped);
        PERFORM feed_touch('curated_lists', ARRAY(
          SELECT l.list_id::text FROM curated_list_songs l JOIN curated_lists cl ON cl.id = l.list_id AND cl.content_type = 'songs'
          WHERE l.song_id IN (SELECT unnest(writers_moved))), false);
        PERFORM feed_touch('songs', ARRAY(SELECT DISTINCT split_part(x, ':', 1) FROM unnest(added || removed) AS u(x)), true);
        PERFORM feed_touch('artists', linked, true);
        PERFORM feed_touch_songs(public_ids, '{}', false, false);
        PERFORM feed_touch_albums(entries_moved, '{}', false);
      ELSIF TG_TABLE_NAME = 'album_tracks' THEN
        -- the tracks of public songs on public albums, as 'album:song' texts
        IF TG_OP IN ('UPDATE', 'DELETE') THEN linked := ARRAY(SELECT album_id || ':' || song_id FROM old_rows WHERE song_id IN (SELECT unnest(public_ids))); END IF;
        IF TG_OP IN ('UPDATE', 'INSERT') THEN linked := linked || ARRAY(SELECT album_id || ':' || song_id FROM new_rows WHERE song_id IN (SELECT unnest(public_ids))); END IF;
        linked := ARRAY(SELECT x FROM unnest(linked) AS u(x) JOIN albums al ON al.id = split_part(x, ':', 1)::int
                        WHERE album_is_public_at(al.published_at, t));
        PERFORM feed_touch_albums(ARRAY(SELECT DISTINCT split_part(x, ':', 1)::int FROM unnest(linked) AS u(x)), '{}', false);
        -- an album that names nobody lists the performers of its public tracks
        PERFORM feed_touch('artists', ARRAY(
          SELECT c.artist_id::text FROM unnest(linked) AS u(x)
          JOIN credits c ON c.song_id = split_part(x, ':', 2)::int JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
          WHERE NOT EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = split_part(x, ':', 1)::int)), false);
      ELSE
        IF TG_TABLE_NAME = 'song_genres' THEN
          IF TG_OP IN ('UPDATE', 'DELETE') THEN linked := ARRAY(SELECT genre_id::text FROM old_rows WHERE song_id IN (SELECT unnest(public_ids))); END IF;
          IF TG_OP IN ('UPDATE', 'INSERT') THEN linked := linked || ARRAY(SELECT genre_id::text FROM new_rows WHERE song_id IN (SELECT unnest(public_ids))); END IF;
          PERFORM feed_touch('genres', linked, false);
        ELSIF TG_TABLE_NAME = 'song_labels' THEN
          IF TG_OP IN ('UPDATE', 'DELETE') THEN linked := ARRAY(SELECT label_id::text FROM old_rows WHERE song_id IN (SELECT unnest(public_ids))); END IF;
          IF TG_OP IN ('UPDATE', 'INSERT') THEN linked := linked || ARRAY(SELECT label_id::text FROM new_rows WHERE song_id IN (SELECT unnest(public_ids))); END IF;
          PERFORM feed_touch('labels', linked, false);
        ELSIF TG_TABLE_NAME = 'contributions' THEN
          IF TG_OP IN ('UPDATE', 'DELETE') THEN
            linked := ARRAY(SELECT m.username FROM old_rows o JOIN members m ON m.id = o.member_id WHERE o.song_id IN (SELECT unnest(public_ids)));
          END IF;
          IF TG_OP IN ('UPDATE', 'INSERT') THEN
            linked := linked || ARRAY(SELECT m.username FROM new_rows n JOIN members m ON m.id = n.member_id WHERE n.song_id IN (SELECT unnest(public_ids)));
          END IF;
          PERFORM feed_touch('users', linked, false);
        END IF;
        PERFORM feed_touch('songs', ARRAY(SELECT x::text FROM unnest(public_ids) AS u(x)), true);
      END IF;
    END IF;
  END IF;
  IF TG_TABLE_NAME IN ('credits', 'album_tracks') THEN
    -- an album that names nobody is listed under the performers of its tracks public then: the due
    -- touches of the album, when scheduled, and of its scheduled tracks name them
    IF TG_TABLE_NAME = 'credits' THEN
      album_ids := ARRAY(SELECT album_id FROM album_tracks WHERE song_id IN (SELECT unnest(song_ids)));
    ELSE
      IF TG_OP IN ('UPDATE', 'DELETE') THEN album_ids := ARRAY(SELECT album_id FROM old_rows); END IF;
      IF TG_OP IN ('UPDATE', 'INSERT') THEN album_ids := album_ids || ARRAY(SELECT album_id FROM new_rows); END IF;
    END IF;
    song_ids := song_ids || ARRAY(SELECT song_id FROM album_tracks WHERE album_id IN (SELECT unnest(album_ids)));
    PERFORM feed_due_albums(ARRAY(SELECT al.id FROM albums al WHERE al.id IN (SELECT unnest(album_ids)) AND album_is_scheduled(al.published_at)));
  END IF;
  PERFORM feed_due_songs(ARRAY(SELECT s.id FROM songs s WHERE s.id IN (SELECT unnest(song_ids)) AND song_is_scheduled(s.published_at, s.deleted_at)));
  RETURN NULL;
END $$;
SELECT attach_after_statement('album_tracks', 'feed_album_tracks', 'feed_song_links_trigger');
SELECT attach_after_statement('contributions', 'feed_contributions', 'feed_song_links_trigger');
SELECT attach_after_statement('credits', 'feed_credits', 'feed_song_links_trigger');
SELECT attach_after_statement('song_genres', 'feed_song_genres', 'feed_song_links_trigger');
SELECT attach_after_statement('song_labels', 'feed_song_labels', 'feed_song_links_trigger');
SELECT attach_after_statement('song_versions', 'feed_song_versions', 'feed_song_links_trigger');

-- albums: a change of visibility touches the album, the rows that show its entry and its label;
-- a change of what it shows, the album and those rows; a new label, the old and new one (album_count).
CREATE OR REPLACE FUNCTION feed_albums_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  t timestamptz := clock_timestamp();
  moved integer[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM feed_touch_albums(ARRAY(SELECT id FROM new_rows), '{}', true);
    PERFORM feed_due_linked('albums', ARRAY(SELECT id::text FROM new_rows));
  ELSIF TG_OP = 'UPDATE' THEN
    moved := ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
                   WHERE coalesce(album_is_public_at(o.published_at, t), false) <> coalesce(album_is_public_at(n.published_at, t), false)
                      OR o.published_at IS DISTINCT FROM n.published_at AND NOT coalesce(album_is_public_at(n.published_at, t), false));
    PERFORM feed_touch('labels', ARRAY(
      SELECT x.label_id::text FROM old_rows o JOIN new_rows n ON n.id = o.id,
        LATERAL (VALUES (o.label_id, album_is_public_at(o.published_at, t)), (n.label_id, album_is_public_at(n.published_at, t))) AS x(label_id, seen)
      WHERE o.label_id IS DISTINCT FROM n.label_id AND x.seen AND o.id NOT IN (SELECT unnest(moved))), true);
    PERFORM feed_touch_albums(moved, ARRAY(SELECT o.id FROM old_rows o WHERE album_is_public_at(o.published_at, t)), true);
    -- artists in groups whose visibility moved with these albums
    PERFORM feed_grouped_visibility_moved(ARRAY(
      SELECT aa.artist_id FROM album_artists aa JOIN old_rows o ON o.id = aa.album_id JOIN new_rows n ON n.id = o.id
      WHERE aa.album_id IN (SELECT unnest(moved)) AND feed_artist_grouped(aa.artist_id)
      GROUP BY aa.artist_id
      HAVING bool_or(coalesce(album_is_public_at(o.published_at, t), false)) <> bool_or(coalesce(album_is_public_at(n.published_at, t), false))
         AND NOT feed_artist_visible_beyond(aa.artist_id, '{}', moved, t)));
    PERFORM feed_touch_albums(
      ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
            WHERE n.id NOT IN (SELECT unnest(moved))
              AND feed_album_shown_moved(o, n)),
      '{}', false);
    PERFORM feed_due_linked('albums', ARRAY(SELECT x::text FROM unnest(moved) AS u(x)));
  ELSE
    PERFORM feed_touch('albums', ARRAY(SELECT id::text FROM old_rows WHERE album_is_public_at(published_at, t)), true);
    PERFORM feed_touch('labels', ARRAY(SELECT label_id::text FROM old_rows WHERE album_is_public_at(published_at, t)), true);
    DELETE FROM change_due WHERE source IN (SELECT 'albums:' || id FROM old_rows) AND due_at > t;
  END IF;
  RETURN NULL;
END $$;
SELECT attach_after_statement('albums', 'feed_albums', 'feed_albums_trigger');

-- album_artists: the artists it names and the album's entry, when the album is public (an album that
-- names nobody is listed under the performers of its public tracks); the due touches of the album,
-- when scheduled, and of its scheduled tracks.
CREATE OR REPLACE FUNCTION feed_album_artists_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  t timestamptz := clock_timestamp();
  album_ids integer[] := '{}';
  public_ids integer[];
  named_before integer[] := '{}';
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN album_ids := ARRAY(SELECT album_id FROM old_rows); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN album_ids := album_ids || ARRAY(SELECT album_id FROM new_rows); END IF;
  public_ids := ARRAY(SELECT al.id FROM albums al WHERE al.id IN (SELECT unnest(album_ids)) AND album_is_public_at(al.published_at, t));
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    PERFORM feed_touch('artists', ARRAY(SELECT artist_id::text FROM old_rows WHERE album_id IN (SELECT unnest(public_ids))), true);
    -- an album that names nobody now is listed under its tracks' performers
    PERFORM feed_touch('artists', ARRAY(
      SELECT c.artist_id::text FROM album_tracks tr JOIN songs s ON s.id = tr.song_id
      JOIN credits c ON c.song_id = tr.song_id JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
      WHERE tr.album_id IN (SELECT unnest(public_ids)) AND song_is_public_at(s.published_at, s.deleted_at, t)
        AND NOT EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = tr.album_id)), false);
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    -- an album that named nobody before was listed under its tracks' performers
    PERFORM feed_touch('artists', ARRAY(
      SELECT c.artist_id::text FROM album_tracks tr JOIN songs s ON s.id = tr.song_id
      JOIN credits c ON c.song_id = tr.song_id JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
      WHERE tr.album_id IN (SELECT unnest(public_ids)) AND song_is_public_at(s.published_at, s.deleted_at, t)
        AND NOT EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = tr.album_id
                          AND (aa.album_id, aa.position) NOT IN (SELECT album_id, position FROM new_rows))), true);
  END IF;
  PERFORM feed_touch_albums(public_ids, '{}', false);
  -- artists in groups named by a public album before or after, not both, and visible through nothing else
  IF TG_OP IN ('UPDATE', 'DELETE') THEN named_before := ARRAY(SELECT artist_id FROM old_rows WHERE album_id IN (SELECT unnest(public_ids))); END IF;
  IF TG_OP = 'DELETE' THEN
    named_before := named_before || ARRAY(SELECT artist_id FROM album_artists WHERE album_id IN (SELECT unnest(public_ids)));
  ELSE
    named_before := named_before || ARRAY(SELECT aa.artist_id FROM album_artists aa WHERE aa.album_id IN (SELECT unnest(public_ids))
                                          AND (aa.album_id, aa.position) NOT IN (SELECT album_id, position FROM new_rows));
  END IF;
  PERFORM feed_grouped_visibility_moved(ARRAY(
    SELECT x.artist_id FROM (SELECT a AS artist_id, false AS after FROM unnest(named_before) AS u(a)
                             UNION ALL SELECT aa.artist_id, true FROM album_artists aa WHERE aa.album_id IN (SELECT unnest(public_ids))) x
    WHERE feed_artist_grouped(x.artist_id)
    GROUP BY x.artist_id
    HAVING bool_or(x.after) <> bool_or(NOT x.after) AND NOT feed_artist_visible_beyond(x.artist_id, '{}', public_ids, t)));
  PERFORM feed_due_albums(ARRAY(SELECT al.id FROM albums al WHERE al.id IN (SELECT unnest(album_ids)) AND album_is_scheduled(al.published_at)));
  -- a scheduled track's due touches name the artists that show its album's entry then
  PERFORM feed_due_linked('albums', ARRAY(SELECT x::text FROM unnest(album_ids) AS u(x)));
  RETURN NULL;
END $$;
SELECT attach_after_statement('album_artists', 'feed_album_artists', 'feed_album_artists_trigger');

-- artists: the artist when public; a change of what others show of it touches what shows it, each
-- only for the fields it shows: a song's credits (name, is_group, avatar, member), a song summary
-- (a performer's name) and a songs-list entry (a writer's name); an album's artists, shown in its
-- entry (name, prefix_title, is_group, avatar: named, or performing a public track of an album that
-- names nobody), and a visible artist's groups and members. A public song or album credits only
-- visible artists, and feed_touch leaves out rows that are not public.
CREATE OR REPLACE FUNCTION feed_artists_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  t timestamptz := clock_timestamp();
  artist_ids integer[] := '{}';
  credited integer[];
  named integer[];
  pictured integer[];
  performed integer[];
BEGIN
  IF TG_OP = 'DELETE' THEN artist_ids := ARRAY(SELECT id FROM old_rows);
  ELSE artist_ids := ARRAY(SELECT id FROM new_rows);
  END IF;
  PERFORM feed_touch('artists', ARRAY(SELECT x::text FROM unnest(artist_ids) AS u(x)), false);
  IF TG_OP = 'UPDATE' THEN
    credited := ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
                      WHERE feed_artist_credit_moved(o, n));
    named := ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE feed_artist_name_moved(o, n));
    pictured := ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
                      WHERE feed_artist_entry_moved(o, n));
    IF cardinality(credited) > 0 THEN
      performed := ARRAY(SELECT DISTINCT c.song_id FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
                         WHERE c.artist_id IN (SELECT unnest(named)));
      PERFORM feed_touch_songs(performed, '{}', false, false);
      PERFORM feed_touch_songs(ARRAY(SELECT DISTINCT song_id FROM credits WHERE artist_id IN (SELECT unnest(credited))
                                     EXCEPT SELECT unnest(performed)), '{}', false, true);
      PERFORM feed_touch('curated_lists', ARRAY(
        SELECT l.list_id::text FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = 'writer'
        JOIN curated_list_songs l ON l.song_id = c.song_id JOIN curated_lists cl ON cl.id = l.list_id AND cl.content_type = 'songs'
        JOIN songs s ON s.id = c.song_id
        WHERE c.artist_id IN (SELECT unnest(named)) AND song_is_public_at(s.published_at, s.deleted_at, t)
        -- the lists already touched as showing a public song it performs (not a hidden one's)
        EXCEPT SELECT r.row_key FROM feed_song_links(ARRAY(
                 SELECT s.id FROM songs s WHERE s.id IN (SELECT unnest(performed)) AND song_is_public_at(s.published_at, s.deleted_at, t)
               ), false, t) r WHERE r.kind = 'curated_lists'), false);
    END IF;
    IF cardinality(pictured) > 0 THEN
      PERFORM feed_touch_albums(ARRAY(
        SELECT album_id FROM album_artists WHERE artist_id IN (SELECT unnest(pictured))
        UNION SELECT tr.album_id FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
              JOIN songs s ON s.id = c.song_id JOIN album_tracks tr ON tr.song_id = c.song_id
              WHERE c.artist_id IN (SELECT unnest(pictured)) AND song_is_public_at(s.published_at, s.deleted_at, t)
                AND NOT EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = tr.album_id)), '{}', false);
      PERFORM feed_touch_partners(ARRAY(SELECT a FROM unnest(pictured) AS u(a) WHERE feed_public('artists', a::text, t)));
    END IF;
  END IF;
  RETURN NULL;
END $$;
SELECT attach_after_statement('artists', 'feed_artists', 'feed_artists_trigger');

-- artist_memberships: the group, when the member is visible (a group shows its visible members),
-- and the member, when the group is visible; the due touches of their scheduled songs and albums.
CREATE OR REPLACE FUNCTION feed_artist_memberships_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  t timestamptz := clock_timestamp();
  pairs integer[] := '{}';
BEGIN
  -- the memberships before and after, as [group, member] rows of a 2-d array
  IF TG_OP IN ('UPDATE', 'DELETE') THEN pairs := ARRAY(SELECT ARRAY[group_id, member_id] FROM old_rows); END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN pairs := pairs || ARRAY(SELECT ARRAY[group_id, member_id] FROM new_rows); END IF;
  PERFORM feed_touch('artists', ARRAY(
    SELECT CASE WHEN side = 1 THEN pairs[i][1] ELSE pairs[i][2] END::text
    FROM generate_subscripts(pairs, 1) AS i, (VALUES (1), (2)) AS v(side)
    WHERE feed_public('artists', (CASE WHEN side = 1 THEN pairs[i][2] ELSE pairs[i][1] END)::text, t)), false);
  -- a scheduled song or album of theirs names the partners whose artist becomes visible at its time
  PERFORM feed_due_songs(ARRAY(
    SELECT DISTINCT c.song_id FROM credits c JOIN songs s ON s.id = c.song_id
    WHERE c.artist_id IN (SELECT unnest(pairs)) AND song_is_scheduled(s.published_at, s.deleted_at)));
  PERFORM feed_due_albums(ARRAY(
    SELECT DISTINCT al.id FROM album_artists aa JOIN albums al ON al.id = aa.album_id
    WHERE aa.artist_id IN (SELECT unnest(pairs)) AND album_is_scheduled(al.published_at)));
  RETURN NULL;
END $$;
SELECT attach_after_statement('artist_memberships', 'feed_artist_memberships', 'feed_artist_memberships_trigger');

-- curated_lists: the list when it is public now or was before and its visibility or what it shows
-- moved (a new `published_at` of a list public before and after shows nothing); its due touch when
-- scheduled; the scheduled songs and albums on it, whose due touches name it if it is public by then.
CREATE OR REPLACE FUNCTION feed_curated_lists_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM feed_touch('curated_lists', ARRAY(SELECT id::text FROM old_rows WHERE curated_list_is_public_at(published_at, t)), true);
    DELETE FROM change_due WHERE source IN (SELECT 'curated_lists:' || id FROM old_rows) AND due_at > t;
  ELSE
    IF TG_OP = 'INSERT' THEN
      PERFORM feed_touch('curated_lists', ARRAY(SELECT id::text FROM new_rows), false);
    ELSE
      PERFORM feed_touch('curated_lists', ARRAY(
        SELECT n.id::text FROM new_rows n JOIN old_rows o ON o.id = n.id,
          LATERAL (SELECT coalesce(curated_list_is_public_at(o.published_at, t), false) AS before,
                          coalesce(curated_list_is_public_at(n.published_at, t), false) AS after) v
        WHERE (v.before OR v.after) AND (v.before <> v.after OR feed_curated_list_shown_moved(o, n))), true);
    END IF;
    PERFORM feed_due_lists(ARRAY(SELECT id FROM new_rows));
    PERFORM feed_due_linked('curated_lists', ARRAY(SELECT id::text FROM new_rows));
  END IF;
  RETURN NULL;
END $$;
SELECT attach_after_statement('curated_lists', 'feed_curated_lists', 'feed_curated_lists_trigger');

-- curated_list_songs, curated_list_albums: the list, when the song or album on the entry is public;
-- the due touches of a scheduled song or album on the entry (and of an album's scheduled tracks).
CREATE OR REPLACE FUNCTION feed_list_entries_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  t timestamptz := clock_timestamp();
  list_ids text[] := '{}';
  song_ids integer[] := '{}';
  album_ids integer[] := '{}';
BEGIN
  IF TG_TABLE_NAME = 'curated_list_songs' THEN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
      song_ids := ARRAY(SELECT song_id FROM old_rows);
      list_ids := ARRAY(SELECT o.list_id::text FROM old_rows o JOIN songs s ON s.id = o.song_id WHERE song_is_public_at(s.published_at, s.deleted_at, t));
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
      song_ids := song_ids || ARRAY(SELECT song_id FROM new_rows);
      list_ids := list_ids || ARRAY(SELECT n.list_id::text FROM new_rows n JOIN songs s ON s.id = n.song_id WHERE song_is_public_at(s.published_at, s.deleted_at, t));
    END IF;
  ELSE
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
      album_ids := ARRAY(SELECT album_id FROM old_rows);
      list_ids := ARRAY(SELECT o.list_id::text FROM old_rows o JOIN albums al ON al.id = o.album_id WHERE album_is_public_at(al.published_at, t));
    END IF;
    IF TG_OP IN ('UPDATE', 'INSERT') THEN
      album_ids := album_ids || ARRAY(SELECT album_id FROM new_rows);
      list_ids := list_ids || ARRAY(SELECT n.list_id::text FROM new_rows n JOIN albums al ON al.id = n.album_id WHERE album_is_public_at(al.published_at, t));
    END IF;
    song_ids := ARRAY(SELECT song_id FROM album_tracks WHERE album_id IN (SELECT unnest(album_ids)));
  END IF;
  -- a list shows only the entries of its content type
  PERFORM feed_touch('curated_lists', ARRAY(
    SELECT id::text FROM curated_lists WHERE id::text IN (SELECT unnest(list_ids))
      AND content_type = CASE TG_TABLE_NAME WHEN 'curated_list_songs' THEN 'songs' ELSE 'albums' END), false);
  PERFORM feed_due_songs(ARRAY(SELECT s.id FROM songs s WHERE s.id IN (SELECT unnest(song_ids)) AND song_is_scheduled(s.published_at, s.deleted_at)));
  PERFORM feed_due_albums(ARRAY(SELECT al.id FROM albums al WHERE al.id IN (SELECT unnest(album_ids)) AND album_is_scheduled(al.published_at)));
  RETURN NULL;
END $$;
SELECT attach_after_statement('curated_list_albums', 'feed_curated_list_albums', 'feed_list_entries_trigger');
SELECT attach_after_statement('curated_list_songs', 'feed_curated_list_songs', 'feed_list_entries_trigger');

-- genres and labels are always public; a renamed one touches the songs that show it (a song's detail
-- shows its genres and labels; an album's answer shows no label).
CREATE OR REPLACE FUNCTION feed_genres_labels_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  ids integer[] := '{}';
  kind text := TG_TABLE_NAME;
BEGIN
  IF TG_OP = 'DELETE' THEN ids := ARRAY(SELECT id FROM old_rows);
  ELSE ids := ARRAY(SELECT id FROM new_rows);
  END IF;
  PERFORM feed_touch(kind, ARRAY(SELECT x::text FROM unnest(ids) AS u(x)), true);
  IF TG_OP = 'UPDATE' THEN
    IF kind = 'genres' THEN
      PERFORM feed_touch('songs', ARRAY(SELECT DISTINCT song_id::text FROM song_genres WHERE genre_id IN (SELECT unnest(ids))), false);
    ELSE
      PERFORM feed_touch('songs', ARRAY(SELECT DISTINCT song_id::text FROM song_labels WHERE label_id IN (SELECT unnest(ids))), false);
    END IF;
  END IF;
  RETURN NULL;
END $$;
SELECT attach_after_statement('genres', 'feed_genres', 'feed_genres_labels_trigger');
SELECT attach_after_statement('labels', 'feed_labels', 'feed_genres_labels_trigger');

-- loves: the song's love count and the member's loves, when both the song and the member are public.
CREATE OR REPLACE FUNCTION feed_loves_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  t timestamptz := clock_timestamp();
  song_ids integer[] := '{}';
  shown text[] := '{}';
BEGIN
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    song_ids := ARRAY(SELECT song_id FROM old_rows);
    shown := ARRAY(SELECT o.song_id || ':' || m.username FROM old_rows o JOIN songs s ON s.id = o.song_id JOIN members m ON m.id = o.member_id
                   WHERE song_is_public_at(s.published_at, s.deleted_at, t) AND member_is_public(m.username, m.is_banned));
  END IF;
  IF TG_OP IN ('UPDATE', 'INSERT') THEN
    song_ids := song_ids || ARRAY(SELECT song_id FROM new_rows);
    shown := shown || ARRAY(SELECT n.song_id || ':' || m.username FROM new_rows n JOIN songs s ON s.id = n.song_id JOIN members m ON m.id = n.member_id
                            WHERE song_is_public_at(s.published_at, s.deleted_at, t) AND member_is_public(m.username, m.is_banned));
  END IF;
  PERFORM feed_touch('songs', ARRAY(SELECT split_part(x, ':', 1) FROM unnest(shown) AS u(x)), true);
  PERFORM feed_touch('users', ARRAY(SELECT substr(x, strpos(x, ':') + 1) FROM unnest(shown) AS u(x)), true);
  PERFORM feed_due_songs(ARRAY(SELECT s.id FROM songs s WHERE s.id IN (SELECT unnest(song_ids)) AND song_is_scheduled(s.published_at, s.deleted_at)));
  RETURN NULL;
END $$;
SELECT attach_after_statement('loves', 'feed_loves', 'feed_loves_trigger');

-- members: a profile is keyed by its handle, so a new handle is the old one removed and the new
-- one added; a ban or a new handle also changes how their contributions show, and the artists
-- linked to them; the scheduled songs they contributed to or love name them at their time if public.
CREATE OR REPLACE FUNCTION feed_members_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  changed integer[];
  member_ids integer[];
BEGIN
  IF TG_OP = 'DELETE' THEN
    PERFORM feed_touch('users', ARRAY(SELECT username FROM old_rows WHERE member_is_public(username, is_banned)), true);
  ELSIF TG_OP = 'INSERT' THEN
    PERFORM feed_touch('users', ARRAY(SELECT username FROM new_rows), false);
  ELSE
    -- what a profile shows, and what others show of it
    changed := ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
                     WHERE feed_member_profile_moved(o, n));
    IF cardinality(changed) = 0 THEN RETURN NULL; END IF;
    PERFORM feed_touch('users', ARRAY(SELECT username FROM old_rows WHERE id IN (SELECT unnest(changed)) AND member_is_public(username, is_banned)), true);
    PERFORM feed_touch('users', ARRAY(SELECT username FROM new_rows WHERE id IN (SELECT unnest(changed))), false);
    member_ids := ARRAY(SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
                        WHERE feed_member_shown_moved(o, n)
                          -- a member not public before nor after shows nowhere
                          AND (member_is_public(o.username, o.is_banned) OR member_is_public(n.username, n.is_banned)));
    IF cardinality(member_ids) > 0 THEN
      -- song contributors show the member; song credits show the username of an artist's member
      PERFORM feed_touch('songs', ARRAY(SELECT song_id::text FROM contributions WHERE member_id IN (SELECT unnest(member_ids))
                                        UNION SELECT c.song_id::text FROM credits c JOIN artists a ON a.id = c.artist_id
                                        WHERE a.member_id IN (SELECT unnest(member_ids))), false);
      -- a song's love count counts public members
      PERFORM feed_touch('songs', ARRAY(
        SELECT l.song_id::text FROM loves l JOIN old_rows o ON o.id = l.member_id JOIN new_rows n ON n.id = o.id
        WHERE member_is_public(o.username, o.is_banned) <> member_is_public(n.username, n.is_banned)), false);
      PERFORM feed_touch('artists', ARRAY(SELECT id::text FROM artists WHERE member_id IN (SELECT unnest(member_ids))), false);
      PERFORM feed_due_linked('users', ARRAY(SELECT username FROM new_rows WHERE id IN (SELECT unnest(member_ids)) AND username IS NOT NULL
                                             UNION SELECT username FROM old_rows WHERE id IN (SELECT unnest(member_ids)) AND username IS NOT NULL));
    END IF;
  END IF;
  RETURN NULL;
END $$;
SELECT attach_after_statement('members', 'feed_members', 'feed_members_trigger');

-- ---- The feed's first entries ------------------------------------------------------------

-- Touches every public row, and writes the due touches of every scheduled one: the feed's first
-- entries, and again after a bulk load that ran with the feed triggers off (the seed).
CREATE OR REPLACE FUNCTION feed_backfill() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  t timestamptz := clock_timestamp();
BEGIN
  INSERT INTO change_log (kind, row_key, at)
  SELECT 'genres', id::text, t FROM genres
  UNION ALL SELECT 'labels', id::text, t FROM labels
  UNION ALL SELECT 'users', username, t FROM members WHERE member_is_public(username, is_banned)
  UNION ALL SELECT 'songs', id::text, t FROM songs WHERE song_is_public_at(published_at, deleted_at, t)
  UNION ALL SELECT 'albums', id::text, t FROM albums WHERE album_is_public_at(published_at, t)
  UNION ALL SELECT 'curated_lists', id::text, t FROM curated_lists WHERE curated_list_is_public_at(published_at, t)
  UNION ALL SELECT 'artists', a.id::text, t FROM artists a
    WHERE EXISTS (SELECT 1 FROM credits c JOIN songs s ON s.id = c.song_id
                  WHERE c.artist_id = a.id AND song_is_public_at(s.published_at, s.deleted_at, t))
       OR EXISTS (SELECT 1 FROM album_artists aa JOIN albums al ON al.id = aa.album_id
                  WHERE aa.artist_id = a.id AND album_is_public_at(al.published_at, t));

  PERFORM feed_due_songs(ARRAY(SELECT id FROM songs WHERE song_is_live(published_at, deleted_at) AND published_at > t));
  PERFORM feed_due_albums(ARRAY(SELECT id FROM albums WHERE published_at > t));
  PERFORM feed_due_lists(ARRAY(SELECT id FROM curated_lists WHERE published_at > t));
END $$;

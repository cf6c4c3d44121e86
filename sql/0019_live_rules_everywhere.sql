-- Every view and function that spelled a visibility rule out now calls the rules of
-- sql/0014_live_rules.sql (docs/query-plans.md, "Live and public"). Bodies are unchanged but for
-- that: same columns, counts and plans. The partial indexes of earlier migrations keep their
-- written-out predicates: the rules inline to the same expressions, so they still match, and
-- rebuilding them would read the whole catalogue for nothing. One change of shape, at the end:
-- the four count triggers an UPDATE of songs fired are one.
--
-- The rules this file adds: the same rules at a given time (the change feed asks "public at t";
-- 0014's song_is_public and album_is_public now call them with now()), curated lists' rule,
-- "scheduled" (live, not yet public) and "due" (a scheduled_song_links row whose time has come).
-- test/live-rules.test.ts fails when a view or function outside the rules spells one out.

CREATE FUNCTION song_is_public_at(published_at timestamptz, deleted_at timestamptz, at timestamptz) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN published_at <= at AND deleted_at IS NULL;

CREATE OR REPLACE FUNCTION song_is_public(published_at timestamptz, deleted_at timestamptz) RETURNS boolean
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN song_is_public_at(published_at, deleted_at, now());

CREATE FUNCTION album_is_public_at(published_at timestamptz, at timestamptz) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN published_at <= at;

CREATE OR REPLACE FUNCTION album_is_public(published_at timestamptz) RETURNS boolean
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN album_is_public_at(published_at, now());

-- A curated list is public as an album is: once its published_at has passed.
CREATE FUNCTION curated_list_is_public_at(published_at timestamptz, at timestamptz) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN album_is_public_at(published_at, at);

CREATE FUNCTION curated_list_is_live(published_at timestamptz) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN album_is_live(published_at);

CREATE FUNCTION curated_list_is_public(published_at timestamptz) RETURNS boolean
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN curated_list_is_public_at(published_at, now());

-- Scheduled: live, and published_at still ahead (songs_scheduled_idx, albums_scheduled_idx).
CREATE FUNCTION song_is_scheduled(published_at timestamptz, deleted_at timestamptz) RETURNS boolean
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN song_is_live(published_at, deleted_at) AND published_at > now();

CREATE FUNCTION album_is_scheduled(published_at timestamptz) RETURNS boolean
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN album_is_live(published_at) AND published_at > now();

-- A scheduled_song_links row is due once its song's published_at has passed (sql/0008).
CREATE FUNCTION scheduled_link_is_due(published_at timestamptz) RETURNS boolean
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN published_at <= now();

-- sql/0001 and 0004: what the public may see.
CREATE OR REPLACE VIEW public_songs AS
  SELECT * FROM songs WHERE song_is_public(published_at, deleted_at);
CREATE OR REPLACE VIEW public_albums AS
  SELECT * FROM albums WHERE album_is_public(published_at);
CREATE OR REPLACE VIEW public_curated_lists AS
  SELECT * FROM curated_lists WHERE curated_list_is_public(published_at);
CREATE OR REPLACE VIEW public_members AS
  SELECT * FROM members WHERE member_is_public(username, is_banned);

-- sql/0003, 0006, 0008, 0009: the scheduled and due rows the public counts subtract or add.
CREATE OR REPLACE VIEW scheduled_songs AS
  SELECT s.id FROM songs s WHERE song_is_scheduled(s.published_at, s.deleted_at);
CREATE OR REPLACE VIEW scheduled_albums AS
  SELECT al.id, al.album_type FROM albums al WHERE album_is_scheduled(al.published_at);
CREATE OR REPLACE VIEW scheduled_song_links_now AS
  SELECT * FROM scheduled_song_links WHERE NOT scheduled_link_is_due(published_at);
CREATE OR REPLACE VIEW due_artist_songs AS
  SELECT a.artist_id, count(DISTINCT l.song_id) AS songs
  FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.artist_ids) AS a(artist_id)
  WHERE scheduled_link_is_due(l.published_at)
  GROUP BY a.artist_id;
CREATE OR REPLACE VIEW due_member_contributions AS
  SELECT x.member_id, count(*) AS contributions
  FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.member_ids) AS x(member_id)
  WHERE scheduled_link_is_due(l.published_at)
  GROUP BY x.member_id;

CREATE OR REPLACE VIEW scheduled_only_contributors AS
  SELECT sch.member_id
  FROM (
    SELECT x.member_id, count(*) AS n FROM scheduled_song_links_now s CROSS JOIN LATERAL unnest(s.member_ids) AS x(member_id)
    GROUP BY x.member_id
  ) sch
  CROSS JOIN LATERAL (
    SELECT 1 FROM member_contribution_counts mc JOIN members m ON m.id = mc.member_id
    WHERE mc.member_id = sch.member_id AND mc.live > 0 AND mc.live <= sch.n
      AND member_is_public(m.username, m.is_banned)
    OFFSET 0) hidden;

CREATE OR REPLACE VIEW public_catalogue_totals AS
  SELECT
    cc.live_songs - (SELECT count(*) FROM scheduled_song_links_now) AS songs,
    cc.live_credits - (SELECT coalesce(sum(cardinality(artist_ids)), 0) FROM scheduled_song_links_now) AS credits,
    visible_artist_count() AS artists,
    (SELECT with_settled FROM public_member_total)
      + (SELECT count(*) FROM due_member_contributions d JOIN members m ON m.id = d.member_id
         WHERE member_is_public(m.username, m.is_banned)
           AND NOT EXISTS (SELECT 1 FROM member_settled_contributions mc WHERE mc.member_id = d.member_id AND mc.settled > 0))
      AS contributors
  FROM catalogue_counts cc;

CREATE OR REPLACE FUNCTION public_artist_song_count(artist integer) RETURNS bigint LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT coalesce((SELECT settled_songs FROM artist_song_counts WHERE artist_id = artist), 0)
       + (SELECT count(*) FROM scheduled_song_links l WHERE scheduled_link_is_due(l.published_at) AND artist = ANY (l.artist_ids))
$$;

-- Functions of sql/0003, calling the rules.

CREATE OR REPLACE FUNCTION recount_public_counts() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM member_contribution_counts;
  INSERT INTO member_contribution_counts (member_id, live)
  SELECT c.member_id, count(*) FROM contributions c JOIN songs s ON s.id = c.song_id
  WHERE song_is_live(s.published_at, s.deleted_at) GROUP BY c.member_id;

  DELETE FROM label_counts;
  INSERT INTO label_counts (label_id, live_songs, live_albums)
  SELECT l.id,
    (SELECT count(*) FROM song_labels sl JOIN songs s ON s.id = sl.song_id
     WHERE sl.label_id = l.id AND song_is_live(s.published_at, s.deleted_at)),
    (SELECT count(*) FROM albums a WHERE a.label_id = l.id AND album_is_live(a.published_at))
  FROM labels l;

  DELETE FROM genre_counts;
  INSERT INTO genre_counts (genre_id, live_songs)
  SELECT sg.genre_id, count(*) FROM song_genres sg JOIN songs s ON s.id = sg.song_id
  WHERE song_is_live(s.published_at, s.deleted_at) GROUP BY sg.genre_id;
END $$;

CREATE OR REPLACE FUNCTION contributions_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO member_contribution_counts AS t (member_id, live)
    SELECT c.member_id, -count(*) FROM old_rows c JOIN songs s ON s.id = c.song_id
    WHERE song_is_live(s.published_at, s.deleted_at) GROUP BY c.member_id
    ON CONFLICT (member_id) DO UPDATE SET live = t.live + excluded.live;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO member_contribution_counts AS t (member_id, live)
    SELECT c.member_id, count(*) FROM new_rows c JOIN songs s ON s.id = c.song_id
    WHERE song_is_live(s.published_at, s.deleted_at) GROUP BY c.member_id
    ON CONFLICT (member_id) DO UPDATE SET live = t.live + excluded.live;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION song_labels_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO label_counts AS t (label_id, live_songs)
    SELECT x.label_id, -count(*) FROM old_rows x JOIN songs s ON s.id = x.song_id
    WHERE song_is_live(s.published_at, s.deleted_at) GROUP BY x.label_id
    ON CONFLICT (label_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO label_counts AS t (label_id, live_songs)
    SELECT x.label_id, count(*) FROM new_rows x JOIN songs s ON s.id = x.song_id
    WHERE song_is_live(s.published_at, s.deleted_at) GROUP BY x.label_id
    ON CONFLICT (label_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION song_genres_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO genre_counts AS t (genre_id, live_songs)
    SELECT x.genre_id, -count(*) FROM old_rows x JOIN songs s ON s.id = x.song_id
    WHERE song_is_live(s.published_at, s.deleted_at) GROUP BY x.genre_id
    ON CONFLICT (genre_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO genre_counts AS t (genre_id, live_songs)
    SELECT x.genre_id, count(*) FROM new_rows x JOIN songs s ON s.id = x.song_id
    WHERE song_is_live(s.published_at, s.deleted_at) GROUP BY x.genre_id
    ON CONFLICT (genre_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION albums_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO label_counts AS t (label_id, live_albums)
    SELECT a.label_id, -count(*) FROM old_rows a
    WHERE a.label_id IS NOT NULL AND album_is_live(a.published_at) GROUP BY a.label_id
    ON CONFLICT (label_id) DO UPDATE SET live_albums = t.live_albums + excluded.live_albums;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO label_counts AS t (label_id, live_albums)
    SELECT a.label_id, count(*) FROM new_rows a
    WHERE a.label_id IS NOT NULL AND album_is_live(a.published_at) GROUP BY a.label_id
    ON CONFLICT (label_id) DO UPDATE SET live_albums = t.live_albums + excluded.live_albums;
  END IF;
  RETURN NULL;
END $$;


-- Functions of sql/0006, calling the rules.

CREATE OR REPLACE FUNCTION refresh_scheduled_song_links(song_ids integer[]) RETURNS void LANGUAGE sql AS $$
  DELETE FROM scheduled_song_links WHERE song_id = ANY (song_ids) OR scheduled_link_is_due(published_at);
  INSERT INTO scheduled_song_links (song_id, published_at, released_at, artist_ids, member_ids, genre_ids, label_ids)
  SELECT s.id, s.published_at, s.released_at,
    ARRAY(SELECT c.artist_id FROM credits c WHERE c.song_id = s.id ORDER BY c.position),
    ARRAY(SELECT c.member_id FROM contributions c WHERE c.song_id = s.id),
    ARRAY(SELECT x.genre_id FROM song_genres x WHERE x.song_id = s.id),
    ARRAY(SELECT x.label_id FROM song_labels x WHERE x.song_id = s.id)
  FROM songs s
  WHERE s.id = ANY (song_ids) AND song_is_scheduled(s.published_at, s.deleted_at);
$$;

CREATE OR REPLACE FUNCTION recount_catalogue_counts() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM artist_counts;
  INSERT INTO artist_counts (artist_id, live_credits, live_album_credits)
  SELECT x.artist_id, sum(x.credits), sum(x.album_credits) FROM (
    SELECT c.artist_id, 1 AS credits, 0 AS album_credits
    FROM credits c JOIN songs s ON s.id = c.song_id WHERE song_is_live(s.published_at, s.deleted_at)
    UNION ALL
    SELECT aa.artist_id, 0, 1 FROM album_artists aa JOIN albums al ON al.id = aa.album_id WHERE album_is_live(al.published_at)
  ) x GROUP BY x.artist_id;

  DELETE FROM song_date_counts;
  INSERT INTO song_date_counts (released_at, live_songs)
  SELECT released_at, count(*) FROM songs
  WHERE song_is_live(published_at, deleted_at) GROUP BY released_at;

  DELETE FROM scheduled_song_links;
  PERFORM refresh_scheduled_song_links(ARRAY(
    SELECT id FROM songs WHERE song_is_scheduled(published_at, deleted_at)));

  DELETE FROM album_type_counts;
  INSERT INTO album_type_counts (album_type, live_albums)
  SELECT album_type, count(*) FROM albums WHERE album_is_live(published_at) GROUP BY album_type;

  UPDATE catalogue_counts SET
    live_songs = (SELECT count(*) FROM songs WHERE song_is_live(published_at, deleted_at)),
    live_credits = (SELECT coalesce(sum(live_credits), 0) FROM artist_counts),
    live_artists = (SELECT count(*) FROM artist_counts WHERE live_credits > 0 OR live_album_credits > 0),
    live_contributors = (SELECT count(*) FROM member_contribution_counts mc JOIN members m ON m.id = mc.member_id
                         WHERE mc.live > 0 AND member_is_public(m.username, m.is_banned));
END $$;

CREATE OR REPLACE FUNCTION member_counts_visible_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta bigint := 0;
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    delta := delta + (SELECT count(*) FROM new_rows n JOIN members m ON m.id = n.member_id
                      WHERE n.live > 0 AND member_is_public(m.username, m.is_banned));
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    delta := delta - (SELECT count(*) FROM old_rows o JOIN members m ON m.id = o.member_id
                      WHERE o.live > 0 AND member_is_public(m.username, m.is_banned));
  END IF;
  IF delta <> 0 THEN
    UPDATE catalogue_counts SET live_contributors = live_contributors + delta;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION members_visible_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta bigint;
BEGIN
  delta := (SELECT count(*) FROM new_rows n JOIN member_contribution_counts mc ON mc.member_id = n.id
            WHERE mc.live > 0 AND member_is_public(n.username, n.is_banned))
         - (SELECT count(*) FROM old_rows o JOIN member_contribution_counts mc ON mc.member_id = o.id
            WHERE mc.live > 0 AND member_is_public(o.username, o.is_banned));
  IF delta <> 0 THEN
    UPDATE catalogue_counts SET live_contributors = live_contributors + delta;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION credits_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  artist_ids integer[];
  deltas bigint[];
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    SELECT array_agg(c.artist_id), array_agg(-1::bigint) INTO artist_ids, deltas
    FROM old_rows c JOIN songs s ON s.id = c.song_id WHERE song_is_live(s.published_at, s.deleted_at);
    IF artist_ids IS NOT NULL THEN PERFORM add_live_credits(artist_ids, deltas); END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT array_agg(c.artist_id), array_agg(1::bigint) INTO artist_ids, deltas
    FROM new_rows c JOIN songs s ON s.id = c.song_id WHERE song_is_live(s.published_at, s.deleted_at);
    IF artist_ids IS NOT NULL THEN PERFORM add_live_credits(artist_ids, deltas); END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION album_artists_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  artist_ids integer[];
  deltas bigint[];
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    SELECT array_agg(x.artist_id), array_agg(-1::bigint) INTO artist_ids, deltas
    FROM old_rows x JOIN albums al ON al.id = x.album_id WHERE album_is_live(al.published_at);
    IF artist_ids IS NOT NULL THEN PERFORM add_live_album_credits(artist_ids, deltas); END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT array_agg(x.artist_id), array_agg(1::bigint) INTO artist_ids, deltas
    FROM new_rows x JOIN albums al ON al.id = x.album_id WHERE album_is_live(al.published_at);
    IF artist_ids IS NOT NULL THEN PERFORM add_live_album_credits(artist_ids, deltas); END IF;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION albums_catalogue_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  album_ids integer[];
  album_types text[];
  deltas bigint[];
  artist_ids integer[];
  credit_deltas bigint[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.id), array_agg(n.album_type), array_agg(1::bigint) INTO album_ids, album_types, deltas
    FROM new_rows n WHERE album_is_live(n.published_at);
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.id), array_agg(o.album_type), array_agg(-1::bigint) INTO album_ids, album_types, deltas
    FROM old_rows o WHERE album_is_live(o.published_at);
  ELSE
    SELECT array_agg(x.id), array_agg(x.album_type), array_agg(x.delta) INTO album_ids, album_types, deltas
    FROM (
      SELECT o.id, o.album_type, -1::bigint AS delta FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE album_is_live(o.published_at) AND NOT (album_is_live(n.published_at) AND n.album_type = o.album_type)
      UNION ALL
      SELECT n.id, n.album_type, 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE album_is_live(n.published_at) AND NOT (album_is_live(o.published_at) AND o.album_type = n.album_type)
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


-- Functions of sql/0008, calling the rules.

CREATE OR REPLACE FUNCTION recount_artist_song_counts() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM artist_song_counts;
  INSERT INTO artist_song_counts (artist_id, settled_songs)
  SELECT p.artist_id, count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = p.song_id))
  FROM (SELECT DISTINCT c.artist_id, c.song_id FROM credits c JOIN songs s ON s.id = c.song_id
        WHERE song_is_live(s.published_at, s.deleted_at)) p
  GROUP BY p.artist_id;
  UPDATE artist_song_totals SET with_settled = (SELECT count(*) FROM artist_song_counts WHERE settled_songs > 0);
END $$;

CREATE OR REPLACE FUNCTION credits_artist_song_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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
    JOIN songs s ON s.id = x.song_id AND song_is_live(s.published_at, s.deleted_at)
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

CREATE OR REPLACE FUNCTION scheduled_song_links_artist_song_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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
  JOIN songs s ON s.id = x.song_id AND song_is_live(s.published_at, s.deleted_at)
  CROSS JOIN LATERAL (SELECT DISTINCT c.artist_id FROM credits c WHERE c.song_id = x.song_id) c;
  IF changed_artists IS NOT NULL THEN PERFORM add_settled_songs(changed_artists, deltas); END IF;
  RETURN NULL;
END $$;


-- Functions of sql/0009, calling the rules.

CREATE OR REPLACE FUNCTION recount_member_settled_contributions() RETURNS void LANGUAGE sql AS $$
  DELETE FROM member_settled_contributions;
  INSERT INTO member_settled_contributions (member_id, settled)
  SELECT c.member_id, count(*) FROM contributions c JOIN songs s ON s.id = c.song_id
  WHERE song_is_live(s.published_at, s.deleted_at)
    AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = c.song_id)
  GROUP BY c.member_id;
  UPDATE public_member_total SET
    members = (SELECT count(*) FROM members WHERE member_is_public(username, is_banned)),
    with_settled = (SELECT count(*) FROM member_settled_contributions mc JOIN members m ON m.id = mc.member_id
                    WHERE mc.settled > 0 AND member_is_public(m.username, m.is_banned));
$$;

CREATE OR REPLACE FUNCTION contributions_member_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[] := '{}';
  member_ids integer[] := '{}';
  ns bigint[] := '{}';
  changed integer[];
  deltas bigint[];
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT song_ids || array_agg(n.song_id), member_ids || array_agg(n.member_id), ns || array_agg(1::bigint)
    INTO song_ids, member_ids, ns FROM new_rows n;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    SELECT song_ids || array_agg(o.song_id), member_ids || array_agg(o.member_id), ns || array_agg(-1::bigint)
    INTO song_ids, member_ids, ns FROM old_rows o;
  END IF;
  SELECT array_agg(x.member_id), array_agg(x.n) INTO changed, deltas
  FROM unnest(song_ids, member_ids, ns) AS x(song_id, member_id, n)
  JOIN songs s ON s.id = x.song_id AND song_is_live(s.published_at, s.deleted_at)
  WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = x.song_id);
  IF changed IS NOT NULL THEN PERFORM add_settled_contributions(changed, deltas); END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION scheduled_song_links_member_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[] := '{}';
  ns bigint[] := '{}';
  changed integer[];
  deltas bigint[];
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT song_ids || array_agg(n.song_id), ns || array_agg(-1::bigint) INTO song_ids, ns FROM new_rows n;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    SELECT song_ids || array_agg(o.song_id), ns || array_agg(1::bigint) INTO song_ids, ns FROM old_rows o;
  END IF;
  SELECT array_agg(c.member_id), array_agg(x.delta) INTO changed, deltas
  FROM (SELECT u.song_id, sum(u.n)::bigint AS delta FROM unnest(song_ids, ns) AS u(song_id, n)
        GROUP BY u.song_id HAVING sum(u.n) <> 0) x
  JOIN songs s ON s.id = x.song_id AND song_is_live(s.published_at, s.deleted_at)
  JOIN contributions c ON c.song_id = x.song_id;
  IF changed IS NOT NULL THEN PERFORM add_settled_contributions(changed, deltas); END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION public_member_total_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta bigint := 0;
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    delta := delta + (SELECT count(*) FROM new_rows WHERE member_is_public(username, is_banned));
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    delta := delta - (SELECT count(*) FROM old_rows WHERE member_is_public(username, is_banned));
  END IF;
  IF delta <> 0 THEN
    UPDATE public_member_total SET members = members + delta;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION recount_public_member_total() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE public_member_total SET members = (SELECT count(*) FROM members WHERE member_is_public(username, is_banned));
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION member_settled_total_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta bigint := 0;
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    delta := delta + (SELECT count(*) FROM new_rows n JOIN members m ON m.id = n.member_id
                      WHERE n.settled > 0 AND member_is_public(m.username, m.is_banned));
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    delta := delta - (SELECT count(*) FROM old_rows o JOIN members m ON m.id = o.member_id
                      WHERE o.settled > 0 AND member_is_public(m.username, m.is_banned));
  END IF;
  IF delta <> 0 THEN
    UPDATE public_member_total SET with_settled = with_settled + delta;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION members_settled_total_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta bigint;
BEGIN
  delta := (SELECT count(*) FROM new_rows n JOIN member_settled_contributions mc ON mc.member_id = n.id
            WHERE mc.settled > 0 AND member_is_public(n.username, n.is_banned))
         - (SELECT count(*) FROM old_rows o JOIN member_settled_contributions mc ON mc.member_id = o.id
            WHERE mc.settled > 0 AND member_is_public(o.username, o.is_banned));
  IF delta <> 0 THEN
    UPDATE public_member_total SET with_settled = with_settled + delta;
  END IF;
  RETURN NULL;
END $$;


-- Functions of sql/0010, calling the rules.

CREATE OR REPLACE FUNCTION feed_public(kind text, row_key text, as_of timestamptz) RETURNS boolean
LANGUAGE plpgsql STABLE AS $$
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

CREATE OR REPLACE FUNCTION feed_songs_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE OR REPLACE FUNCTION feed_albums_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE OR REPLACE FUNCTION feed_curated_lists_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE OR REPLACE FUNCTION feed_members_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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

-- songs: one trigger function moves every count a song row is in (sql/0003's per member, label
-- and genre, sql/0006's catalogue, per date and per artist credit, sql/0008's settled songs per
-- artist, sql/0009's settled contributions per member), from one pass over the transition tables.
-- It replaces four triggers that each joined old_rows to new_rows again; sql/0003's, an EXISTS
-- over that join planned as a nested loop, took 43 s for a 10k-row UPDATE at 1M songs.
-- Inserted songs have no links yet; deleted songs lost theirs first (foreign keys). Fires before
-- songs_scheduled_count_* (name order), so it sees scheduled_song_links as it was before the
-- statement, as sql/0008 and 0009 need.
CREATE OR REPLACE FUNCTION songs_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[];
  dates date[];
  deltas bigint[];
  changed_ids integer[];
  changed_deltas bigint[];
  artist_ids integer[];
  credit_deltas bigint[];
  member_ids integer[];
  member_deltas bigint[];
BEGIN
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

  UPDATE catalogue_counts SET live_songs = live_songs + d.total
  FROM (SELECT sum(x) AS total FROM unnest(deltas) x) d WHERE d.total <> 0;
  INSERT INTO song_date_counts AS t (released_at, live_songs)
  SELECT x.released_at, sum(x.delta) FROM unnest(dates, deltas) AS x(released_at, delta)
  GROUP BY x.released_at HAVING sum(x.delta) <> 0
  ON CONFLICT (released_at) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;

  IF TG_OP <> 'UPDATE' THEN
    RETURN NULL;
  END IF;

  -- The songs that became live (+1) or stopped being live (-1); a new date alone sums to 0.
  SELECT array_agg(x.id), array_agg(x.delta) INTO changed_ids, changed_deltas
  FROM (SELECT u.id, sum(u.delta)::bigint AS delta FROM unnest(song_ids, deltas) AS u(id, delta)
        GROUP BY u.id HAVING sum(u.delta) <> 0) x;
  IF changed_ids IS NULL THEN
    RETURN NULL;
  END IF;

  -- live credits per artist and catalogue-wide (sql/0006)
  SELECT array_agg(c.artist_id), array_agg(ch.delta) INTO artist_ids, credit_deltas
  FROM unnest(changed_ids, changed_deltas) AS ch(id, delta) JOIN credits c ON c.song_id = ch.id;
  IF artist_ids IS NOT NULL THEN PERFORM add_live_credits(artist_ids, credit_deltas); END IF;

  -- live contributions per member, live songs per label and per genre (sql/0003)
  INSERT INTO member_contribution_counts AS t (member_id, live)
  SELECT c.member_id, sum(ch.delta) FROM unnest(changed_ids, changed_deltas) AS ch(id, delta)
  JOIN contributions c ON c.song_id = ch.id GROUP BY c.member_id
  ON CONFLICT (member_id) DO UPDATE SET live = t.live + excluded.live;

  INSERT INTO label_counts AS t (label_id, live_songs)
  SELECT x.label_id, sum(ch.delta) FROM unnest(changed_ids, changed_deltas) AS ch(id, delta)
  JOIN song_labels x ON x.song_id = ch.id GROUP BY x.label_id
  ON CONFLICT (label_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;

  INSERT INTO genre_counts AS t (genre_id, live_songs)
  SELECT x.genre_id, sum(ch.delta) FROM unnest(changed_ids, changed_deltas) AS ch(id, delta)
  JOIN song_genres x ON x.song_id = ch.id GROUP BY x.genre_id
  ON CONFLICT (genre_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;

  -- settled songs per artist (sql/0008) and settled contributions per member (sql/0009): songs
  -- listed in scheduled_song_links are moved by that table's own triggers instead.
  SELECT array_agg(ch.id), array_agg(ch.delta) INTO changed_ids, changed_deltas
  FROM unnest(changed_ids, changed_deltas) AS ch(id, delta)
  WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = ch.id);
  IF changed_ids IS NULL THEN
    RETURN NULL;
  END IF;

  SELECT array_agg(c.artist_id), array_agg(ch.delta) INTO artist_ids, credit_deltas
  FROM unnest(changed_ids, changed_deltas) AS ch(id, delta)
  CROSS JOIN LATERAL (SELECT DISTINCT c.artist_id FROM credits c WHERE c.song_id = ch.id) c;
  IF artist_ids IS NOT NULL THEN PERFORM add_settled_songs(artist_ids, credit_deltas); END IF;

  SELECT array_agg(c.member_id), array_agg(ch.delta) INTO member_ids, member_deltas
  FROM unnest(changed_ids, changed_deltas) AS ch(id, delta) JOIN contributions c ON c.song_id = ch.id;
  IF member_ids IS NOT NULL THEN PERFORM add_settled_contributions(member_ids, member_deltas); END IF;
  RETURN NULL;
END $$;

DROP TRIGGER songs_catalogue_count_insert ON songs;
DROP TRIGGER songs_catalogue_count_update ON songs;
DROP TRIGGER songs_catalogue_count_delete ON songs;
DROP TRIGGER songs_artist_song_count_update ON songs;
DROP TRIGGER songs_member_count_update ON songs;
DROP FUNCTION songs_catalogue_count_trigger();
DROP FUNCTION songs_artist_song_count_trigger();
DROP FUNCTION songs_member_count_trigger();

CREATE TRIGGER songs_count_insert AFTER INSERT ON songs
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_count_trigger();
CREATE TRIGGER songs_count_delete AFTER DELETE ON songs
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_count_trigger();
-- songs_count_update (sql/0003) already calls songs_count_trigger() on UPDATE.

-- sql/0015, 0016 and 0017 (written beside this file): their read functions and views with the rules.
-- public_label_counts is 0017's (kept settled songs), which replaced the one this file had above.

CREATE OR REPLACE FUNCTION public_artist_role_song_counts(artist integer) RETURNS TABLE (role_id integer, songs bigint)
LANGUAGE sql STABLE AS $$
  SELECT x.role_id, sum(x.songs)::bigint FROM (
    SELECT k.role_id, k.settled_songs::bigint AS songs FROM artist_role_song_counts k WHERE k.artist_id = artist
    UNION ALL
    SELECT c.role_id, count(DISTINCT c.song_id)
    FROM scheduled_song_links l
    CROSS JOIN LATERAL (SELECT c.role_id, c.song_id FROM credits c WHERE c.song_id = l.song_id AND c.artist_id = artist OFFSET 0) c
    WHERE scheduled_link_is_due(l.published_at) AND artist = ANY (l.artist_ids)
    GROUP BY c.role_id) x
  GROUP BY x.role_id HAVING sum(x.songs) > 0
$$;

CREATE OR REPLACE FUNCTION public_artist_tag_song_count(artist integer, role_tag text) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT k.settled_songs FROM artist_tag_song_counts k WHERE k.artist_id = artist AND k.tag = role_tag), 0)
       + (SELECT count(*) FROM scheduled_song_links l
          WHERE scheduled_link_is_due(l.published_at) AND artist = ANY (l.artist_ids)
            AND EXISTS (SELECT 1 FROM credits c JOIN roles r ON r.id = c.role_id
                        WHERE c.song_id = l.song_id AND c.artist_id = artist AND r.tag = role_tag OFFSET 0))
$$;

CREATE OR REPLACE VIEW due_label_songs AS
  SELECT x.label_id, count(*) AS songs
  FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.label_ids) AS x(label_id)
  WHERE scheduled_link_is_due(l.published_at)
  GROUP BY x.label_id;

CREATE OR REPLACE VIEW due_genre_songs AS
  SELECT x.genre_id, count(*) AS songs
  FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.genre_ids) AS x(genre_id)
  WHERE scheduled_link_is_due(l.published_at)
  GROUP BY x.genre_id;

CREATE OR REPLACE FUNCTION albums_scheduled_label_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM scheduled_label_albums WHERE album_is_public(published_at);
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

CREATE OR REPLACE VIEW public_label_counts AS
  SELECT lc.label_id,
    coalesce(k.settled_songs, 0) + coalesce(d.songs, 0) AS song_count,
    lc.live_albums - coalesce(sa.albums, 0) AS album_count
  FROM label_counts lc
  LEFT JOIN label_song_counts k ON k.label_id = lc.label_id
  LEFT JOIN due_label_songs d ON d.label_id = lc.label_id
  LEFT JOIN (SELECT s.label_id, count(*) AS albums FROM scheduled_label_albums s
             WHERE album_is_scheduled(s.published_at) GROUP BY s.label_id) sa ON sa.label_id = lc.label_id;

CREATE OR REPLACE FUNCTION public_genre_song_count(genre integer) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT settled_songs FROM genre_song_counts WHERE genre_id = genre), 0)
       + (SELECT count(*) FROM scheduled_song_links l WHERE scheduled_link_is_due(l.published_at) AND genre = ANY (l.genre_ids))
$$;

CREATE OR REPLACE FUNCTION public_label_song_count(label integer) RETURNS bigint LANGUAGE sql STABLE AS $$
  SELECT coalesce((SELECT settled_songs FROM label_song_counts WHERE label_id = label), 0)
       + (SELECT count(*) FROM scheduled_song_links l WHERE scheduled_link_is_due(l.published_at) AND label = ANY (l.label_ids))
$$;

CREATE OR REPLACE VIEW search_sources AS
  SELECT 1::smallint AS kind, s.id, ARRAY[s.search_title] AS name_keys,
         coalesce(s.vidsvc_views, 0)::bigint AS popularity, s.published_at AS public_from, NULL::text AS handle
  FROM songs s WHERE song_is_live(s.published_at, s.deleted_at)
  UNION ALL
  SELECT 2::smallint, a.id, ARRAY[a.search_name, a.search_full_name],
         coalesce((SELECT ac.live_credits FROM artist_counts ac WHERE ac.artist_id = a.id), 0)::bigint,
         CASE WHEN (SELECT c.settled_songs FROM artist_song_counts c WHERE c.artist_id = a.id) > 0
              THEN '-infinity'::timestamptz END,
         NULL
  FROM artists a
  UNION ALL
  SELECT 3::smallint, al.id, ARRAY[al.search_title],
         (SELECT count(*) FROM album_tracks t JOIN songs ts ON ts.id = t.song_id
          WHERE t.album_id = al.id AND song_is_live(ts.published_at, ts.deleted_at)),
         al.published_at, NULL
  FROM albums al WHERE album_is_live(al.published_at)
  UNION ALL
  SELECT 4::smallint, l.id, ARRAY[l.search_title],
         CASE WHEN l.content_type = 'songs'
           THEN (SELECT count(*) FROM curated_list_songs e JOIN songs es ON es.id = e.song_id
                 WHERE e.list_id = l.id AND song_is_live(es.published_at, es.deleted_at))
           ELSE (SELECT count(*) FROM curated_list_albums e JOIN albums ea ON ea.id = e.album_id
                 WHERE e.list_id = l.id AND album_is_live(ea.published_at))
         END,
         l.published_at, NULL
  FROM curated_lists l WHERE curated_list_is_live(l.published_at)
  UNION ALL
  SELECT 5::smallint, lb.id, ARRAY[lb.search_name, lb.search_former_name],
         coalesce((SELECT lc.live_songs FROM label_counts lc WHERE lc.label_id = lb.id), 0)::bigint,
         '-infinity'::timestamptz, NULL
  FROM labels lb
  UNION ALL
  SELECT 6::smallint, g.id, ARRAY[g.search_title],
         coalesce((SELECT gc.live_songs FROM genre_counts gc WHERE gc.genre_id = g.id), 0)::bigint,
         '-infinity'::timestamptz, NULL
  FROM genres g
  UNION ALL
  SELECT 7::smallint, m.id, ARRAY[m.search_name, m.search_username],
         coalesce((SELECT mc.live FROM member_contribution_counts mc WHERE mc.member_id = m.id), 0)::bigint,
         '-infinity'::timestamptz, lower(m.username)
  FROM members m WHERE member_is_public(m.username, m.is_banned);

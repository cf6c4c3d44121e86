-- The kept counts (docs/data-model.md): the triggers that keep them, the recounts that rebuild
-- them (TRUNCATE triggers, and src/Seed/keptCounts.ts after a bulk load) and the readers that add
-- what the clock changed since (due rows) or subtract what is still scheduled. Counts of live rows
-- (published or scheduled, not deleted) are kept as they are written; counts of settled songs
-- (live and not listed in scheduled_song_links) are what the lists sort by.
-- refill: recount_public_counts, recount_catalogue_counts, recount_artist_song_counts, recount_artist_role_counts, recount_artist_album_links, recount_member_settled_contributions, recount_public_member_kinds, recount_link_song_counts, recount_scheduled_label_albums, recount_song_facet_counts

-- ---- Song writes: one trigger a table, one function a kept count ----------------------------
-- songs_count_trigger() finds the songs a statement moved (became live, stopped, re-dated) and
-- hands them to one move_* function per kept count; scheduled_song_links lists the live songs
-- still ahead of their published_at, and its trigger moves the settled counts of the songs it
-- lists or unlists through move_settled_songs().

-- The sort buckets' part first (the rest returns early
-- when no song changes liveness or date; a views or title change moves only buckets).
-- Inserted songs have no links yet; deleted songs lost theirs first (foreign keys): only the
-- counts of songs and dates move for them. Fires before songs_scheduled_count_* (name order), so
-- it sees scheduled_song_links as it was before the statement, as the settled counts need.
CREATE OR REPLACE FUNCTION songs_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  song_ids integer[];
  dates date[];
  deltas bigint[];
  changed_ids integer[];
  changed_deltas bigint[];
  moved_dates date[];
  moved_views bigint[];
  moved_titles text[];
  moved_ids integer[];
  moved_deltas bigint[];
BEGIN
  -- the sort buckets of settled songs (not listed in scheduled_song_links), by the keys
  -- of the old rows (-1) and the new ones (+1): a song moves when it becomes live or stops, and
  -- when its date, views or title change. Listed songs move with scheduled_song_links' trigger.
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.released_at), array_agg(coalesce(n.vidsvc_views, -1)), array_agg(lower(n.title)), array_agg(n.id), array_agg(1::bigint)
    INTO moved_dates, moved_views, moved_titles, moved_ids, moved_deltas
    FROM new_rows n
    WHERE song_is_live(n.published_at, n.deleted_at) AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = n.id);
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.released_at), array_agg(coalesce(o.vidsvc_views, -1)), array_agg(lower(o.title)), array_agg(o.id), array_agg(-1::bigint)
    INTO moved_dates, moved_views, moved_titles, moved_ids, moved_deltas
    FROM old_rows o
    WHERE song_is_live(o.published_at, o.deleted_at) AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = o.id);
  ELSE
    SELECT array_agg(m.released_at), array_agg(m.views), array_agg(m.title), array_agg(m.id), array_agg(m.delta)
    INTO moved_dates, moved_views, moved_titles, moved_ids, moved_deltas
    FROM (
      SELECT o.released_at, coalesce(o.vidsvc_views, -1) AS views, lower(o.title) AS title, o.id, -1::bigint AS delta
      FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE song_is_live(o.published_at, o.deleted_at)
        AND NOT (song_is_live(n.published_at, n.deleted_at) AND n.released_at = o.released_at
                 AND coalesce(n.vidsvc_views, -1) = coalesce(o.vidsvc_views, -1) AND lower(n.title) = lower(o.title))
      UNION ALL
      SELECT n.released_at, coalesce(n.vidsvc_views, -1), lower(n.title), n.id, 1
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE song_is_live(n.published_at, n.deleted_at)
        AND NOT (song_is_live(o.published_at, o.deleted_at) AND o.released_at = n.released_at
                 AND coalesce(o.vidsvc_views, -1) = coalesce(n.vidsvc_views, -1) AND lower(o.title) = lower(n.title))
    ) m
    WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = m.id);
  END IF;
  IF moved_ids IS NOT NULL THEN
    PERFORM move_song_buckets(moved_dates, moved_views, moved_titles, moved_ids, moved_deltas);
  END IF;

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

  PERFORM move_live_song_dates(dates, deltas);
  IF TG_OP <> 'UPDATE' THEN
    RETURN NULL;
  END IF;
  PERFORM move_live_song_facets(song_ids, dates, deltas);

  -- The songs that became live (+1) or stopped being live (-1); a new date alone sums to 0.
  SELECT array_agg(x.id), array_agg(x.delta) INTO changed_ids, changed_deltas
  FROM (SELECT u.id, sum(u.delta)::bigint AS delta FROM unnest(song_ids, deltas) AS u(id, delta)
        GROUP BY u.id HAVING sum(u.delta) <> 0) x;
  IF changed_ids IS NULL THEN
    RETURN NULL;
  END IF;
  PERFORM move_live_song_credits(changed_ids, changed_deltas);
  PERFORM move_live_song_contributions(changed_ids, changed_deltas);
  PERFORM move_live_song_labels(changed_ids, changed_deltas);
  PERFORM move_live_song_genres(changed_ids, changed_deltas);

  -- The settled ones among them: songs listed in scheduled_song_links are moved by that table's trigger.
  SELECT array_agg(ch.id), array_agg(ch.delta) INTO changed_ids, changed_deltas
  FROM unnest(changed_ids, changed_deltas) AS ch(id, delta)
  WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = ch.id);
  IF changed_ids IS NOT NULL THEN
    PERFORM move_settled_songs(changed_ids, changed_deltas);
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER songs_count_delete AFTER DELETE ON songs REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_count_trigger();
CREATE OR REPLACE TRIGGER songs_count_insert AFTER INSERT ON songs REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_count_trigger();
CREATE OR REPLACE TRIGGER songs_count_update AFTER UPDATE ON songs REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_count_trigger();

-- The songs that became settled or stopped being (a settled song becoming live or not, a live
-- song listed or unlisted in scheduled_song_links): one line a settled count. Both tables' count
-- triggers call it.
CREATE OR REPLACE FUNCTION move_settled_songs(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM move_settled_song_artists(song_ids, deltas);
  PERFORM move_settled_song_contributions(song_ids, deltas);
  PERFORM move_settled_song_roles(song_ids, deltas);
  PERFORM move_settled_song_labels(song_ids, deltas);
  PERFORM move_settled_song_genres(song_ids, deltas);
  PERFORM refresh_artist_album_links_of_songs(song_ids);
END $$;

-- Keeps scheduled_song_links: a song's row holds its published_at and released_at, and whether
-- it is listed follows deleted_at too, so on an update of songs only a change of those (or of
-- the id) rewrites it. A song still listed after its time (due: the clock wrote nothing) is
-- rewritten too: unpublished, or given a label, it must leave the list and settle as it now is. Each rewrite moves the kept counts through scheduled_song_links' own
-- triggers (~0.5 s a song at 1M songs): rewriting every scheduled song a views refresh touched
-- would cost seconds.
CREATE OR REPLACE FUNCTION scheduled_song_links_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  song_ids integer[];
BEGIN
  IF TG_TABLE_NAME = 'songs' THEN
    IF TG_OP = 'INSERT' THEN
      song_ids := ARRAY(SELECT n.id FROM new_rows n WHERE n.published_at > now());
    ELSIF TG_OP = 'DELETE' THEN
      song_ids := ARRAY(SELECT o.id FROM old_rows o WHERE o.published_at > now());
    ELSE
      song_ids := ARRAY(
        SELECT x.id FROM (SELECT n.id, n.published_at, n.deleted_at, n.released_at FROM new_rows n
                          UNION ALL SELECT o.id, o.published_at, o.deleted_at, o.released_at FROM old_rows o) x
        GROUP BY x.id
        HAVING (bool_or(x.published_at > now()) OR EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = x.id))
           AND (count(*) = 1 OR count(DISTINCT (x.published_at, x.deleted_at, x.released_at)) > 1));
    END IF;
  ELSE
    IF TG_OP = 'INSERT' THEN
      song_ids := ARRAY(SELECT DISTINCT n.song_id FROM new_rows n);
    ELSIF TG_OP = 'DELETE' THEN
      song_ids := ARRAY(SELECT DISTINCT o.song_id FROM old_rows o);
    ELSE
      song_ids := ARRAY(SELECT n.song_id FROM new_rows n UNION SELECT o.song_id FROM old_rows o);
    END IF;
    song_ids := ARRAY(
      SELECT s.id FROM songs s
      WHERE s.id = ANY (song_ids) AND (s.published_at > now() OR EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = s.id)));
  END IF;
  IF cardinality(song_ids) > 0 THEN
    PERFORM refresh_scheduled_song_links(song_ids);
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER contributions_scheduled_count_delete AFTER DELETE ON contributions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE OR REPLACE TRIGGER contributions_scheduled_count_insert AFTER INSERT ON contributions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE OR REPLACE TRIGGER contributions_scheduled_count_update AFTER UPDATE ON contributions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE OR REPLACE TRIGGER credits_scheduled_count_delete AFTER DELETE ON credits REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE OR REPLACE TRIGGER credits_scheduled_count_insert AFTER INSERT ON credits REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE OR REPLACE TRIGGER credits_scheduled_count_update AFTER UPDATE ON credits REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE OR REPLACE TRIGGER song_genres_scheduled_count_delete AFTER DELETE ON song_genres REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE OR REPLACE TRIGGER song_genres_scheduled_count_insert AFTER INSERT ON song_genres REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE OR REPLACE TRIGGER song_genres_scheduled_count_update AFTER UPDATE ON song_genres REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE OR REPLACE TRIGGER song_labels_scheduled_count_delete AFTER DELETE ON song_labels REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE OR REPLACE TRIGGER song_labels_scheduled_count_insert AFTER INSERT ON song_labels REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE OR REPLACE TRIGGER song_labels_scheduled_count_update AFTER UPDATE ON song_labels REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE OR REPLACE TRIGGER songs_scheduled_count_delete AFTER DELETE ON songs REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE OR REPLACE TRIGGER songs_scheduled_count_insert AFTER INSERT ON songs REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();
CREATE OR REPLACE TRIGGER songs_scheduled_count_update AFTER UPDATE ON songs REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_trigger();

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

-- The sort buckets have their line here, not in move_settled_songs(): songs_count_trigger() calls that too, for the settled songs that became
-- live or stopped, which its own part below has moved by their old and new keys.
-- A live song listed there stops being settled (-1); one removed (its time has come, or it was
-- rescheduled, unpublished or deleted) is settled again if it is live (+1).
CREATE OR REPLACE FUNCTION scheduled_song_links_settled_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  song_ids integer[] := '{}';
  ns bigint[] := '{}';
  moved integer[];
  moved_deltas bigint[];
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
  IF moved IS NOT NULL THEN
    PERFORM move_settled_songs(moved, moved_deltas);
    PERFORM move_settled_song_buckets(moved, moved_deltas);
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER scheduled_song_links_settled_count_delete AFTER DELETE ON scheduled_song_links REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_settled_count_trigger();
CREATE OR REPLACE TRIGGER scheduled_song_links_settled_count_insert AFTER INSERT ON scheduled_song_links REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_settled_count_trigger();
CREATE OR REPLACE TRIGGER scheduled_song_links_settled_count_update AFTER UPDATE ON scheduled_song_links REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_settled_count_trigger();

-- ---- Settled songs per artist: artist_song_counts, artist_song_totals -----------------------

CREATE OR REPLACE FUNCTION add_settled_songs(artist_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO artist_song_counts AS t (artist_id, settled_songs, name_key, search_name, search_full_name)
  SELECT x.artist_id, x.delta, lower(a.name), a.search_name, a.search_full_name
  FROM (SELECT u.artist_id, sum(u.delta) AS delta FROM unnest(artist_ids, deltas) AS u(artist_id, delta) GROUP BY u.artist_id) x
  LEFT JOIN artists a ON a.id = x.artist_id
  ON CONFLICT (artist_id) DO UPDATE SET settled_songs = t.settled_songs + excluded.settled_songs
  WHERE excluded.settled_songs <> 0;
$$;

-- settled songs per artist (a song once however many credits the artist has on it).
CREATE OR REPLACE FUNCTION move_settled_song_artists(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  SELECT add_settled_songs(array_agg(c.artist_id), array_agg(ch.delta))
  FROM unnest(song_ids, deltas) AS ch(id, delta)
  CROSS JOIN LATERAL (SELECT DISTINCT c.artist_id FROM credits c WHERE c.song_id = ch.id) c;
$$;

CREATE OR REPLACE FUNCTION credits_artist_song_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER credits_artist_song_count_delete AFTER DELETE ON credits REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_artist_song_count_trigger();
CREATE OR REPLACE TRIGGER credits_artist_song_count_insert AFTER INSERT ON credits REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_artist_song_count_trigger();
CREATE OR REPLACE TRIGGER credits_artist_song_count_update AFTER UPDATE ON credits REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_artist_song_count_trigger();

-- artist_song_counts: an artist crossing zero settled songs moves artist_song_totals.
CREATE OR REPLACE FUNCTION artist_song_totals_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER artist_song_totals_count_delete AFTER DELETE ON artist_song_counts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_song_totals_trigger();
CREATE OR REPLACE TRIGGER artist_song_totals_count_insert AFTER INSERT ON artist_song_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_song_totals_trigger();
CREATE OR REPLACE TRIGGER artist_song_totals_count_update AFTER UPDATE ON artist_song_counts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_song_totals_trigger();

CREATE OR REPLACE FUNCTION recount_artist_song_counts() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM artist_song_counts;
  INSERT INTO artist_song_counts (artist_id, settled_songs, name_key, search_name, search_full_name)
  SELECT p.artist_id, p.settled, lower(a.name), a.search_name, a.search_full_name
  FROM (SELECT q.artist_id, count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = q.song_id)) AS settled
        FROM (SELECT DISTINCT c.artist_id, c.song_id FROM credits c JOIN songs s ON s.id = c.song_id
              WHERE song_is_live(s.published_at, s.deleted_at)) q
        GROUP BY q.artist_id) p
  LEFT JOIN artists a ON a.id = p.artist_id;
  UPDATE artist_song_totals SET with_settled = (SELECT count(*) FROM artist_song_counts WHERE settled_songs > 0);
END $$;

CREATE OR REPLACE FUNCTION recount_artist_song_counts_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  PERFORM recount_artist_song_counts();
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER credits_artist_song_count_truncate AFTER TRUNCATE ON credits FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_song_counts_trigger();
CREATE OR REPLACE TRIGGER songs_artist_song_count_truncate AFTER TRUNCATE ON songs FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_song_counts_trigger();

CREATE OR REPLACE VIEW due_artist_songs AS
  SELECT a.artist_id, count(DISTINCT l.song_id) AS songs
  FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.artist_ids) AS a(artist_id)
  WHERE scheduled_link_is_due(l.published_at)
  GROUP BY a.artist_id;

-- An artist's public songs: the kept settled ones and the due ones. PL/pgSQL keeps its plan for
-- the session (in SQL its subqueries would be planned at every execution).
CREATE OR REPLACE FUNCTION public_artist_song_count(artist integer) RETURNS bigint LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN coalesce((SELECT settled_songs FROM artist_song_counts WHERE artist_id = artist), 0)
       + (SELECT count(*) FROM scheduled_song_links l WHERE scheduled_link_is_due(l.published_at) AND artist = ANY (l.artist_ids));
END $$;

-- ---- Settled songs per artist and role: artist_role_song_counts, artist_tag_song_counts ------

-- Adds changes of (song, artist, role) pairs: `ns` is how many credits of each pair appeared
-- (+) or went (-) on settled songs. A pair is counted when it has a credit, so the count moves
-- when its number of credits crosses zero (before = now - added + removed); the same for
-- (song, artist, tag).
CREATE OR REPLACE FUNCTION add_artist_role_credits(song_ids integer[], artist_ids integer[], role_ids integer[], ns integer[]) RETURNS void LANGUAGE sql AS $$
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

-- Settled songs per artist and role, and per artist and role tag.
CREATE OR REPLACE FUNCTION move_settled_song_roles(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
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

-- credits: named to fire before credits_scheduled_count_* (triggers fire in name
-- order), so that scheduled_song_links is as it was before this statement.
CREATE OR REPLACE FUNCTION credits_artist_role_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER credits_artist_role_count_delete AFTER DELETE ON credits REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_artist_role_count_trigger();
CREATE OR REPLACE TRIGGER credits_artist_role_count_insert AFTER INSERT ON credits REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_artist_role_count_trigger();
CREATE OR REPLACE TRIGGER credits_artist_role_count_update AFTER UPDATE ON credits REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_artist_role_count_trigger();

CREATE OR REPLACE FUNCTION recount_artist_role_counts() RETURNS void LANGUAGE plpgsql AS $$
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

CREATE OR REPLACE FUNCTION recount_artist_role_counts_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  PERFORM recount_artist_role_counts();
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER credits_artist_role_count_truncate AFTER TRUNCATE ON credits FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_role_counts_trigger();
CREATE OR REPLACE TRIGGER roles_artist_role_count_update AFTER UPDATE OF tag ON roles FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_role_counts_trigger();
CREATE OR REPLACE TRIGGER songs_artist_role_count_truncate AFTER TRUNCATE ON songs FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_role_counts_trigger();

CREATE OR REPLACE FUNCTION public_artist_role_song_counts(artist integer) RETURNS TABLE(role_id integer, songs bigint) LANGUAGE sql STABLE AS $$
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

CREATE OR REPLACE FUNCTION public_artist_tag_song_count(artist integer, role_tag text) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN coalesce((SELECT k.settled_songs FROM artist_tag_song_counts k WHERE k.artist_id = artist AND k.tag = role_tag), 0)
       + (SELECT count(*) FROM scheduled_song_links l
          WHERE scheduled_link_is_due(l.published_at) AND artist = ANY (l.artist_ids)
            AND EXISTS (SELECT 1 FROM credits c JOIN roles r ON r.id = c.role_id
                        WHERE c.song_id = l.song_id AND c.artist_id = artist AND r.tag = role_tag OFFSET 0));
END $$;

-- ---- An artist's albums: artist_album_links, artist_album_counts ----------------------------

-- Recomputes the pairs of the given albums; moves artist_album_counts by the pairs that came or went.
CREATE OR REPLACE FUNCTION refresh_artist_album_links(album_ids integer[]) RETURNS void LANGUAGE sql AS $$
  WITH wanted AS MATERIALIZED (
    SELECT w.artist_id, w.album_id, w.released_key, w.published_at
    FROM artist_album_links_settled w WHERE w.album_id = ANY (album_ids)),
  gone AS (
    DELETE FROM artist_album_links k
    WHERE k.album_id = ANY (album_ids)
      AND NOT EXISTS (SELECT 1 FROM wanted w WHERE w.artist_id = k.artist_id AND w.album_id = k.album_id)
    RETURNING k.artist_id),
  moved AS (
    UPDATE artist_album_links k SET released_key = w.released_key, published_at = w.published_at
    FROM wanted w
    WHERE k.artist_id = w.artist_id AND k.album_id = w.album_id
      AND (k.released_key, k.published_at) IS DISTINCT FROM (w.released_key, w.published_at)),
  came AS (
    INSERT INTO artist_album_links (artist_id, album_id, released_key, published_at)
    SELECT w.artist_id, w.album_id, w.released_key, w.published_at FROM wanted w
    WHERE NOT EXISTS (SELECT 1 FROM artist_album_links k WHERE k.artist_id = w.artist_id AND k.album_id = w.album_id)
    ON CONFLICT DO NOTHING
    RETURNING artist_id)
  INSERT INTO artist_album_counts AS t (artist_id, live_albums)
  SELECT x.artist_id, sum(x.delta)
  FROM (SELECT artist_id, -1 AS delta FROM gone UNION ALL SELECT artist_id, 1 FROM came) x
  GROUP BY x.artist_id HAVING sum(x.delta) <> 0
  ON CONFLICT (artist_id) DO UPDATE SET live_albums = t.live_albums + excluded.live_albums;
$$;

-- The same for the albums the given songs are tracks of.
CREATE OR REPLACE FUNCTION refresh_artist_album_links_of_songs(song_ids integer[]) RETURNS void LANGUAGE sql AS $$
  SELECT refresh_artist_album_links(ARRAY(
    SELECT DISTINCT t.album_id FROM album_tracks t WHERE t.song_id = ANY (song_ids)));
$$;

-- albums: those whose liveness, publication time or release date changed (an inserted album has
-- no artists or tracks yet; a deleted one lost them first).
CREATE OR REPLACE FUNCTION albums_artist_album_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  PERFORM refresh_artist_album_links(ARRAY(
    SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE (n.published_at, n.released_at) IS DISTINCT FROM (o.published_at, o.released_at)));
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER albums_artist_album_count_update AFTER UPDATE ON albums REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_artist_album_count_trigger();

-- album_artists, album_tracks (argument album_id): the albums of the rows written; credits and
-- scheduled_song_links (argument song_id): the albums of their songs.
CREATE OR REPLACE FUNCTION rows_artist_album_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  ids integer[] := '{}';
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    ids := ids || ARRAY(SELECT DISTINCT (to_jsonb(n) ->> TG_ARGV[0])::int FROM new_rows n);
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    ids := ids || ARRAY(SELECT DISTINCT (to_jsonb(o) ->> TG_ARGV[0])::int FROM old_rows o);
  END IF;
  IF TG_ARGV[0] = 'album_id' THEN
    PERFORM refresh_artist_album_links(ids);
  ELSE
    PERFORM refresh_artist_album_links_of_songs(ids);
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER album_artists_artist_album_count_delete AFTER DELETE ON album_artists REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('album_id');
CREATE OR REPLACE TRIGGER album_artists_artist_album_count_insert AFTER INSERT ON album_artists REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('album_id');
CREATE OR REPLACE TRIGGER album_artists_artist_album_count_update AFTER UPDATE ON album_artists REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('album_id');
CREATE OR REPLACE TRIGGER album_tracks_artist_album_count_delete AFTER DELETE ON album_tracks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('album_id');
CREATE OR REPLACE TRIGGER album_tracks_artist_album_count_insert AFTER INSERT ON album_tracks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('album_id');
CREATE OR REPLACE TRIGGER album_tracks_artist_album_count_update AFTER UPDATE ON album_tracks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('album_id');
CREATE OR REPLACE TRIGGER credits_artist_album_count_delete AFTER DELETE ON credits REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('song_id');
CREATE OR REPLACE TRIGGER credits_artist_album_count_insert AFTER INSERT ON credits REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('song_id');
CREATE OR REPLACE TRIGGER credits_artist_album_count_update AFTER UPDATE ON credits REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION rows_artist_album_count_trigger('song_id');

CREATE OR REPLACE FUNCTION recount_artist_album_links() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM artist_album_links;
  INSERT INTO artist_album_links (artist_id, album_id, released_key, published_at)
  SELECT artist_id, album_id, released_key, published_at FROM artist_album_links_settled;
  DELETE FROM artist_album_counts;
  INSERT INTO artist_album_counts (artist_id, live_albums)
  SELECT artist_id, count(*) FROM artist_album_links GROUP BY artist_id;
END $$;

CREATE OR REPLACE FUNCTION recount_artist_album_links_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  PERFORM recount_artist_album_links();
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER album_artists_artist_album_count_truncate AFTER TRUNCATE ON album_artists FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_album_links_trigger();
CREATE OR REPLACE TRIGGER album_tracks_artist_album_count_truncate AFTER TRUNCATE ON album_tracks FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_album_links_trigger();
CREATE OR REPLACE TRIGGER credits_artist_album_count_truncate AFTER TRUNCATE ON credits FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_album_links_trigger();
CREATE OR REPLACE TRIGGER roles_artist_album_count_update AFTER UPDATE OF tag ON roles FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_album_links_trigger();

-- The settled pairs as the tables say now. A filter on album_id reaches both arms (album_artists
-- by album, album_tracks by album, then each track's credits and song by key).
CREATE OR REPLACE VIEW artist_album_links_settled AS
  SELECT aa.artist_id, al.id AS album_id, coalesce(iso_date(al.released_at), '') AS released_key, al.published_at
  FROM album_artists aa JOIN albums al ON al.id = aa.album_id
  WHERE album_is_live(al.published_at)
  UNION
  SELECT c.artist_id, al.id, coalesce(iso_date(al.released_at), ''), al.published_at
  FROM albums al
  JOIN album_tracks t ON t.album_id = al.id
  JOIN songs s ON s.id = t.song_id
  JOIN credits c ON c.song_id = t.song_id
  JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
  WHERE album_is_live(al.published_at)
    AND NOT EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = al.id)
    AND song_is_live(s.published_at, s.deleted_at)
    AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = s.id);

-- The public albums beyond the kept pairs: albums without named artists on which the artist
-- performs a due song (usually none). A probe per due song (OFFSET 0: never the artist's credits).
CREATE OR REPLACE FUNCTION due_artist_albums(artist integer) RETURNS TABLE(album_id integer) LANGUAGE sql STABLE AS $$
  SELECT DISTINCT t.album_id
  FROM scheduled_song_links l
  CROSS JOIN LATERAL (SELECT t.album_id FROM album_tracks t WHERE t.song_id = l.song_id OFFSET 0) t
  JOIN albums al ON al.id = t.album_id
  WHERE scheduled_link_is_due(l.published_at) AND artist = ANY (l.artist_ids)
    AND album_is_public(al.published_at)
    AND NOT EXISTS (SELECT 1 FROM album_artists aa WHERE aa.album_id = t.album_id)
    AND NOT EXISTS (SELECT 1 FROM artist_album_links k WHERE k.artist_id = artist AND k.album_id = t.album_id)
    AND EXISTS (SELECT 1 FROM credits c JOIN roles r ON r.id = c.role_id
                WHERE c.song_id = l.song_id AND c.artist_id = artist AND r.tag = 'performer' OFFSET 0)
$$;

CREATE OR REPLACE FUNCTION public_artist_album_count(artist integer) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN coalesce((SELECT k.live_albums FROM artist_album_counts k WHERE k.artist_id = artist), 0)
       - (SELECT count(*) FROM artist_album_links k WHERE k.artist_id = artist AND album_is_scheduled(k.published_at))
       + (SELECT count(*) FROM due_artist_albums(artist));
END $$;

-- ---- Members: settled contributions, public members in all and by kind ---------------------

CREATE OR REPLACE FUNCTION add_settled_contributions(member_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO member_settled_contributions AS t (member_id, settled)
  SELECT x.member_id, sum(x.delta) FROM unnest(member_ids, deltas) AS x(member_id, delta)
  GROUP BY x.member_id HAVING sum(x.delta) <> 0
  ON CONFLICT (member_id) DO UPDATE SET settled = t.settled + excluded.settled;
$$;

-- settled contributions per member.
CREATE OR REPLACE FUNCTION move_settled_song_contributions(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  SELECT add_settled_contributions(array_agg(c.member_id), array_agg(ch.delta))
  FROM unnest(song_ids, deltas) AS ch(id, delta) JOIN contributions c ON c.song_id = ch.id;
$$;

CREATE OR REPLACE FUNCTION contributions_member_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER contributions_member_count_delete AFTER DELETE ON contributions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION contributions_member_count_trigger();
CREATE OR REPLACE TRIGGER contributions_member_count_insert AFTER INSERT ON contributions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contributions_member_count_trigger();
CREATE OR REPLACE TRIGGER contributions_member_count_update AFTER UPDATE ON contributions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contributions_member_count_trigger();

CREATE OR REPLACE FUNCTION member_settled_total_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER member_settled_total_count_delete AFTER DELETE ON member_settled_contributions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION member_settled_total_trigger();
CREATE OR REPLACE TRIGGER member_settled_total_count_insert AFTER INSERT ON member_settled_contributions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_settled_total_trigger();
CREATE OR REPLACE TRIGGER member_settled_total_count_update AFTER UPDATE ON member_settled_contributions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_settled_total_trigger();

CREATE OR REPLACE FUNCTION members_settled_total_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER members_settled_total_count_update AFTER UPDATE ON members REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION members_settled_total_trigger();

CREATE OR REPLACE FUNCTION public_member_total_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER members_public_total_count_delete AFTER DELETE ON members REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public_member_total_trigger();
CREATE OR REPLACE TRIGGER members_public_total_count_insert AFTER INSERT ON members REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public_member_total_trigger();
CREATE OR REPLACE TRIGGER members_public_total_count_update AFTER UPDATE ON members REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public_member_total_trigger();

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

CREATE OR REPLACE FUNCTION recount_member_settled_contributions_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  PERFORM recount_member_settled_contributions();
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER contributions_member_count_truncate AFTER TRUNCATE ON contributions FOR EACH STATEMENT EXECUTE FUNCTION recount_member_settled_contributions_trigger();
CREATE OR REPLACE TRIGGER songs_member_count_truncate AFTER TRUNCATE ON songs FOR EACH STATEMENT EXECUTE FUNCTION recount_member_settled_contributions_trigger();

CREATE OR REPLACE FUNCTION recount_public_member_total() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  UPDATE public_member_total SET members = (SELECT count(*) FROM members WHERE member_is_public(username, is_banned));
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER members_public_total_count_truncate AFTER TRUNCATE ON members FOR EACH STATEMENT EXECUTE FUNCTION recount_public_member_total();

-- Each transition table read only where it exists (a statement naming one is planned when run).
CREATE OR REPLACE FUNCTION public_member_kind_counts_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO public_member_kind_counts AS c (kind, members)
    SELECT n.kind, count(*) FROM new_rows n WHERE member_is_public(n.username, n.is_banned) GROUP BY n.kind
    ON CONFLICT (kind) DO UPDATE SET members = c.members + excluded.members;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    INSERT INTO public_member_kind_counts AS c (kind, members)
    SELECT o.kind, -count(*) FROM old_rows o WHERE member_is_public(o.username, o.is_banned) GROUP BY o.kind
    ON CONFLICT (kind) DO UPDATE SET members = c.members + excluded.members;
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER members_kind_count_delete AFTER DELETE ON members REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public_member_kind_counts_trigger();
CREATE OR REPLACE TRIGGER members_kind_count_insert AFTER INSERT ON members REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public_member_kind_counts_trigger();
CREATE OR REPLACE TRIGGER members_kind_count_update AFTER UPDATE ON members REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public_member_kind_counts_trigger();

CREATE OR REPLACE FUNCTION recount_public_member_kinds() RETURNS void LANGUAGE sql AS $$
  DELETE FROM public_member_kind_counts;
  INSERT INTO public_member_kind_counts (kind, members)
  SELECT m.kind, count(*) FROM members m WHERE member_is_public(m.username, m.is_banned) GROUP BY m.kind;
$$;

CREATE OR REPLACE FUNCTION recount_public_member_kinds_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  PERFORM recount_public_member_kinds();
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER members_kind_count_truncate AFTER TRUNCATE ON members FOR EACH STATEMENT EXECUTE FUNCTION recount_public_member_kinds_trigger();

CREATE OR REPLACE VIEW due_member_contributions AS
  SELECT x.member_id, count(*) AS contributions
  FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.member_ids) AS x(member_id)
  WHERE scheduled_link_is_due(l.published_at)
  GROUP BY x.member_id;

-- the members with due contributions, with the same columns for the readers' merge
CREATE OR REPLACE VIEW due_member_ranks AS
  SELECT r.member_id, r.handle, (r.settled + d.contributions)::int AS contribution_count,
         r.kind, r.search_name, r.search_username
  FROM due_member_contributions d JOIN member_contribution_ranks r ON r.member_id = d.member_id;

-- ---- Settled songs per label and genre; a label's scheduled albums ---------------------------

CREATE OR REPLACE FUNCTION add_genre_settled_songs(genre_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO genre_song_counts AS t (genre_id, settled_songs)
  SELECT x.genre_id, sum(x.delta) FROM unnest(genre_ids, deltas) AS x(genre_id, delta)
  GROUP BY x.genre_id HAVING sum(x.delta) <> 0
  ON CONFLICT (genre_id) DO UPDATE SET settled_songs = t.settled_songs + excluded.settled_songs;
$$;

CREATE OR REPLACE FUNCTION add_label_settled_songs(label_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO label_song_counts AS t (label_id, settled_songs)
  SELECT x.label_id, sum(x.delta) FROM unnest(label_ids, deltas) AS x(label_id, delta)
  GROUP BY x.label_id HAVING sum(x.delta) <> 0
  ON CONFLICT (label_id) DO UPDATE SET settled_songs = t.settled_songs + excluded.settled_songs;
$$;

CREATE OR REPLACE FUNCTION move_settled_song_genres(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  SELECT add_genre_settled_songs(array_agg(x.genre_id), array_agg(ch.delta))
  FROM unnest(song_ids, deltas) AS ch(id, delta) JOIN song_genres x ON x.song_id = ch.id;
$$;

-- settled songs per label and per genre.
CREATE OR REPLACE FUNCTION move_settled_song_labels(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  SELECT add_label_settled_songs(array_agg(x.label_id), array_agg(ch.delta))
  FROM unnest(song_ids, deltas) AS ch(id, delta) JOIN song_labels x ON x.song_id = ch.id;
$$;

CREATE OR REPLACE FUNCTION song_genres_genre_song_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER song_genres_genre_song_count_delete AFTER DELETE ON song_genres REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_genre_song_count_trigger();
CREATE OR REPLACE TRIGGER song_genres_genre_song_count_insert AFTER INSERT ON song_genres REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_genre_song_count_trigger();
CREATE OR REPLACE TRIGGER song_genres_genre_song_count_update AFTER UPDATE ON song_genres REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_genre_song_count_trigger();

-- song_labels / song_genres: +1 / -1 per link of a settled song. Named to fire before the
-- *_scheduled_count_* triggers (name order), seeing scheduled_song_links as it was.
CREATE OR REPLACE FUNCTION song_labels_label_song_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER song_labels_label_song_count_delete AFTER DELETE ON song_labels REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_label_song_count_trigger();
CREATE OR REPLACE TRIGGER song_labels_label_song_count_insert AFTER INSERT ON song_labels REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_label_song_count_trigger();
CREATE OR REPLACE TRIGGER song_labels_label_song_count_update AFTER UPDATE ON song_labels REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_label_song_count_trigger();

CREATE OR REPLACE FUNCTION recount_link_song_counts() RETURNS void LANGUAGE sql AS $$
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

CREATE OR REPLACE FUNCTION recount_link_song_counts_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  PERFORM recount_link_song_counts();
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER song_genres_genre_song_count_truncate AFTER TRUNCATE ON song_genres FOR EACH STATEMENT EXECUTE FUNCTION recount_link_song_counts_trigger();
CREATE OR REPLACE TRIGGER song_labels_label_song_count_truncate AFTER TRUNCATE ON song_labels FOR EACH STATEMENT EXECUTE FUNCTION recount_link_song_counts_trigger();
CREATE OR REPLACE TRIGGER songs_link_song_count_truncate AFTER TRUNCATE ON songs FOR EACH STATEMENT EXECUTE FUNCTION recount_link_song_counts_trigger();

CREATE OR REPLACE VIEW due_genre_songs AS
  SELECT x.genre_id, count(*) AS songs
  FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.genre_ids) AS x(genre_id)
  WHERE scheduled_link_is_due(l.published_at)
  GROUP BY x.genre_id;

CREATE OR REPLACE VIEW due_label_songs AS
  SELECT x.label_id, count(*) AS songs
  FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.label_ids) AS x(label_id)
  WHERE scheduled_link_is_due(l.published_at)
  GROUP BY x.label_id;

CREATE OR REPLACE FUNCTION public_genre_song_count(genre integer) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN coalesce((SELECT settled_songs FROM genre_song_counts WHERE genre_id = genre), 0)
       + (SELECT count(*) FROM scheduled_song_links l WHERE scheduled_link_is_due(l.published_at) AND genre = ANY (l.genre_ids));
END $$;

CREATE OR REPLACE FUNCTION public_label_song_count(label integer) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN coalesce((SELECT settled_songs FROM label_song_counts WHERE label_id = label), 0)
       + (SELECT count(*) FROM scheduled_song_links l WHERE scheduled_link_is_due(l.published_at) AND label = ANY (l.label_ids));
END $$;

CREATE OR REPLACE FUNCTION albums_scheduled_label_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER albums_scheduled_label_count_delete AFTER DELETE ON albums REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_scheduled_label_trigger();
CREATE OR REPLACE TRIGGER albums_scheduled_label_count_insert AFTER INSERT ON albums REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_scheduled_label_trigger();
CREATE OR REPLACE TRIGGER albums_scheduled_label_count_update AFTER UPDATE ON albums REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_scheduled_label_trigger();

CREATE OR REPLACE FUNCTION recount_scheduled_label_albums() RETURNS void LANGUAGE sql AS $$
  DELETE FROM scheduled_label_albums;
  INSERT INTO scheduled_label_albums (album_id, label_id, published_at)
  SELECT a.id, a.label_id, a.published_at FROM albums a
  WHERE a.label_id IS NOT NULL AND album_is_live(a.published_at) AND NOT album_is_public(a.published_at);
$$;

CREATE OR REPLACE FUNCTION recount_scheduled_label_albums_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  PERFORM recount_scheduled_label_albums();
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER albums_scheduled_label_count_truncate AFTER TRUNCATE ON albums FOR EACH STATEMENT EXECUTE FUNCTION recount_scheduled_label_albums_trigger();

-- ---- The catalogue's totals: catalogue_counts, song_date_counts, album_type_counts, artist_counts

-- Adds per-artist changes of live credits (artist_counts.live_credits, catalogue live_credits).
CREATE OR REPLACE FUNCTION add_live_credits(artist_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO artist_counts AS t (artist_id, live_credits)
  SELECT x.artist_id, sum(x.delta) FROM unnest(artist_ids, deltas) AS x(artist_id, delta)
  GROUP BY x.artist_id HAVING sum(x.delta) <> 0
  ON CONFLICT (artist_id) DO UPDATE SET live_credits = t.live_credits + excluded.live_credits;
  UPDATE catalogue_counts SET live_credits = live_credits + d.total
  FROM (SELECT sum(x) AS total FROM unnest(deltas) x) d WHERE d.total <> 0;
$$;

-- Adds per-artist changes of live album credits (artist_counts.live_album_credits).
CREATE OR REPLACE FUNCTION add_live_album_credits(artist_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO artist_counts AS t (artist_id, live_album_credits)
  SELECT x.artist_id, sum(x.delta) FROM unnest(artist_ids, deltas) AS x(artist_id, delta)
  GROUP BY x.artist_id HAVING sum(x.delta) <> 0
  ON CONFLICT (artist_id) DO UPDATE SET live_album_credits = t.live_album_credits + excluded.live_album_credits;
$$;

-- live credits per artist and catalogue-wide.
CREATE OR REPLACE FUNCTION move_live_song_credits(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  SELECT add_live_credits(array_agg(c.artist_id), array_agg(ch.delta))
  FROM unnest(song_ids, deltas) AS ch(id, delta) JOIN credits c ON c.song_id = ch.id;
$$;

-- live songs in the catalogue and per release date, from (release date, +1/-1) pairs.
CREATE OR REPLACE FUNCTION move_live_song_dates(dates date[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  UPDATE catalogue_counts SET live_songs = live_songs + d.total
  FROM (SELECT sum(x) AS total FROM unnest(deltas) x) d WHERE d.total <> 0;
  INSERT INTO song_date_counts AS t (released_at, live_songs)
  SELECT x.released_at, sum(x.delta) FROM unnest(dates, deltas) AS x(released_at, delta)
  GROUP BY x.released_at HAVING sum(x.delta) <> 0
  ON CONFLICT (released_at) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
$$;

CREATE OR REPLACE FUNCTION credits_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER credits_count_delete AFTER DELETE ON credits REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_count_trigger();
CREATE OR REPLACE TRIGGER credits_count_insert AFTER INSERT ON credits REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_count_trigger();
CREATE OR REPLACE TRIGGER credits_count_update AFTER UPDATE ON credits REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_count_trigger();

CREATE OR REPLACE FUNCTION album_artists_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER album_artists_count_delete AFTER DELETE ON album_artists REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION album_artists_count_trigger();
CREATE OR REPLACE TRIGGER album_artists_count_insert AFTER INSERT ON album_artists REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION album_artists_count_trigger();
CREATE OR REPLACE TRIGGER album_artists_count_update AFTER UPDATE ON album_artists REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION album_artists_count_trigger();

CREATE OR REPLACE FUNCTION albums_catalogue_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER albums_catalogue_count_delete AFTER DELETE ON albums REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_catalogue_count_trigger();
CREATE OR REPLACE TRIGGER albums_catalogue_count_insert AFTER INSERT ON albums REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_catalogue_count_trigger();
CREATE OR REPLACE TRIGGER albums_catalogue_count_update AFTER UPDATE ON albums REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_catalogue_count_trigger();

-- artist_counts: an artist whose live credits and live album credits cross zero moves live_artists.
CREATE OR REPLACE FUNCTION artist_counts_visible_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER artist_counts_visible_delete AFTER DELETE ON artist_counts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_counts_visible_trigger();
CREATE OR REPLACE TRIGGER artist_counts_visible_insert AFTER INSERT ON artist_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_counts_visible_trigger();
CREATE OR REPLACE TRIGGER artist_counts_visible_update AFTER UPDATE ON artist_counts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_counts_visible_trigger();

CREATE OR REPLACE FUNCTION member_counts_visible_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER member_counts_visible_delete AFTER DELETE ON member_contribution_counts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION member_counts_visible_trigger();
CREATE OR REPLACE TRIGGER member_counts_visible_insert AFTER INSERT ON member_contribution_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_counts_visible_trigger();
CREATE OR REPLACE TRIGGER member_counts_visible_update AFTER UPDATE ON member_contribution_counts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_counts_visible_trigger();

CREATE OR REPLACE FUNCTION members_visible_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER members_visible_update AFTER UPDATE ON members REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION members_visible_trigger();

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

CREATE OR REPLACE FUNCTION recount_catalogue_counts_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  PERFORM recount_catalogue_counts();
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER album_artists_count_truncate AFTER TRUNCATE ON album_artists FOR EACH STATEMENT EXECUTE FUNCTION recount_catalogue_counts_trigger();
CREATE OR REPLACE TRIGGER albums_catalogue_count_truncate AFTER TRUNCATE ON albums FOR EACH STATEMENT EXECUTE FUNCTION recount_catalogue_counts_trigger();
CREATE OR REPLACE TRIGGER contributions_catalogue_count_truncate AFTER TRUNCATE ON contributions FOR EACH STATEMENT EXECUTE FUNCTION recount_catalogue_counts_trigger();
CREATE OR REPLACE TRIGGER credits_count_truncate AFTER TRUNCATE ON credits FOR EACH STATEMENT EXECUTE FUNCTION recount_catalogue_counts_trigger();
CREATE OR REPLACE TRIGGER song_genres_catalogue_count_truncate AFTER TRUNCATE ON song_genres FOR EACH STATEMENT EXECUTE FUNCTION recount_catalogue_counts_trigger();
CREATE OR REPLACE TRIGGER song_labels_catalogue_count_truncate AFTER TRUNCATE ON song_labels FOR EACH STATEMENT EXECUTE FUNCTION recount_catalogue_counts_trigger();
CREATE OR REPLACE TRIGGER songs_catalogue_count_truncate AFTER TRUNCATE ON songs FOR EACH STATEMENT EXECUTE FUNCTION recount_catalogue_counts_trigger();

-- Spec 2.13's counts over public rows. A reader of one column does not pay for the others
-- (unused columns of a view are not computed). An artist is hidden when all its live credits
-- and live album credits are still scheduled.
CREATE OR REPLACE VIEW public_catalogue_counts AS
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

CREATE OR REPLACE VIEW public_album_type_counts AS
  SELECT tc.album_type, tc.live_albums - coalesce(sch.n, 0) AS album_count
  FROM album_type_counts tc
  LEFT JOIN (SELECT album_type, count(*) AS n FROM scheduled_albums GROUP BY album_type) sch
    ON sch.album_type = tc.album_type;

CREATE OR REPLACE FUNCTION public_songs_released_between(from_date date, until_date date) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(sum(live_songs), 0) FROM song_date_counts
          WHERE released_at >= from_date AND released_at < until_date)
       - (SELECT count(*) FROM scheduled_song_links_now WHERE released_at >= from_date AND released_at < until_date);
END $$;

-- ---- Live rows per member, label and genre: member_contribution_counts, label_counts, genre_counts

-- live contributions per member, live songs per label and per genre.
CREATE OR REPLACE FUNCTION move_live_song_contributions(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO member_contribution_counts AS t (member_id, live)
  SELECT c.member_id, sum(ch.delta) FROM unnest(song_ids, deltas) AS ch(id, delta)
  JOIN contributions c ON c.song_id = ch.id GROUP BY c.member_id
  ON CONFLICT (member_id) DO UPDATE SET live = t.live + excluded.live;
$$;

CREATE OR REPLACE FUNCTION move_live_song_genres(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO genre_counts AS t (genre_id, live_songs)
  SELECT x.genre_id, sum(ch.delta) FROM unnest(song_ids, deltas) AS ch(id, delta)
  JOIN song_genres x ON x.song_id = ch.id GROUP BY x.genre_id
  ON CONFLICT (genre_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
$$;

CREATE OR REPLACE FUNCTION move_live_song_labels(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO label_counts AS t (label_id, live_songs)
  SELECT x.label_id, sum(ch.delta) FROM unnest(song_ids, deltas) AS ch(id, delta)
  JOIN song_labels x ON x.song_id = ch.id GROUP BY x.label_id
  ON CONFLICT (label_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
$$;

CREATE OR REPLACE FUNCTION contributions_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER contributions_count_delete AFTER DELETE ON contributions REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION contributions_count_trigger();
CREATE OR REPLACE TRIGGER contributions_count_insert AFTER INSERT ON contributions REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contributions_count_trigger();
CREATE OR REPLACE TRIGGER contributions_count_update AFTER UPDATE ON contributions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contributions_count_trigger();

CREATE OR REPLACE FUNCTION song_genres_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER song_genres_count_delete AFTER DELETE ON song_genres REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_count_trigger();
CREATE OR REPLACE TRIGGER song_genres_count_insert AFTER INSERT ON song_genres REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_count_trigger();
CREATE OR REPLACE TRIGGER song_genres_count_update AFTER UPDATE ON song_genres REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_count_trigger();

CREATE OR REPLACE FUNCTION song_labels_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER song_labels_count_delete AFTER DELETE ON song_labels REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_count_trigger();
CREATE OR REPLACE TRIGGER song_labels_count_insert AFTER INSERT ON song_labels REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_count_trigger();
CREATE OR REPLACE TRIGGER song_labels_count_update AFTER UPDATE ON song_labels REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_count_trigger();

CREATE OR REPLACE FUNCTION albums_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER albums_count_delete AFTER DELETE ON albums REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_count_trigger();
CREATE OR REPLACE TRIGGER albums_count_insert AFTER INSERT ON albums REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_count_trigger();
CREATE OR REPLACE TRIGGER albums_count_update AFTER UPDATE ON albums REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION albums_count_trigger();

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

CREATE OR REPLACE FUNCTION recount_public_counts_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  PERFORM recount_public_counts();
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER albums_count_truncate AFTER TRUNCATE ON albums FOR EACH STATEMENT EXECUTE FUNCTION recount_public_counts_trigger();
CREATE OR REPLACE TRIGGER contributions_count_truncate AFTER TRUNCATE ON contributions FOR EACH STATEMENT EXECUTE FUNCTION recount_public_counts_trigger();
CREATE OR REPLACE TRIGGER song_genres_count_truncate AFTER TRUNCATE ON song_genres FOR EACH STATEMENT EXECUTE FUNCTION recount_public_counts_trigger();
CREATE OR REPLACE TRIGGER song_labels_count_truncate AFTER TRUNCATE ON song_labels FOR EACH STATEMENT EXECUTE FUNCTION recount_public_counts_trigger();

CREATE OR REPLACE VIEW public_genre_counts AS
  SELECT gc.genre_id, coalesce(k.settled_songs, 0) + coalesce(d.songs, 0) AS song_count
  FROM genre_counts gc
  LEFT JOIN genre_song_counts k ON k.genre_id = gc.genre_id
  LEFT JOIN due_genre_songs d ON d.genre_id = gc.genre_id;

CREATE OR REPLACE VIEW public_label_counts AS
  SELECT lc.label_id,
    coalesce(k.settled_songs, 0) + coalesce(d.songs, 0) AS song_count,
    lc.live_albums - coalesce(sa.albums, 0) AS album_count
  FROM label_counts lc
  LEFT JOIN label_song_counts k ON k.label_id = lc.label_id
  LEFT JOIN due_label_songs d ON d.label_id = lc.label_id
  LEFT JOIN (SELECT s.label_id, count(*) AS albums FROM scheduled_label_albums s
             WHERE album_is_scheduled(s.published_at) GROUP BY s.label_id) sa ON sa.label_id = lc.label_id;

-- Public counts from the kept live counts, subtracting the scheduled songs read from
-- scheduled_song_links (one short range) rather than probing the link tables a scheduled song.
CREATE OR REPLACE VIEW public_member_contribution_counts AS
  SELECT mc.member_id, mc.live - coalesce(sch.n, 0) AS contribution_count
  FROM member_contribution_counts mc
  LEFT JOIN (
    SELECT x.member_id, count(*) AS n
    FROM scheduled_song_links_now s CROSS JOIN LATERAL unnest(s.member_ids) AS x(member_id)
    GROUP BY x.member_id
  ) sch ON sch.member_id = mc.member_id;

-- Same columns as public_member_contribution_counts, from the kept counts: the
-- settled contributions plus the due ones.
CREATE OR REPLACE VIEW public_member_contributions AS
  SELECT mc.member_id, (mc.settled + coalesce(d.contributions, 0))::bigint AS contribution_count
  FROM member_settled_contributions mc
  LEFT JOIN due_member_contributions d ON d.member_id = mc.member_id
  UNION ALL
  SELECT d.member_id, d.contributions FROM due_member_contributions d
  WHERE NOT EXISTS (SELECT 1 FROM member_settled_contributions mc WHERE mc.member_id = d.member_id);

-- ---- Two and three filters: song_facet_counts ---------------------------------------------

-- The combinations one live song is in, from its links as they are now, for its release year.
CREATE OR REPLACE FUNCTION song_facets(song integer, song_year integer) RETURNS TABLE(genre_id integer, label_id integer, year integer) LANGUAGE sql STABLE AS $$
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
CREATE OR REPLACE FUNCTION add_song_link_facet_counts(song_ids integer[], genre_ids integer[], label_ids integer[], deltas integer[]) RETURNS void LANGUAGE sql AS $$
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

-- every genre/label/year combination of the songs, from (song, release date, +1/-1);
-- a song re-dated within its year sums to 0 and moves nothing.
CREATE OR REPLACE FUNCTION move_live_song_facets(song_ids integer[], dates date[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO song_facet_counts AS t (genre_id, label_id, year, live_songs)
  SELECT f.genre_id, f.label_id, f.year, sum(x.delta)
  FROM (SELECT u.id, song_release_year(u.released_at) AS year, sum(u.delta) AS delta
        FROM unnest(song_ids, dates, deltas) AS u(id, released_at, delta)
        GROUP BY 1, 2 HAVING sum(u.delta) <> 0) x
  CROSS JOIN LATERAL song_facets(x.id, x.year) f
  GROUP BY f.genre_id, f.label_id, f.year HAVING sum(x.delta) <> 0
  ON CONFLICT (genre_id, label_id, year) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
$$;

CREATE OR REPLACE FUNCTION song_genres_facet_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER song_genres_facet_count_delete AFTER DELETE ON song_genres REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_facet_count_trigger();
CREATE OR REPLACE TRIGGER song_genres_facet_count_insert AFTER INSERT ON song_genres REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_facet_count_trigger();
CREATE OR REPLACE TRIGGER song_genres_facet_count_update AFTER UPDATE ON song_genres REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_genres_facet_count_trigger();

CREATE OR REPLACE FUNCTION song_labels_facet_count_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
CREATE OR REPLACE TRIGGER song_labels_facet_count_delete AFTER DELETE ON song_labels REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_facet_count_trigger();
CREATE OR REPLACE TRIGGER song_labels_facet_count_insert AFTER INSERT ON song_labels REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_facet_count_trigger();
CREATE OR REPLACE TRIGGER song_labels_facet_count_update AFTER UPDATE ON song_labels REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_facet_count_trigger();

-- Recounts from scratch: the initial fill, after a bulk load, after a TRUNCATE.
CREATE OR REPLACE FUNCTION recount_song_facet_counts() RETURNS void LANGUAGE sql AS $$
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

CREATE OR REPLACE FUNCTION recount_song_facet_counts_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  PERFORM recount_song_facet_counts();
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER song_genres_facet_count_truncate AFTER TRUNCATE ON song_genres FOR EACH STATEMENT EXECUTE FUNCTION recount_song_facet_counts_trigger();
CREATE OR REPLACE TRIGGER song_labels_facet_count_truncate AFTER TRUNCATE ON song_labels FOR EACH STATEMENT EXECUTE FUNCTION recount_song_facet_counts_trigger();
CREATE OR REPLACE TRIGGER songs_facet_count_truncate AFTER TRUNCATE ON songs FOR EACH STATEMENT EXECUTE FUNCTION recount_song_facet_counts_trigger();

CREATE OR REPLACE FUNCTION public_song_facet_count(for_genre integer, for_label integer, for_year integer) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
DECLARE
  live bigint := coalesce((SELECT f.live_songs FROM song_facet_counts f
                           WHERE f.genre_id = coalesce(for_genre, 0) AND f.label_id = coalesce(for_label, 0)
                             AND f.year = coalesce(for_year, 0)), 0);
BEGIN
  -- the scheduled songs are live songs: none of them in an empty facet
  IF live = 0 THEN
    RETURN 0;
  ELSIF for_label IS NOT NULL THEN
    RETURN live - (SELECT count(*) FROM scheduled_song_links_now s
                   WHERE s.label_ids @> ARRAY[for_label]
                     AND (for_genre IS NULL OR for_genre = ANY (s.genre_ids))
                     AND (for_year IS NULL OR song_release_year(s.released_at) = for_year));
  ELSIF for_genre IS NOT NULL THEN
    RETURN live - (SELECT count(*) FROM scheduled_song_links_now s
                   WHERE s.genre_ids @> ARRAY[for_genre]
                     AND (for_year IS NULL OR song_release_year(s.released_at) = for_year));
  END IF;
  RETURN live - (SELECT count(*) FROM scheduled_song_links_now s
                 WHERE for_year IS NULL OR song_release_year(s.released_at) = for_year);
END $$;

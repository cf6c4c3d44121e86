-- One count trigger per statement on songs and on scheduled_song_links, each calling one function
-- per kept count (docs/query-plans.md, "How to add a kept count").
--
-- sql/0016, 0017 and 0018 each added their own UPDATE trigger on songs beside sql/0019's
-- songs_count_trigger(), each joining old_rows to new_rows again to find the songs that changed;
-- and sql/0008, 0009, 0016 and 0017 each added three triggers on scheduled_song_links that found
-- the same listed and unlisted live songs. Now:
--   - songs_count_trigger() finds, in one pass, the live songs entering or leaving a release date,
--     the songs that became live or stopped, and the settled ones among them, and hands each set
--     to the functions of the counts kept over it (move_live_song_*);
--   - move_settled_songs() moves every count of *settled* songs (live and not listed in
--     scheduled_song_links: sql/0008, 0009, 0016, 0017); songs_count_trigger() and the one
--     trigger on scheduled_song_links call it with the songs that became settled (+1) or stopped
--     being settled (-1).
-- Same counts: the bodies are those of the triggers they replace.

-- Counts of live songs ---------------------------------------------------------------------------

-- sql/0006: live songs in the catalogue and per release date, from (release date, +1/-1) pairs.
CREATE FUNCTION move_live_song_dates(dates date[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  UPDATE catalogue_counts SET live_songs = live_songs + d.total
  FROM (SELECT sum(x) AS total FROM unnest(deltas) x) d WHERE d.total <> 0;
  INSERT INTO song_date_counts AS t (released_at, live_songs)
  SELECT x.released_at, sum(x.delta) FROM unnest(dates, deltas) AS x(released_at, delta)
  GROUP BY x.released_at HAVING sum(x.delta) <> 0
  ON CONFLICT (released_at) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
$$;

-- sql/0018: every genre/label/year combination of the songs, from (song, release date, +1/-1);
-- a song re-dated within its year sums to 0 and moves nothing.
CREATE FUNCTION move_live_song_facets(song_ids integer[], dates date[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO song_facet_counts AS t (genre_id, label_id, year, live_songs)
  SELECT f.genre_id, f.label_id, f.year, sum(x.delta)
  FROM (SELECT u.id, song_release_year(u.released_at) AS year, sum(u.delta) AS delta
        FROM unnest(song_ids, dates, deltas) AS u(id, released_at, delta)
        GROUP BY 1, 2 HAVING sum(u.delta) <> 0) x
  CROSS JOIN LATERAL song_facets(x.id, x.year) f
  GROUP BY f.genre_id, f.label_id, f.year HAVING sum(x.delta) <> 0
  ON CONFLICT (genre_id, label_id, year) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
$$;

-- The functions below take the songs that became live (+1) or stopped (-1).

-- sql/0006: live credits per artist and catalogue-wide.
CREATE FUNCTION move_live_song_credits(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  SELECT add_live_credits(array_agg(c.artist_id), array_agg(ch.delta))
  FROM unnest(song_ids, deltas) AS ch(id, delta) JOIN credits c ON c.song_id = ch.id;
$$;

-- sql/0003: live contributions per member, live songs per label and per genre.
CREATE FUNCTION move_live_song_contributions(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO member_contribution_counts AS t (member_id, live)
  SELECT c.member_id, sum(ch.delta) FROM unnest(song_ids, deltas) AS ch(id, delta)
  JOIN contributions c ON c.song_id = ch.id GROUP BY c.member_id
  ON CONFLICT (member_id) DO UPDATE SET live = t.live + excluded.live;
$$;

CREATE FUNCTION move_live_song_labels(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO label_counts AS t (label_id, live_songs)
  SELECT x.label_id, sum(ch.delta) FROM unnest(song_ids, deltas) AS ch(id, delta)
  JOIN song_labels x ON x.song_id = ch.id GROUP BY x.label_id
  ON CONFLICT (label_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
$$;

CREATE FUNCTION move_live_song_genres(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO genre_counts AS t (genre_id, live_songs)
  SELECT x.genre_id, sum(ch.delta) FROM unnest(song_ids, deltas) AS ch(id, delta)
  JOIN song_genres x ON x.song_id = ch.id GROUP BY x.genre_id
  ON CONFLICT (genre_id) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
$$;

-- Counts of settled songs ------------------------------------------------------------------------
-- Each takes the songs that became settled (+1) or stopped being settled (-1).

-- sql/0008: settled songs per artist (a song once however many credits the artist has on it).
CREATE FUNCTION move_settled_song_artists(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  SELECT add_settled_songs(array_agg(c.artist_id), array_agg(ch.delta))
  FROM unnest(song_ids, deltas) AS ch(id, delta)
  CROSS JOIN LATERAL (SELECT DISTINCT c.artist_id FROM credits c WHERE c.song_id = ch.id) c;
$$;

-- sql/0009: settled contributions per member.
CREATE FUNCTION move_settled_song_contributions(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  SELECT add_settled_contributions(array_agg(c.member_id), array_agg(ch.delta))
  FROM unnest(song_ids, deltas) AS ch(id, delta) JOIN contributions c ON c.song_id = ch.id;
$$;

-- sql/0016: settled songs per artist and role, and per artist and role tag (sql/0016's
-- add_artist_role_songs, renamed).
CREATE FUNCTION move_settled_song_roles(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
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

-- sql/0017: settled songs per label and per genre.
CREATE FUNCTION move_settled_song_labels(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  SELECT add_label_settled_songs(array_agg(x.label_id), array_agg(ch.delta))
  FROM unnest(song_ids, deltas) AS ch(id, delta) JOIN song_labels x ON x.song_id = ch.id;
$$;

CREATE FUNCTION move_settled_song_genres(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  SELECT add_genre_settled_songs(array_agg(x.genre_id), array_agg(ch.delta))
  FROM unnest(song_ids, deltas) AS ch(id, delta) JOIN song_genres x ON x.song_id = ch.id;
$$;

-- Every count of settled songs: one line each.
CREATE FUNCTION move_settled_songs(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM move_settled_song_artists(song_ids, deltas);
  PERFORM move_settled_song_contributions(song_ids, deltas);
  PERFORM move_settled_song_roles(song_ids, deltas);
  PERFORM move_settled_song_labels(song_ids, deltas);
  PERFORM move_settled_song_genres(song_ids, deltas);
END $$;

-- songs ------------------------------------------------------------------------------------------

-- Inserted songs have no links yet; deleted songs lost theirs first (foreign keys): only the
-- counts of songs and dates move for them. Fires before songs_scheduled_count_* (name order), so
-- it sees scheduled_song_links as it was before the statement, as the settled counts need.
CREATE OR REPLACE FUNCTION songs_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  song_ids integer[];
  dates date[];
  deltas bigint[];
  changed_ids integer[];
  changed_deltas bigint[];
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

DROP TRIGGER songs_artist_role_count_update ON songs;
DROP TRIGGER songs_link_song_count_update ON songs;
DROP TRIGGER songs_facet_count_update ON songs;
DROP FUNCTION songs_artist_role_count_trigger();
DROP FUNCTION songs_link_song_count_trigger();
DROP FUNCTION songs_facet_count_trigger();

-- scheduled_song_links ---------------------------------------------------------------------------

-- A live song listed there stops being settled (-1); one removed (its time has come, or it was
-- rescheduled, unpublished or deleted) is settled again if it is live (+1).
CREATE FUNCTION scheduled_song_links_settled_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER scheduled_song_links_settled_count_insert AFTER INSERT ON scheduled_song_links
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_settled_count_trigger();
CREATE TRIGGER scheduled_song_links_settled_count_update AFTER UPDATE ON scheduled_song_links
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_settled_count_trigger();
CREATE TRIGGER scheduled_song_links_settled_count_delete AFTER DELETE ON scheduled_song_links
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_settled_count_trigger();

DROP TRIGGER scheduled_song_links_artist_song_count_insert ON scheduled_song_links;
DROP TRIGGER scheduled_song_links_artist_song_count_update ON scheduled_song_links;
DROP TRIGGER scheduled_song_links_artist_song_count_delete ON scheduled_song_links;
DROP TRIGGER scheduled_song_links_member_count_insert ON scheduled_song_links;
DROP TRIGGER scheduled_song_links_member_count_update ON scheduled_song_links;
DROP TRIGGER scheduled_song_links_member_count_delete ON scheduled_song_links;
DROP TRIGGER scheduled_song_links_artist_role_count_insert ON scheduled_song_links;
DROP TRIGGER scheduled_song_links_artist_role_count_update ON scheduled_song_links;
DROP TRIGGER scheduled_song_links_artist_role_count_delete ON scheduled_song_links;
DROP TRIGGER scheduled_song_links_link_song_count_insert ON scheduled_song_links;
DROP TRIGGER scheduled_song_links_link_song_count_update ON scheduled_song_links;
DROP TRIGGER scheduled_song_links_link_song_count_delete ON scheduled_song_links;
DROP FUNCTION scheduled_song_links_artist_song_count_trigger();
DROP FUNCTION scheduled_song_links_member_count_trigger();
DROP FUNCTION scheduled_song_links_artist_role_count_trigger();
DROP FUNCTION scheduled_song_links_link_song_count_trigger();
DROP FUNCTION add_artist_role_songs(integer[], integer[]);

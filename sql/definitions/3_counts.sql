-- The kept counts (docs/data-model.md): what the lists, totals and filters count, kept by
-- triggers as rows are written so that no request counts rows, and rebuilt by recounts (TRUNCATE
-- triggers, and src/Seed/keptCounts.ts after a bulk load). Counts of live rows (published or
-- scheduled, not deleted) are kept as they are written; counts of settled songs (live and not
-- listed in scheduled_song_links) are what the lists sort by. What the clock changes is read at
-- request time: the readers at the end add the due rows or subtract the scheduled ones.
--
-- Most counts are one line of kept_counts(): one generic trigger keeps every declared count of
-- a table, songs_count_trigger() moves them when songs change state, and recount_kept_counts()
-- rebuilds them from the same line. The counts that are not a sum of rows (an artist's distinct
-- songs, the facets, the artists' albums, the scheduled lists and buckets) have their own
-- functions below the declarations. Every trigger is attached in one list.
-- refill: recount_scheduled_song_links, recount_artist_song_counts, recount_kept_counts, recount_artist_role_counts, recount_artist_album_links, recount_scheduled_label_albums, recount_song_facet_counts

-- ---- The declarations ----------------------------------------------------------------------

-- One line a kept count: `target`.`count_column` (a row per `key_column`, or the one row of a
-- total: key_column only_row) sums `weight` over the rows of `source` that are counted:
--   'live song' / 'settled song': rows of the song `r.song_id` while it is live / settled, moved
--     by songs_count_trigger() and scheduled_song_links' trigger when the song changes;
--   'live album': rows of the album `r.album_id` while it is live, moved when the album changes;
--   any other text: that condition on the source row `r`.
-- `recounted` false: the same count as the line above it, also moved by another table's writes.
CREATE OR REPLACE FUNCTION kept_counts()
  RETURNS TABLE(target text, key_column text, count_column text, source text, counted text, weight text, recounted boolean)
  LANGUAGE sql IMMUTABLE AS $$ VALUES
  -- live rows per owner: credits, contributions, songs of genres and labels
  ('artist_counts',                'artist_id',  'live_credits',       'credits',       'live song',    '1', true),
  ('member_contribution_counts',   'member_id',  'live',               'contributions', 'live song',    '1', true),
  ('genre_counts',                 'genre_id',   'live_songs',         'song_genres',   'live song',    '1', true),
  ('label_counts',                 'label_id',   'live_songs',         'song_labels',   'live song',    '1', true),
  -- live albums: per label, per type, an artist's album credits
  ('label_counts',                 'label_id',   'live_albums',        'albums',        'r.label_id IS NOT NULL AND album_is_live(r.published_at)', '1', true),
  ('album_type_counts',            'album_type', 'live_albums',        'albums',        'album_is_live(r.published_at)', '1', true),
  ('artist_counts',                'artist_id',  'live_album_credits', 'album_artists', 'live album',   '1', true),
  -- settled songs per owner, the owners' lists sort by
  ('member_settled_contributions', 'member_id',  'settled',            'contributions', 'settled song', '1', true),
  ('genre_song_counts',            'genre_id',   'settled_songs',      'song_genres',   'settled song', '1', true),
  ('label_song_counts',            'label_id',   'settled_songs',      'song_labels',   'settled song', '1', true),
  -- public members, per kind and in all
  ('public_member_kind_counts',    'kind',       'members',            'members',       'member_is_public(r.username, r.is_banned)', '1', true),
  ('public_member_total',          'only_row',   'members',            'members',       'member_is_public(r.username, r.is_banned)', '1', true),
  -- totals over the kept counts: the owners above zero, the credits in all
  ('artist_song_totals',           'only_row',   'with_settled',       'artist_song_counts', 'r.settled_songs > 0', '1', true),
  ('public_member_total',          'only_row',   'with_settled',       'member_settled_contributions', 'r.settled > 0 AND EXISTS (SELECT 1 FROM members m WHERE m.id = r.member_id AND member_is_public(m.username, m.is_banned))', '1', true),
  ('public_member_total',          'only_row',   'with_settled',       'members', 'member_is_public(r.username, r.is_banned) AND EXISTS (SELECT 1 FROM member_settled_contributions c WHERE c.member_id = r.id AND c.settled > 0)', '1', false),
  ('catalogue_counts',             'only_row',   'live_credits',       'artist_counts', 'true', 'r.live_credits', true),
  ('catalogue_counts',             'only_row',   'live_artists',       'artist_counts', 'r.live_credits > 0 OR r.live_album_credits > 0', '1', true),
  ('catalogue_counts',             'only_row',   'live_contributors',  'member_contribution_counts', 'r.live > 0 AND EXISTS (SELECT 1 FROM members m WHERE m.id = r.member_id AND member_is_public(m.username, m.is_banned))', '1', true),
  ('catalogue_counts',             'only_row',   'live_contributors',  'members', 'member_is_public(r.username, r.is_banned) AND EXISTS (SELECT 1 FROM member_contribution_counts c WHERE c.member_id = r.id AND c.live > 0)', '1', false)
$$;

-- The declared targets in the order they can be recounted: a total after the counts it sums.
CREATE OR REPLACE FUNCTION kept_count_targets() RETURNS TABLE(target text, depth integer) LANGUAGE sql STABLE AS $$
  WITH RECURSIVE deps(target, depth) AS (
    SELECT k.target, 0 FROM kept_counts() k
    UNION
    SELECT k.target, d.depth + 1 FROM deps d JOIN kept_counts() k ON k.source = d.target)
  SELECT d.target, max(d.depth)::integer FROM deps d GROUP BY d.target ORDER BY 2, 1
$$;

-- (key, delta) of a declaration over `from_rows` (the source rows aliased r): each counted row
-- adds `sign` times its weight.
CREATE OR REPLACE FUNCTION kept_count_rows(key_column text, counted text, weight text, from_rows text, sign text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN format('SELECT %s AS key, (%s) * (%s) AS delta FROM %s WHERE %s',
    CASE key_column WHEN 'only_row' THEN 'true' ELSE 'r.' || quote_ident(key_column) END, sign, weight, from_rows,
    CASE counted
      WHEN 'live song' THEN 'EXISTS (SELECT 1 FROM songs s WHERE s.id = r.song_id AND song_is_live(s.published_at, s.deleted_at))'
      -- song_is_settled() written as joins the planner can hash (a function's subqueries it cannot)
      WHEN 'settled song' THEN 'EXISTS (SELECT 1 FROM songs s WHERE s.id = r.song_id AND song_is_live(s.published_at, s.deleted_at))
                                AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = r.song_id)'
      WHEN 'live album' THEN 'EXISTS (SELECT 1 FROM albums a WHERE a.id = r.album_id AND album_is_live(a.published_at))'
      ELSE counted END);
END $$;

-- The statement adding the deltas `rows` yields to a declared count, a row a key.
CREATE OR REPLACE FUNCTION kept_count_upsert(target text, key_column text, count_column text, rows text) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN
  RETURN format('INSERT INTO %1$I AS t (%2$I, %3$I) SELECT x.key, sum(x.delta) FROM (%4$s) x GROUP BY x.key HAVING sum(x.delta) <> 0 '
                'ON CONFLICT (%2$I) DO UPDATE SET %3$I = t.%3$I + excluded.%3$I', target, key_column, count_column, rows);
END $$;

-- Songs (or albums) that became live or settled (+1) or stopped (-1): the counts of their rows
-- declared `moved` ('live song', 'settled song', 'live album').
CREATE OR REPLACE FUNCTION move_kept_counts(moved text, ids integer[], deltas bigint[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  d record;
BEGIN
  FOR d IN SELECT * FROM kept_counts() k WHERE k.counted = moved LOOP
    EXECUTE kept_count_upsert(d.target, d.key_column, d.count_column, kept_count_rows(d.key_column, 'true', d.weight,
      format('unnest($1, $2) AS ch(id, delta) JOIN %I r ON r.%I = ch.id', d.source, CASE moved WHEN 'live album' THEN 'album_id' ELSE 'song_id' END),
      'ch.delta'))
    USING ids, deltas;
  END LOOP;
END $$;

-- Rebuilds the declared counts of `targets` (all of them when NULL) from their sources, totals
-- last. A total's row stays (its columns start again from 0); other targets are emptied.
CREATE OR REPLACE FUNCTION recount_kept_counts(targets text[] DEFAULT NULL) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  d record; emptied text[] := '{}';
BEGIN
  FOR d IN SELECT k.* FROM kept_count_targets() o JOIN kept_counts() k ON k.target = o.target
           WHERE k.recounted AND (targets IS NULL OR k.target = ANY (targets)) ORDER BY o.depth, o.target LOOP
    IF d.key_column = 'only_row' THEN
      EXECUTE format('UPDATE %1$I SET %2$I = 0', d.target, d.count_column);
    ELSIF NOT d.target = ANY (emptied) THEN
      EXECUTE format('DELETE FROM %I', d.target);
      emptied := emptied || d.target;
    END IF;
    EXECUTE kept_count_upsert(d.target, d.key_column, d.count_column,
      kept_count_rows(d.key_column, d.counted, d.weight, quote_ident(d.source) || ' r', '1'));
  END LOOP;
END $$;

-- ---- The scheduled songs and their links: scheduled_song_links ------------------------------

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

-- The list of scheduled songs, the live songs per release date and in all.
CREATE OR REPLACE FUNCTION recount_scheduled_song_links() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM song_date_counts;
  INSERT INTO song_date_counts (released_at, live_songs)
  SELECT released_at, count(*) FROM songs WHERE song_is_live(published_at, deleted_at) GROUP BY released_at;
  UPDATE catalogue_counts SET live_songs = (SELECT count(*) FROM songs WHERE song_is_live(published_at, deleted_at));
  DELETE FROM scheduled_song_links;
  PERFORM refresh_scheduled_song_links(ARRAY(SELECT id FROM songs WHERE song_is_scheduled(published_at, deleted_at)));
END $$;

-- ---- An artist's distinct settled songs: in all, per role, per role tag ----------------------

-- Adds deltas of an artist's settled songs: (artist, NULL, NULL) to artist_song_counts (a zero
-- adds the artist's row when missing), (artist, role, NULL) per role, (artist, NULL, tag) per tag.
CREATE OR REPLACE FUNCTION add_credit_songs(artist_ids integer[], role_ids integer[], tags text[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  WITH d AS (
    SELECT u.artist_id, u.role_id, u.tag, sum(u.delta) AS delta
    FROM unnest(artist_ids, role_ids, tags, deltas) AS u(artist_id, role_id, tag, delta)
    GROUP BY u.artist_id, u.role_id, u.tag),
  roles_added AS (
    INSERT INTO artist_role_song_counts AS t (artist_id, role_id, settled_songs)
    SELECT d.artist_id, d.role_id, d.delta FROM d WHERE d.role_id IS NOT NULL AND d.delta <> 0
    ON CONFLICT (artist_id, role_id) DO UPDATE SET settled_songs = t.settled_songs + excluded.settled_songs),
  tags_added AS (
    INSERT INTO artist_tag_song_counts AS t (artist_id, tag, settled_songs)
    SELECT d.artist_id, d.tag, d.delta FROM d WHERE d.tag IS NOT NULL AND d.delta <> 0
    ON CONFLICT (artist_id, tag) DO UPDATE SET settled_songs = t.settled_songs + excluded.settled_songs)
  INSERT INTO artist_song_counts AS t (artist_id, settled_songs, name_key, search_name, search_full_name)
  SELECT d.artist_id, d.delta, lower(a.name), a.search_name, a.search_full_name
  FROM d LEFT JOIN artists a ON a.id = d.artist_id WHERE d.role_id IS NULL AND d.tag IS NULL
  ON CONFLICT (artist_id) DO UPDATE SET settled_songs = t.settled_songs + excluded.settled_songs
  WHERE excluded.settled_songs <> 0;
$$;

-- Credits that appeared (ns +1) or went (-1): a (song, artist[, role or tag]) is counted while it
-- has a credit, so it moves when its credits cross zero (before = now - added + removed). A credit
-- on a scheduled song adds its artist's row, with nothing to add.
CREATE OR REPLACE FUNCTION add_credit_changes(song_ids integer[], artist_ids integer[], role_ids integer[], ns integer[]) RETURNS void LANGUAGE sql AS $$
  WITH changed AS (
    SELECT u.song_id, u.artist_id, g.role_id, g.tag, sum(u.n) AS n
    FROM unnest(song_ids, artist_ids, role_ids, ns) AS u(song_id, artist_id, role_id, n)
    JOIN roles r ON r.id = u.role_id
    CROSS JOIN LATERAL (VALUES (NULL::integer, NULL::text), (u.role_id, NULL), (NULL, r.tag)) AS g(role_id, tag)
    WHERE song_is_settled(u.song_id)
    GROUP BY u.song_id, u.artist_id, g.role_id, g.tag)
  SELECT add_credit_songs(array_agg(x.artist_id), array_agg(x.role_id), array_agg(x.tag), array_agg(x.delta::bigint))
  FROM (
    SELECT c.artist_id, c.role_id, c.tag, (now_n.n > 0)::integer - (now_n.n - c.n > 0)::integer AS delta
    FROM changed c CROSS JOIN LATERAL (
      SELECT count(*) AS n FROM credits k JOIN roles r ON r.id = k.role_id
      WHERE k.song_id = c.song_id AND k.artist_id = c.artist_id
        AND (c.role_id IS NULL OR k.role_id = c.role_id) AND (c.tag IS NULL OR r.tag = c.tag)) now_n
    UNION ALL
    SELECT u.artist_id, NULL, NULL, 0 FROM unnest(song_ids, artist_ids, ns) AS u(song_id, artist_id, n)
    WHERE u.n > 0 AND EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = u.song_id)) x;
$$;

-- Songs that became settled (+1) or stopped (-1): each of their artists, roles and tags once.
CREATE OR REPLACE FUNCTION move_settled_song_credits(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  SELECT add_credit_songs(array_agg(k.artist_id), array_agg(k.role_id), array_agg(k.tag), array_agg(m.delta))
  FROM unnest(song_ids, deltas) AS m(song_id, delta)
  CROSS JOIN LATERAL (
    SELECT DISTINCT c.artist_id, g.role_id, g.tag FROM credits c JOIN roles r ON r.id = c.role_id
    CROSS JOIN LATERAL (VALUES (NULL::integer, NULL::text), (c.role_id, NULL), (NULL, r.tag)) AS g(role_id, tag)
    WHERE c.song_id = m.song_id) k;
$$;

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
  PERFORM recount_kept_counts(ARRAY['artist_song_totals']);
END $$;

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

-- ---- An artist's albums: artist_album_links, artist_album_counts ----------------------------

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

CREATE OR REPLACE FUNCTION recount_artist_album_links() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM artist_album_links;
  INSERT INTO artist_album_links (artist_id, album_id, released_key, published_at)
  SELECT artist_id, album_id, released_key, published_at FROM artist_album_links_settled;
  DELETE FROM artist_album_counts;
  INSERT INTO artist_album_counts (artist_id, live_albums)
  SELECT artist_id, count(*) FROM artist_album_links GROUP BY artist_id;
END $$;

-- ---- A label's scheduled albums: scheduled_label_albums -------------------------------------

CREATE OR REPLACE FUNCTION recount_scheduled_label_albums() RETURNS void LANGUAGE sql AS $$
  DELETE FROM scheduled_label_albums;
  INSERT INTO scheduled_label_albums (album_id, label_id, published_at)
  SELECT a.id, a.label_id, a.published_at FROM albums a
  WHERE a.label_id IS NOT NULL AND album_is_live(a.published_at) AND NOT album_is_public(a.published_at);
$$;

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

-- The combinations changed links are in (`link`: genre_id or label_id, the links' column), with
-- the song's other links as they are now; added with `delta` for links of live songs.
CREATE OR REPLACE FUNCTION add_link_facet_counts(song_ids integer[], link_ids integer[], link text, delta integer) RETURNS void LANGUAGE sql AS $$
  INSERT INTO song_facet_counts AS t (genre_id, label_id, year, live_songs)
  SELECT f.genre_id, f.label_id, f.year, count(*) * delta
  FROM unnest(song_ids, link_ids) AS x(song_id, link_id)
  JOIN songs s ON s.id = x.song_id AND song_is_live(s.published_at, s.deleted_at)
  CROSS JOIN LATERAL (
    SELECT x.link_id AS genre_id, 0 AS label_id, song_release_year(s.released_at) AS year WHERE link = 'genre_id'
    UNION ALL
    SELECT x.link_id, l.label_id, y.year
    FROM song_labels l CROSS JOIN (VALUES (0), (song_release_year(s.released_at))) AS y(year)
    WHERE link = 'genre_id' AND l.song_id = x.song_id
    UNION ALL
    SELECT 0, x.link_id, song_release_year(s.released_at) WHERE link = 'label_id'
    UNION ALL
    SELECT g.genre_id, x.link_id, y.year
    FROM song_genres g CROSS JOIN (VALUES (0), (song_release_year(s.released_at))) AS y(year)
    WHERE link = 'label_id' AND g.song_id = x.song_id
  ) f
  GROUP BY f.genre_id, f.label_id, f.year
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

-- ---- Songs changing state: what every count of songs needs ----------------------------------

-- live songs in the catalogue and per release date, from (release date, +1/-1) pairs.
CREATE OR REPLACE FUNCTION move_live_song_dates(dates date[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  UPDATE catalogue_counts SET live_songs = live_songs + d.total
  FROM (SELECT sum(x) AS total FROM unnest(deltas) x) d WHERE d.total <> 0;
  INSERT INTO song_date_counts AS t (released_at, live_songs)
  SELECT x.released_at, sum(x.delta) FROM unnest(dates, deltas) AS x(released_at, delta)
  GROUP BY x.released_at HAVING sum(x.delta) <> 0
  ON CONFLICT (released_at) DO UPDATE SET live_songs = t.live_songs + excluded.live_songs;
$$;

-- The songs that became settled or stopped being (a settled song becoming live or not, a live
-- song listed or unlisted in scheduled_song_links). Both tables' count triggers call it.
CREATE OR REPLACE FUNCTION move_settled_songs(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM move_kept_counts('settled song', song_ids, deltas);
  PERFORM move_settled_song_credits(song_ids, deltas);
  PERFORM refresh_artist_album_links_of_songs(song_ids);
END $$;

-- ---- The triggers --------------------------------------------------------------------------

-- Songs: finds the live songs a statement moved (became live or stopped, a new date, views or
-- title) and hands them to the counts: the sort buckets by their old (-1) and new (+1) keys, the
-- live songs per date, the counts of their rows when they became live or stopped. Inserted songs
-- have no links yet; deleted songs lost theirs first (foreign keys): only the counts of songs and
-- dates move for them. Fires before songs_scheduled_count_* (name order), so it sees
-- scheduled_song_links as it was before the statement, as the settled counts need.
CREATE OR REPLACE FUNCTION songs_count_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  ids integer[]; dates date[]; views bigint[]; titles text[]; deltas bigint[]; dated boolean[];
  changed_ids integer[]; changed_deltas bigint[];
BEGIN
  -- the live rows moved, and whether the song's liveness or date moved (`dated`)
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.id), array_agg(n.released_at), array_agg(coalesce(n.vidsvc_views, -1)), array_agg(lower(n.title)),
      array_agg(1::bigint), array_agg(true)
    INTO ids, dates, views, titles, deltas, dated FROM new_rows n WHERE song_is_live(n.published_at, n.deleted_at);
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.id), array_agg(o.released_at), array_agg(coalesce(o.vidsvc_views, -1)), array_agg(lower(o.title)),
      array_agg(-1::bigint), array_agg(true)
    INTO ids, dates, views, titles, deltas, dated FROM old_rows o WHERE song_is_live(o.published_at, o.deleted_at);
  ELSE
    SELECT array_agg(m.id), array_agg(m.released_at), array_agg(m.views), array_agg(m.title), array_agg(m.delta), array_agg(m.dated)
    INTO ids, dates, views, titles, deltas, dated
    FROM (
      SELECT o.id, o.released_at, coalesce(o.vidsvc_views, -1) AS views, lower(o.title) AS title, -1::bigint AS delta,
        NOT (song_is_live(n.published_at, n.deleted_at) AND n.released_at = o.released_at) AS dated
      FROM old_rows o JOIN new_rows n ON n.id = o.id
      WHERE song_is_live(o.published_at, o.deleted_at)
        AND NOT (song_is_live(n.published_at, n.deleted_at) AND n.released_at = o.released_at
                 AND coalesce(n.vidsvc_views, -1) = coalesce(o.vidsvc_views, -1) AND lower(n.title) = lower(o.title))
      UNION ALL
      SELECT n.id, n.released_at, coalesce(n.vidsvc_views, -1), lower(n.title), 1,
        NOT (song_is_live(o.published_at, o.deleted_at) AND o.released_at = n.released_at)
      FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE song_is_live(n.published_at, n.deleted_at)
        AND NOT (song_is_live(o.published_at, o.deleted_at) AND o.released_at = n.released_at
                 AND coalesce(o.vidsvc_views, -1) = coalesce(n.vidsvc_views, -1) AND lower(o.title) = lower(n.title))
    ) m;
  END IF;
  IF ids IS NULL THEN
    RETURN NULL;
  END IF;

  -- the sort buckets of settled songs: listed songs move with scheduled_song_links' trigger
  PERFORM move_song_buckets(array_agg(u.released_at), array_agg(u.views), array_agg(u.title), array_agg(u.id), array_agg(u.delta))
  FROM unnest(ids, dates, views, titles, deltas) AS u(id, released_at, views, title, delta)
  WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = u.id) HAVING count(*) > 0;

  -- (song, release date, +1/-1): a live song entering or leaving a date
  SELECT array_agg(u.id), array_agg(u.released_at), array_agg(u.delta) INTO ids, dates, deltas
  FROM unnest(ids, dates, deltas, dated) AS u(id, released_at, delta, dated) WHERE u.dated;
  IF ids IS NULL THEN
    RETURN NULL;
  END IF;
  PERFORM move_live_song_dates(dates, deltas);
  IF TG_OP <> 'UPDATE' THEN
    RETURN NULL;
  END IF;
  PERFORM move_live_song_facets(ids, dates, deltas);

  -- The songs that became live (+1) or stopped being live (-1); a new date alone sums to 0.
  SELECT array_agg(x.id), array_agg(x.delta) INTO changed_ids, changed_deltas
  FROM (SELECT u.id, sum(u.delta)::bigint AS delta FROM unnest(ids, deltas) AS u(id, delta)
        GROUP BY u.id HAVING sum(u.delta) <> 0) x;
  IF changed_ids IS NULL THEN
    RETURN NULL;
  END IF;
  PERFORM move_kept_counts('live song', changed_ids, changed_deltas);

  -- The settled ones among them: songs listed in scheduled_song_links are moved by that table's trigger.
  PERFORM move_settled_songs(array_agg(ch.id), array_agg(ch.delta))
  FROM unnest(changed_ids, changed_deltas) AS ch(id, delta)
  WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = ch.id) HAVING count(*) > 0;
  RETURN NULL;
END $$;

-- Keeps scheduled_song_links: a song's row holds its published_at and released_at, and whether
-- it is listed follows deleted_at too, so on an update of songs only a change of those (or of
-- the id) rewrites it. A song still listed after its time (due: the clock wrote nothing) is
-- rewritten too: unpublished, or given a label, it must leave the list and settle as it now is.
-- Each rewrite moves the kept counts through scheduled_song_links' own triggers (~0.5 s a song
-- at 1M songs): rewriting every scheduled song a views refresh touched would cost seconds.
CREATE OR REPLACE FUNCTION scheduled_song_links_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
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

-- scheduled_song_links: a live song listed there stops being settled (-1); one removed (its time
-- has come, or it was rescheduled, unpublished or deleted) is settled again if it is live (+1).
-- The sort buckets are moved here, not in move_settled_songs(): songs_count_trigger() moves the
-- buckets of the settled songs that became live or stopped by their old and new keys.
CREATE OR REPLACE FUNCTION scheduled_song_links_settled_count_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  song_ids integer[] := '{}'; ns bigint[] := '{}'; moved integer[]; moved_deltas bigint[];
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

-- Every declared count of the table written: its new rows add, its old rows subtract. An album
-- becoming live or not also moves the counts of its rows ('live album').
CREATE OR REPLACE FUNCTION kept_counts_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  d record; album_ids integer[]; deltas bigint[];
BEGIN
  FOR d IN SELECT * FROM kept_counts() k WHERE k.source = TG_TABLE_NAME LOOP
    EXECUTE kept_count_upsert(d.target, d.key_column, d.count_column, concat_ws(' UNION ALL ',
      CASE WHEN TG_OP <> 'DELETE' THEN kept_count_rows(d.key_column, d.counted, d.weight, 'new_rows r', '1') END,
      CASE WHEN TG_OP <> 'INSERT' THEN kept_count_rows(d.key_column, d.counted, d.weight, 'old_rows r', '-1') END));
  END LOOP;
  IF TG_TABLE_NAME = 'albums' AND TG_OP = 'UPDATE' THEN
    SELECT array_agg(n.id), array_agg(CASE WHEN album_is_live(n.published_at) THEN 1 ELSE -1 END::bigint) INTO album_ids, deltas
    FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE album_is_live(n.published_at) <> album_is_live(o.published_at);
    IF album_ids IS NOT NULL THEN
      PERFORM move_kept_counts('live album', album_ids, deltas);
    END IF;
  END IF;
  RETURN NULL;
END $$;

-- credits: an artist's distinct settled songs, per role and per tag (add_credit_changes).
CREATE OR REPLACE FUNCTION credits_song_count_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  song_ids integer[] := '{}'; artist_ids integer[] := '{}'; role_ids integer[] := '{}';
  ns integer[] := '{}';
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT song_ids || array_agg(n.song_id), artist_ids || array_agg(n.artist_id), role_ids || array_agg(n.role_id), ns || array_agg(1)
    INTO song_ids, artist_ids, role_ids, ns FROM new_rows n;
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    SELECT song_ids || array_agg(o.song_id), artist_ids || array_agg(o.artist_id), role_ids || array_agg(o.role_id), ns || array_agg(-1)
    INTO song_ids, artist_ids, role_ids, ns FROM old_rows o;
  END IF;
  PERFORM add_credit_changes(song_ids, artist_ids, role_ids, ns);
  RETURN NULL;
END $$;

-- album_artists, album_tracks (argument album_id): the albums of the rows written; credits
-- (argument song_id): the albums of their songs; albums: those whose publication time or release
-- date changed (an inserted album has no artists or tracks yet; a deleted one lost them first).
CREATE OR REPLACE FUNCTION rows_artist_album_count_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  ids integer[] := '{}';
BEGIN
  IF TG_TABLE_NAME = 'albums' THEN
    PERFORM refresh_artist_album_links(ARRAY(
      SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
      WHERE (n.published_at, n.released_at) IS DISTINCT FROM (o.published_at, o.released_at)));
    RETURN NULL;
  END IF;
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

-- song_genres, song_labels (argument: the link's column): the facets of the links written.
CREATE OR REPLACE FUNCTION song_links_facet_count_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  song_ids integer[]; link_ids integer[];
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    SELECT array_agg(o.song_id ORDER BY o.song_id), array_agg((to_jsonb(o) ->> TG_ARGV[0])::int ORDER BY o.song_id)
    INTO song_ids, link_ids FROM old_rows o;
    PERFORM add_link_facet_counts(song_ids, link_ids, TG_ARGV[0], -1);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    SELECT array_agg(n.song_id ORDER BY n.song_id), array_agg((to_jsonb(n) ->> TG_ARGV[0])::int ORDER BY n.song_id)
    INTO song_ids, link_ids FROM new_rows n;
    PERFORM add_link_facet_counts(song_ids, link_ids, TG_ARGV[0], 1);
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION albums_scheduled_label_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
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

-- Every trigger of the counts, one line each: statement-level AFTER triggers with transition
-- tables, named <table>_<name>_<operation> (attach_after_statement's, with arguments and chosen
-- operations), and the recounts' refill_trigger()s, <table>_<recount>_<operation>; each source of
-- kept_counts() gets <table>_count_* calling kept_counts_trigger() and a refill on TRUNCATE. Triggers of a table fire in name order: the count triggers of
-- songs and the link tables sort before *_scheduled_count_*, so they see scheduled_song_links as
-- it was. Run again when kept_counts() changes (test/kept-count-declaration.test.ts does).
CREATE OR REPLACE FUNCTION attach_count_triggers() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  a record; op text; fn text;
BEGIN
  FOR a IN
    SELECT * FROM (VALUES
      ('songs',                'count',             '{delete,insert,update}', 'songs_count_trigger()'),
      ('songs',                'scheduled_count',   '{delete,insert,update}', 'scheduled_song_links_trigger()'),
      ('contributions',        'scheduled_count',   '{delete,insert,update}', 'scheduled_song_links_trigger()'),
      ('credits',              'scheduled_count',   '{delete,insert,update}', 'scheduled_song_links_trigger()'),
      ('song_genres',          'scheduled_count',   '{delete,insert,update}', 'scheduled_song_links_trigger()'),
      ('song_labels',          'scheduled_count',   '{delete,insert,update}', 'scheduled_song_links_trigger()'),
      ('scheduled_song_links', 'settled_count',     '{delete,insert,update}', 'scheduled_song_links_settled_count_trigger()'),
      ('credits',              'artist_song_count', '{delete,insert,update}', 'credits_song_count_trigger()'),
      ('album_artists',        'artist_album_count', '{delete,insert,update}', 'rows_artist_album_count_trigger(album_id)'),
      ('album_tracks',         'artist_album_count', '{delete,insert,update}', 'rows_artist_album_count_trigger(album_id)'),
      ('credits',              'artist_album_count', '{delete,insert,update}', 'rows_artist_album_count_trigger(song_id)'),
      ('albums',               'artist_album_count', '{update}',               'rows_artist_album_count_trigger()'),
      ('song_genres',          'facet_count',       '{delete,insert,update}', 'song_links_facet_count_trigger(genre_id)'),
      ('song_labels',          'facet_count',       '{delete,insert,update}', 'song_links_facet_count_trigger(label_id)'),
      ('albums',               'scheduled_label_count', '{delete,insert,update}', 'albums_scheduled_label_trigger()'),
      -- the recounts, a refill_trigger each (TRUNCATE ... CASCADE empties the linked tables too)
      ('songs',         'recount', '{truncate}', 'recount_catalogue_counts recount_artist_song_counts recount_artist_role_counts recount_song_facet_counts'),
      ('credits',       'recount', '{truncate}', 'recount_artist_song_counts recount_artist_role_counts recount_artist_album_links'),
      ('album_artists', 'recount', '{truncate}', 'recount_artist_album_links'),
      ('album_tracks',  'recount', '{truncate}', 'recount_artist_album_links'),
      ('albums',        'recount', '{truncate}', 'recount_scheduled_label_albums'),
      ('song_genres',   'recount', '{truncate}', 'recount_song_facet_counts'),
      ('song_labels',   'recount', '{truncate}', 'recount_song_facet_counts'),
      ('roles',         'recount', '{update of tag}', 'recount_artist_role_counts recount_artist_album_links')
    ) AS x(tbl, name, ops, call)
    UNION ALL
    SELECT DISTINCT k.source, 'count', '{delete,insert,update}', 'kept_counts_trigger()' FROM kept_counts() k
    UNION ALL
    SELECT DISTINCT k.source, 'recount', '{truncate}', 'recount_kept_counts' FROM kept_counts() k
  LOOP
    FOREACH op IN ARRAY a.ops::text[] LOOP
      FOREACH fn IN ARRAY CASE a.name WHEN 'recount' THEN string_to_array(a.call, ' ') ELSE ARRAY[a.call] END LOOP
        EXECUTE format('CREATE OR REPLACE TRIGGER %I AFTER %s ON %I %s FOR EACH STATEMENT EXECUTE FUNCTION %s',
          concat_ws('_', a.tbl, CASE a.name WHEN 'recount' THEN fn ELSE a.name END, split_part(op, ' ', 1)), upper(op), a.tbl,
          CASE op WHEN 'delete' THEN 'REFERENCING OLD TABLE AS old_rows' WHEN 'insert' THEN 'REFERENCING NEW TABLE AS new_rows'
                  WHEN 'update' THEN 'REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows' ELSE '' END,
          CASE a.name WHEN 'recount' THEN format('refill_trigger(%L)', fn) ELSE fn END);
      END LOOP;
    END LOOP;
  END LOOP;
END $$;
SELECT attach_count_triggers();

-- ---- The recounts by concern (the tests and the TRUNCATE triggers name them) ----------------

CREATE OR REPLACE FUNCTION recount_catalogue_counts() RETURNS void LANGUAGE sql AS $$
  SELECT recount_scheduled_song_links();
  SELECT recount_kept_counts(ARRAY['artist_counts', 'album_type_counts', 'catalogue_counts']);
$$;

CREATE OR REPLACE FUNCTION recount_public_counts() RETURNS void LANGUAGE sql AS $$
  SELECT recount_kept_counts(ARRAY['member_contribution_counts', 'label_counts', 'genre_counts']);
$$;

CREATE OR REPLACE FUNCTION recount_member_settled_contributions() RETURNS void LANGUAGE sql AS $$
  SELECT recount_kept_counts(ARRAY['member_settled_contributions', 'public_member_total']);
$$;

CREATE OR REPLACE FUNCTION recount_public_member_kinds() RETURNS void LANGUAGE sql AS $$
  SELECT recount_kept_counts(ARRAY['public_member_kind_counts']);
$$;

CREATE OR REPLACE FUNCTION recount_link_song_counts() RETURNS void LANGUAGE sql AS $$
  SELECT recount_kept_counts(ARRAY['label_song_counts', 'genre_song_counts']);
$$;

-- ---- The readers: the kept counts with what the clock changed since ------------------------

-- The due links (listed in scheduled_song_links, their time come) per owner.
CREATE OR REPLACE VIEW due_artist_songs AS
  SELECT a.artist_id, count(DISTINCT l.song_id) AS songs
  FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.artist_ids) AS a(artist_id)
  WHERE scheduled_link_is_due(l.published_at) GROUP BY a.artist_id;
CREATE OR REPLACE VIEW due_member_contributions AS
  SELECT x.member_id, count(*) AS contributions
  FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.member_ids) AS x(member_id)
  WHERE scheduled_link_is_due(l.published_at) GROUP BY x.member_id;
CREATE OR REPLACE VIEW due_genre_songs AS
  SELECT x.genre_id, count(*) AS songs FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.genre_ids) AS x(genre_id)
  WHERE scheduled_link_is_due(l.published_at) GROUP BY x.genre_id;
CREATE OR REPLACE VIEW due_label_songs AS
  SELECT x.label_id, count(*) AS songs FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.label_ids) AS x(label_id)
  WHERE scheduled_link_is_due(l.published_at) GROUP BY x.label_id;

-- An artist's, genre's, label's public songs: the kept settled ones and the due ones. PL/pgSQL
-- keeps its plan for the session (in SQL its subqueries would be planned at every execution).
CREATE OR REPLACE FUNCTION public_artist_song_count(artist integer) RETURNS bigint LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN coalesce((SELECT settled_songs FROM artist_song_counts WHERE artist_id = artist), 0)
       + (SELECT count(*) FROM scheduled_song_links l WHERE scheduled_link_is_due(l.published_at) AND artist = ANY (l.artist_ids));
END $$;
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

-- A probe per due song (OFFSET 0: never the artist's credits).
CREATE OR REPLACE FUNCTION public_artist_tag_song_count(artist integer, role_tag text) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN coalesce((SELECT k.settled_songs FROM artist_tag_song_counts k WHERE k.artist_id = artist AND k.tag = role_tag), 0)
       + (SELECT count(*) FROM scheduled_song_links l
          WHERE scheduled_link_is_due(l.published_at) AND artist = ANY (l.artist_ids)
            AND EXISTS (SELECT 1 FROM credits c JOIN roles r ON r.id = c.role_id
                        WHERE c.song_id = l.song_id AND c.artist_id = artist AND r.tag = role_tag OFFSET 0));
END $$;

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

-- the members with due contributions, with the same columns for the readers' merge
CREATE OR REPLACE VIEW due_member_ranks AS
  SELECT r.member_id, r.handle, (r.settled + d.contributions)::int AS contribution_count,
         r.kind, r.search_name, r.search_username
  FROM due_member_contributions d JOIN member_contribution_ranks r ON r.member_id = d.member_id;

-- Same columns as public_member_contribution_counts, from the kept counts: the
-- settled contributions plus the due ones.
CREATE OR REPLACE VIEW public_member_contributions AS
  SELECT mc.member_id, (mc.settled + coalesce(d.contributions, 0))::bigint AS contribution_count
  FROM member_settled_contributions mc
  LEFT JOIN due_member_contributions d ON d.member_id = mc.member_id
  UNION ALL
  SELECT d.member_id, d.contributions FROM due_member_contributions d
  WHERE NOT EXISTS (SELECT 1 FROM member_settled_contributions mc WHERE mc.member_id = d.member_id);

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

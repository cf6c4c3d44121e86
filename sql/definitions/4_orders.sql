-- The kept orders (docs/data-model.md): each owner's rows in every sort the API offers, carrying
-- the public rule, so a page deep in any order is a walk of one index, index-only; the sort
-- buckets that turn an offset into a seek; the artists' and members' ranks. Kept by their own
-- triggers and recounts, like the counts.
-- refill: recount_member_contribution_ranks, recount_owner_song_orders, recount_member_contribution_orders, recount_artist_song_orders, recount_song_sort_buckets

-- ---- A song's copies on its links and orders: release date, views, state -------------------

-- The values a song's rows carry: written once, for the recount and both triggers.
CREATE OR REPLACE VIEW song_order_values AS
  SELECT s.id AS song_id, s.released_at, coalesce(s.vidsvc_views, -1) AS views, lower(s.title) AS title_key,
         CASE WHEN song_is_live(s.published_at, s.deleted_at) THEN s.published_at END AS public_from,
         s.vidsvc_views_per_day AS per_day
  FROM songs s;

-- A new or moved link takes its song's date (a bulk load writes the date itself).
CREATE OR REPLACE FUNCTION song_link_release_date() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  NEW.released_at := (SELECT s.released_at FROM songs s WHERE s.id = NEW.song_id);
  RETURN NEW;
END $$;
CREATE OR REPLACE TRIGGER song_genres_release_date BEFORE INSERT OR UPDATE OF song_id, released_at ON song_genres FOR EACH ROW EXECUTE FUNCTION song_link_release_date();
CREATE OR REPLACE TRIGGER song_labels_release_date BEFORE INSERT OR UPDATE OF song_id, released_at ON song_labels FOR EACH ROW EXECUTE FUNCTION song_link_release_date();

-- A song's new values written to its copies: its links' release date and its rows in the owners',
-- members' and artists' orders (date, views, per_day, title, state), in one pass over the
-- statement's rows.
CREATE OR REPLACE FUNCTION songs_link_copies_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  redated integer[];
  new_dates date[];
BEGIN
  SELECT array_agg(n.id) FILTER (WHERE n.released_at IS DISTINCT FROM o.released_at),
         array_agg(n.released_at) FILTER (WHERE n.released_at IS DISTINCT FROM o.released_at)
  INTO redated, new_dates
  FROM new_rows n JOIN old_rows o ON o.id = n.id;
  IF redated IS NOT NULL THEN
    UPDATE song_genres x SET released_at = c.released_at FROM unnest(redated, new_dates) AS c(id, released_at) WHERE x.song_id = c.id;
    UPDATE song_labels x SET released_at = c.released_at FROM unnest(redated, new_dates) AS c(id, released_at) WHERE x.song_id = c.id;
  END IF;
  UPDATE owner_song_orders o
  SET released_at = v.released_at, views = v.views, title_key = v.title_key, public_from = v.public_from, per_day = v.per_day
  FROM new_rows n JOIN song_order_values v ON v.song_id = n.id
  WHERE o.song_id = n.id
    AND (o.released_at, o.views, o.title_key, o.public_from, o.per_day)
        IS DISTINCT FROM (v.released_at, v.views, v.title_key, v.public_from, v.per_day);
  UPDATE member_contribution_orders o SET public_from = v.public_from
  FROM new_rows n JOIN song_order_values v ON v.song_id = n.id
  WHERE o.song_id = n.id AND o.public_from IS DISTINCT FROM v.public_from;
  UPDATE artist_song_orders o SET released_at = v.released_at, public_from = v.public_from, per_day = v.per_day
  FROM new_rows n JOIN song_order_values v ON v.song_id = n.id
  WHERE o.song_id = n.id AND (o.released_at, o.public_from, o.per_day) IS DISTINCT FROM (v.released_at, v.public_from, v.per_day);
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER songs_link_copies_update AFTER UPDATE ON songs REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_link_copies_trigger();

-- ---- A genre's and a label's songs in every order: owner_song_orders ------------------------

-- Links added and removed move their rows (owner and song arrays, read from the statement's
-- transition tables by the trigger below: their owner column is named by the table).
CREATE OR REPLACE FUNCTION move_owner_song_orders(owner "char", gone_owners integer[], gone_songs integer[],
                                                  added_owners integer[], added_songs integer[]) RETURNS void LANGUAGE sql AS $$
  DELETE FROM owner_song_orders o USING unnest(gone_owners, gone_songs) AS g(owner_id, song_id)
  WHERE o.song_id = g.song_id AND o.owner = move_owner_song_orders.owner AND o.owner_id = g.owner_id;
  INSERT INTO owner_song_orders (owner, owner_id, song_id, released_at, views, title_key, public_from, per_day)
  SELECT move_owner_song_orders.owner, a.owner_id, v.song_id, v.released_at, v.views, v.title_key, v.public_from, v.per_day
  FROM unnest(added_owners, added_songs) AS a(owner_id, song_id) JOIN song_order_values v ON v.song_id = a.song_id;
$$;

-- Each transition table read only where it exists (a statement naming one is planned when run).
CREATE OR REPLACE FUNCTION song_links_order_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  gone_owners integer[];
  gone_songs integer[];
  added_owners integer[];
  added_songs integer[];
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    IF TG_TABLE_NAME = 'song_genres' THEN
      SELECT array_agg(o.genre_id), array_agg(o.song_id) INTO gone_owners, gone_songs FROM old_rows o;
    ELSE
      SELECT array_agg(o.label_id), array_agg(o.song_id) INTO gone_owners, gone_songs FROM old_rows o;
    END IF;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    IF TG_TABLE_NAME = 'song_genres' THEN
      SELECT array_agg(n.genre_id), array_agg(n.song_id) INTO added_owners, added_songs FROM new_rows n;
    ELSE
      SELECT array_agg(n.label_id), array_agg(n.song_id) INTO added_owners, added_songs FROM new_rows n;
    END IF;
  END IF;
  PERFORM move_owner_song_orders(CASE TG_TABLE_NAME WHEN 'song_genres' THEN 'g' ELSE 'l' END::"char",
                                 gone_owners, gone_songs, added_owners, added_songs);
  RETURN NULL;
END $$;
SELECT attach_after_statement('song_genres', 'song_genres_order', 'song_links_order_trigger');
SELECT attach_after_statement('song_labels', 'song_labels_order', 'song_links_order_trigger');

CREATE OR REPLACE FUNCTION recount_owner_song_orders() RETURNS void LANGUAGE sql AS $$
  TRUNCATE owner_song_orders;
  INSERT INTO owner_song_orders (owner, owner_id, song_id, released_at, views, title_key, public_from, per_day)
  SELECT x.owner, x.owner_id, v.song_id, v.released_at, v.views, v.title_key, v.public_from, v.per_day
  FROM (SELECT 'g'::"char" AS owner, genre_id AS owner_id, song_id FROM song_genres
        UNION ALL SELECT 'l'::"char", label_id, song_id FROM song_labels) x
  JOIN song_order_values v ON v.song_id = x.song_id;
$$;

CREATE OR REPLACE TRIGGER song_genres_order_truncate AFTER TRUNCATE ON song_genres FOR EACH STATEMENT EXECUTE FUNCTION refill_trigger('recount_owner_song_orders');
CREATE OR REPLACE TRIGGER song_labels_order_truncate AFTER TRUNCATE ON song_labels FOR EACH STATEMENT EXECUTE FUNCTION refill_trigger('recount_owner_song_orders');

-- ---- An artist's songs in order: artist_song_orders -----------------------------------------

-- Every row as the credits, roles and songs are now: the recount reads it whole, the trigger
-- below for a few songs (the song's credits by key: the filter goes under the grouping).
CREATE OR REPLACE VIEW artist_song_order_values AS
  SELECT c.song_id, c.artist_id, v.released_at, v.public_from,
         bool_or(r.tag = 'performer') AS performer, bool_or(r.tag = 'writer') AS writer, v.per_day
  FROM credits c JOIN roles r ON r.id = c.role_id JOIN song_order_values v ON v.song_id = c.song_id
  GROUP BY c.song_id, c.artist_id, v.released_at, v.public_from, v.per_day;

-- Credits added, changed and removed: their songs' rows again. Each transition table read only
-- where it exists (a statement naming one is planned when run).
CREATE OR REPLACE FUNCTION credits_order_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  song_ids integer[] := '{}';
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    song_ids := song_ids || ARRAY(SELECT DISTINCT o.song_id FROM old_rows o);
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    song_ids := song_ids || ARRAY(SELECT DISTINCT n.song_id FROM new_rows n);
  END IF;
  DELETE FROM artist_song_orders o WHERE o.song_id = ANY (song_ids);
  INSERT INTO artist_song_orders (song_id, artist_id, released_at, public_from, performer, writer, per_day)
  SELECT v.song_id, v.artist_id, v.released_at, v.public_from, v.performer, v.writer, v.per_day
  FROM artist_song_order_values v WHERE v.song_id = ANY (song_ids);
  RETURN NULL;
END $$;
SELECT attach_after_statement('credits', 'credits_order', 'credits_order_trigger');

CREATE OR REPLACE FUNCTION recount_artist_song_orders() RETURNS void LANGUAGE sql AS $$
  TRUNCATE artist_song_orders;
  INSERT INTO artist_song_orders (song_id, artist_id, released_at, public_from, performer, writer, per_day)
  SELECT song_id, artist_id, released_at, public_from, performer, writer, per_day FROM artist_song_order_values;
$$;

CREATE OR REPLACE TRIGGER credits_order_truncate AFTER TRUNCATE ON credits FOR EACH STATEMENT EXECUTE FUNCTION refill_trigger('recount_artist_song_orders');
CREATE OR REPLACE TRIGGER roles_artist_song_order_update AFTER UPDATE OF tag ON roles FOR EACH STATEMENT EXECUTE FUNCTION refill_trigger('recount_artist_song_orders');

-- ---- A member's contributions in order: member_contribution_orders --------------------------

-- Contributions added, changed and removed move their rows. Each transition table read only
-- where it exists (a statement naming one is planned when run).
CREATE OR REPLACE FUNCTION contributions_order_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    DELETE FROM member_contribution_orders o USING old_rows c WHERE o.id = c.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO member_contribution_orders (id, member_id, action_at, song_id, public_from)
    SELECT c.id, c.member_id, c.action_at, c.song_id, v.public_from
    FROM new_rows c JOIN song_order_values v ON v.song_id = c.song_id;
  END IF;
  RETURN NULL;
END $$;
SELECT attach_after_statement('contributions', 'contributions_order', 'contributions_order_trigger');

CREATE OR REPLACE FUNCTION recount_member_contribution_orders() RETURNS void LANGUAGE sql AS $$
  TRUNCATE member_contribution_orders;
  INSERT INTO member_contribution_orders (id, member_id, action_at, song_id, public_from)
  SELECT c.id, c.member_id, c.action_at, c.song_id, v.public_from
  FROM contributions c JOIN song_order_values v ON v.song_id = c.song_id;
$$;

CREATE OR REPLACE TRIGGER contributions_order_truncate AFTER TRUNCATE ON contributions FOR EACH STATEMENT EXECUTE FUNCTION refill_trigger('recount_member_contribution_orders');

-- ---- Members by contributions: member_contribution_ranks ------------------------------------

-- member_settled_contributions changed: the members' ranks take the new count (0 once the row is gone).
CREATE OR REPLACE FUNCTION member_settled_rank_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
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
SELECT attach_after_statement('member_settled_contributions', 'member_settled_rank_count', 'member_settled_rank_trigger');

CREATE OR REPLACE FUNCTION members_contribution_rank_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    DELETE FROM member_contribution_ranks r USING old_rows o WHERE r.member_id = o.id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO member_contribution_ranks (member_id, handle, settled, kind, search_name, search_username)
    SELECT n.id, lower(n.username),
      coalesce((SELECT mc.settled FROM member_settled_contributions mc WHERE mc.member_id = n.id), 0),
      n.kind, n.search_name, n.search_username
    FROM new_rows n WHERE member_is_public(n.username, n.is_banned);
  END IF;
  RETURN NULL;
END $$;
SELECT attach_after_statement('members', 'members_rank_count', 'members_contribution_rank_trigger');

CREATE OR REPLACE FUNCTION recount_member_contribution_ranks() RETURNS void LANGUAGE sql AS $$
  DELETE FROM member_contribution_ranks;
  INSERT INTO member_contribution_ranks (member_id, handle, settled, kind, search_name, search_username)
  SELECT m.id, lower(m.username), coalesce(mc.settled, 0), m.kind, m.search_name, m.search_username
  FROM members m LEFT JOIN member_settled_contributions mc ON mc.member_id = m.id
  WHERE member_is_public(m.username, m.is_banned);
$$;

CREATE OR REPLACE TRIGGER members_rank_count_truncate AFTER TRUNCATE ON members FOR EACH STATEMENT EXECUTE FUNCTION refill_trigger('recount_member_contribution_ranks');

-- ---- Artists by name and by songs: the kept name key, the walk by song count ----------------

-- An artist renamed: its kept name key and folded names (the artists list in name order, its q).
CREATE OR REPLACE FUNCTION artists_name_key_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  UPDATE artist_song_counts ac
  SET name_key = lower(n.name), search_name = n.search_name, search_full_name = n.search_full_name
  FROM new_rows n
  WHERE ac.artist_id = n.id
    AND (ac.name_key, ac.search_name, ac.search_full_name) IS DISTINCT FROM (lower(n.name), n.search_name, n.search_full_name);
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER artists_name_key_update AFTER UPDATE ON artists REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION artists_name_key_trigger();

-- The artists list by song count, most first: a walk of artist_song_counts' rank order (from its
-- nearer end when the page is past the middle of the whole order), then the visible artists
-- without a settled song, by id; while some songs are due, those are merged in by their counts.
CREATE OR REPLACE FUNCTION artists_by_song_count(q text, after_count integer, after_id integer, skip integer, take integer) RETURNS TABLE(id integer, song_count bigint) LANGUAGE plpgsql STABLE AS $$
DECLARE
  walked integer;
  -- every artist with a settled song, kept; the walk's length when q and the cursor are absent
  settled_total integer := (SELECT t.with_settled FROM artist_song_totals t);
  whole_order boolean := q IS NULL AND after_count IS NULL;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM due_artist_songs) THEN
    IF whole_order AND skip > settled_total / 2 THEN
      -- past the middle of the whole order: the page's settled artists read from the end of the
      -- rank index, the nearer one, and put back in order
      RETURN QUERY
        SELECT r.artist_id, r.settled_songs FROM (
          SELECT ac.artist_id, ac.settled_songs::bigint AS settled_songs
          FROM artist_song_counts ac
          WHERE -ac.settled_songs < 0
          ORDER BY -ac.settled_songs DESC, ac.artist_id DESC
          -- in bigint: an offset near 2^31 minus the kept number and the limit leaves int4
          OFFSET greatest(settled_total::bigint - skip - take, 0) LIMIT greatest(least(take, settled_total::bigint - skip), 0)) r
        ORDER BY -r.settled_songs, r.artist_id;
    ELSE
      RETURN QUERY
        SELECT ac.artist_id, ac.settled_songs::bigint
        FROM artist_song_counts ac
        WHERE -ac.settled_songs < 0
          AND folded_names_contain(q, ac.search_name, ac.search_full_name)
          AND (after_count IS NULL OR (-ac.settled_songs, ac.artist_id) > (-after_count, after_id))
        ORDER BY -ac.settled_songs, ac.artist_id
        OFFSET skip LIMIT take;
    END IF;
    GET DIAGNOSTICS walked = ROW_COUNT;
    IF walked < take THEN
      -- the page reaches past the settled artists: those without one come after them, by id
      RETURN QUERY
        SELECT u.id, 0::bigint
        FROM visible_unsettled_artist_ids() u JOIN artists a ON a.id = u.id
        WHERE folded_names_contain(q, a.search_name, a.search_full_name)
          AND (after_count IS NULL OR (0, u.id) > (-after_count, after_id))
        ORDER BY u.id
        OFFSET CASE WHEN walked > 0 OR skip = 0 THEN 0
                    WHEN whole_order THEN greatest(skip - settled_total, 0)
                    ELSE greatest(skip - (SELECT count(*) FROM artist_song_counts ac
                                          WHERE -ac.settled_songs < 0 AND folded_names_contain(q, ac.search_name, ac.search_full_name)
                                            AND (after_count IS NULL OR (-ac.settled_songs, ac.artist_id) > (-after_count, after_id))), 0) END
        LIMIT take - walked;
    END IF;
  ELSE
    RETURN QUERY
      WITH due AS MATERIALIZED (SELECT artist_id, songs FROM due_artist_songs),
      settled AS (
        SELECT ac.artist_id AS id, ac.settled_songs::bigint AS song_count
        FROM artist_song_counts ac
        WHERE -ac.settled_songs < 0
          AND folded_names_contain(q, ac.search_name, ac.search_full_name)
          AND (after_count IS NULL OR (-ac.settled_songs, ac.artist_id) > (-after_count, after_id))
          AND NOT EXISTS (SELECT 1 FROM due d WHERE d.artist_id = ac.artist_id)
        ORDER BY -ac.settled_songs, ac.artist_id
        LIMIT skip::bigint + take),
      moved AS (
        SELECT d.artist_id AS id, coalesce((SELECT ac.settled_songs FROM artist_song_counts ac WHERE ac.artist_id = d.artist_id), 0) + d.songs
        FROM due d JOIN artists a ON a.id = d.artist_id
        WHERE folded_names_contain(q, a.search_name, a.search_full_name)),
      without_songs AS (
        SELECT u.id, 0::bigint AS song_count
        FROM visible_unsettled_artist_ids() u JOIN artists a ON a.id = u.id
        WHERE (SELECT count(*) FROM settled) < skip::bigint + take
          AND folded_names_contain(q, a.search_name, a.search_full_name)
          AND NOT EXISTS (SELECT 1 FROM due d WHERE d.artist_id = u.id))
      SELECT r.id, r.song_count FROM (
        SELECT * FROM settled UNION ALL SELECT * FROM moved UNION ALL SELECT * FROM without_songs) r
      WHERE after_count IS NULL OR (-r.song_count, r.id) > (-after_count, after_id)
      ORDER BY -r.song_count, r.id
      OFFSET skip LIMIT take;
  END IF;
END $$;

-- ---- /v1/songs deep offsets: the sort buckets and their seeks ------------------------------

-- Each sort's buckets, one line a sort: the table, the key of a song `s` as the sort orders it
-- (the sorts' keys in src/Queries/SongSorts.ts), and the bound below every key (the first bucket's).
-- A settled song counts in the last bucket whose bound is at or below its (key, id).
CREATE OR REPLACE FUNCTION song_sort_buckets() RETURNS TABLE(buckets regclass, song_key text, floor_key text) LANGUAGE sql STABLE AS $$
  VALUES ('song_released_buckets'::regclass, 's.released_at', '''-infinity''::date'),
         ('song_popular_buckets'::regclass, 'coalesce(s.vidsvc_views, -1)', '''-9223372036854775808''::bigint'),
         ('song_title_buckets'::regclass, 'lower(s.title)', '''''::text')
$$;

-- Moves settled songs into (+1) or out of (-1) one sort's buckets, by their keys in that sort.
CREATE OR REPLACE FUNCTION move_sort_buckets(buckets regclass, sort_keys anyarray, song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($f$
    UPDATE %1$s t SET settled_songs = t.settled_songs + x.delta
    FROM (SELECT b.sort_key, b.song_id, sum(m.delta) AS delta
          FROM unnest($1, $2, $3) AS m(sort_key, song_id, delta)
          CROSS JOIN LATERAL (SELECT b.sort_key, b.song_id FROM %1$s b
                              WHERE (b.sort_key, b.song_id) <= (m.sort_key, m.song_id)
                              ORDER BY b.sort_key DESC, b.song_id DESC LIMIT 1) b
          GROUP BY b.sort_key, b.song_id HAVING sum(m.delta) <> 0) x
    WHERE t.sort_key = x.sort_key AND t.song_id = x.song_id$f$, buckets) USING sort_keys, song_ids, deltas;
END $$;

-- Moves settled songs in the buckets of every sort, by their keys as the sorts have them
-- (songs_count_trigger() gives the old and new rows' keys).
CREATE OR REPLACE FUNCTION move_song_buckets(dates date[], views bigint[], titles text[], song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  SELECT move_sort_buckets('song_released_buckets', dates, song_ids, deltas);
  SELECT move_sort_buckets('song_popular_buckets', views, song_ids, deltas);
  SELECT move_sort_buckets('song_title_buckets', titles, song_ids, deltas);
$$;

-- The songs that became settled (+1) or stopped being (-1) by being unlisted or listed in
-- scheduled_song_links, at their current keys (the rows' own changes are songs_count_trigger()'s).
CREATE OR REPLACE FUNCTION move_settled_song_buckets(song_ids integer[], deltas bigint[]) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  sort record;
BEGIN
  FOR sort IN SELECT * FROM song_sort_buckets() LOOP
    EXECUTE format('SELECT move_sort_buckets(%L, array_agg(%s), array_agg(s.id), array_agg(m.delta))
                    FROM unnest($1, $2) AS m(song_id, delta) JOIN songs s ON s.id = m.song_id HAVING count(*) > 0',
                   sort.buckets, sort.song_key)
    USING song_ids, deltas;
  END LOOP;
END $$;

-- Recounts from scratch, splitting each sort into buckets of `bucket_songs` settled songs (the
-- first bound lies below every song): the initial fill, after a bulk load, after a TRUNCATE.
CREATE OR REPLACE FUNCTION recount_song_sort_buckets(bucket_songs integer DEFAULT 500) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  sort record;
BEGIN
  FOR sort IN SELECT * FROM song_sort_buckets() LOOP
    EXECUTE format('DELETE FROM %s', sort.buckets);
    EXECUTE format($f$
      WITH settled AS (
        SELECT %2$s AS sort_key, s.id, row_number() OVER (ORDER BY %2$s, s.id) - 1 AS n, count(*) OVER () AS songs
        FROM songs s
        WHERE song_is_live(s.published_at, s.deleted_at) AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = s.id)
      )
      INSERT INTO %1$s (sort_key, song_id, settled_songs)
      SELECT CASE WHEN n = 0 THEN %3$s ELSE sort_key END, CASE WHEN n = 0 THEN -2147483648 ELSE id END, least($1, songs - n)
      FROM settled WHERE n %% $1 = 0
      UNION ALL
      SELECT %3$s, -2147483648, 0 WHERE NOT EXISTS (SELECT 1 FROM settled)$f$, sort.buckets, sort.song_key, sort.floor_key)
    USING bucket_songs;
  END LOOP;
END $$;

CREATE OR REPLACE TRIGGER songs_sort_bucket_count_truncate AFTER TRUNCATE ON songs FOR EACH STATEMENT EXECUTE FUNCTION refill_trigger('recount_song_sort_buckets');

-- Where an ascending walk of all public songs in one sort's order reaches position `skip`: the
-- last bucket bound with at most `skip` public songs before it (the settled ones as the buckets
-- keep them, the due ones counted now) and that number. `key_type` types the bound (a NULL of
-- the sort key's type).
CREATE OR REPLACE FUNCTION public_song_sort_seek(sort_buckets regclass, key_type anyelement, skip bigint)
  RETURNS TABLE(bound_key anyelement, bound_id integer, songs_before bigint) LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN QUERY EXECUTE format($f$
    WITH due AS (
      SELECT b.sort_key, b.song_id, count(*) AS n
      FROM scheduled_song_links l JOIN public_songs s ON s.id = l.song_id
      CROSS JOIN LATERAL (SELECT b.sort_key, b.song_id FROM %1$s b
                          WHERE (b.sort_key, b.song_id) <= (%2$s, s.id)
                          ORDER BY b.sort_key DESC, b.song_id DESC LIMIT 1) b
      WHERE scheduled_link_is_due(l.published_at)
      GROUP BY b.sort_key, b.song_id
    ), running AS (
      SELECT b.sort_key, b.song_id,
        (sum(b.settled_songs + coalesce(d.n, 0)) OVER (ORDER BY b.sort_key, b.song_id) - (b.settled_songs + coalesce(d.n, 0)))::bigint
          AS songs_before
      FROM %1$s b LEFT JOIN due d ON d.sort_key = b.sort_key AND d.song_id = b.song_id
    )
    SELECT r.sort_key, r.song_id, r.songs_before FROM running r WHERE r.songs_before <= $1
    ORDER BY r.sort_key DESC, r.song_id DESC LIMIT 1$f$,
    sort_buckets, (SELECT x.song_key FROM song_sort_buckets() x WHERE x.buckets = sort_buckets)) USING skip;
END $$;

CREATE OR REPLACE FUNCTION public_song_released_seek(skip bigint) RETURNS TABLE(bound_key date, bound_id integer, songs_before bigint) LANGUAGE sql STABLE AS $$
  SELECT * FROM public_song_sort_seek('song_released_buckets', NULL::date, skip)
$$;

CREATE OR REPLACE FUNCTION public_song_popular_seek(skip bigint) RETURNS TABLE(bound_key bigint, bound_id integer, songs_before bigint) LANGUAGE sql STABLE AS $$
  SELECT * FROM public_song_sort_seek('song_popular_buckets', NULL::bigint, skip)
$$;

CREATE OR REPLACE FUNCTION public_song_title_seek(skip bigint) RETURNS TABLE(bound_key text, bound_id integer, songs_before bigint) LANGUAGE sql STABLE AS $$
  SELECT * FROM public_song_sort_seek('song_title_buckets', NULL::text, skip)
$$;

-- A year's or a date range's released songs: the release date where a walk in either direction
-- reaches position `skip`, from the kept live songs a date (song_date_counts) less the scheduled ones.
CREATE OR REPLACE FUNCTION public_song_release_seek(from_date date, until_date date, newest_first boolean, skip bigint) RETURNS TABLE(released_at date, songs_before bigint) LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  -- the running sums are numeric: cast back to the declared bigint as the SQL function did
  RETURN QUERY SELECT x.released_at, x.songs_before::bigint FROM (
  WITH per_date AS (
    SELECT c.released_at, c.live_songs - coalesce(sch.n, 0) AS n
    FROM song_date_counts c
    LEFT JOIN (SELECT s.released_at, count(*) AS n FROM scheduled_song_links_now s
               WHERE s.released_at >= from_date AND s.released_at < until_date GROUP BY s.released_at) sch
      ON sch.released_at = c.released_at
    WHERE c.released_at >= from_date AND c.released_at < until_date
  ), newest AS (
    SELECT p.released_at, sum(p.n) OVER (ORDER BY p.released_at DESC) - p.n AS songs_before FROM per_date p WHERE newest_first
  ), oldest AS (
    SELECT p.released_at, sum(p.n) OVER (ORDER BY p.released_at) - p.n AS songs_before FROM per_date p WHERE NOT newest_first
  )
  (SELECT * FROM newest WHERE songs_before <= skip ORDER BY released_at LIMIT 1)
  UNION ALL
  (SELECT * FROM oldest WHERE songs_before <= skip ORDER BY released_at DESC LIMIT 1)) x;
END $$;

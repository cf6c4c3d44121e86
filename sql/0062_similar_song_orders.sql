-- Each artist's and each genre's songs in the order of similar songs (vidsvc_views_per_day DESC
-- NULLS LAST, id DESC), so that a group of /v1/songs/{id}/similar is, for each of the song's
-- performers, writers or genres, the first public entries of one index range (src/Songs/Similar.ts):
-- its cost is the answer's 10 songs a range, and the songs of an earlier group met on the way,
-- whatever the number of the artist's or genre's songs. Before, a group of tens of thousands of
-- songs walked the catalogue's trending index against them (the most credited artists' songs at
-- 1M songs: 60-160 ms).
--
-- `per_day` is the song's vidsvc_views_per_day on its rows of sql/0033's owner_song_orders and
-- sql/0037's artist_song_orders, carried by their recounts and triggers as their other values.
ALTER TABLE artist_song_orders ADD COLUMN per_day integer;
ALTER TABLE owner_song_orders ADD COLUMN per_day integer;

CREATE OR REPLACE VIEW song_order_values AS
  SELECT s.id AS song_id, s.released_at, coalesce(s.vidsvc_views, -1) AS views, lower(s.title) AS title_key,
         CASE WHEN song_is_live(s.published_at, s.deleted_at) THEN s.published_at END AS public_from,
         s.vidsvc_views_per_day AS per_day
  FROM songs s;

CREATE OR REPLACE VIEW artist_song_order_values AS
  SELECT c.song_id, c.artist_id, v.released_at, v.public_from,
         bool_or(r.tag = 'performer') AS performer, bool_or(r.tag = 'writer') AS writer, v.per_day
  FROM credits c JOIN roles r ON r.id = c.role_id JOIN song_order_values v ON v.song_id = c.song_id
  GROUP BY c.song_id, c.artist_id, v.released_at, v.public_from, v.per_day;

CREATE OR REPLACE FUNCTION recount_owner_song_orders() RETURNS void LANGUAGE sql AS $$
  TRUNCATE owner_song_orders;
  INSERT INTO owner_song_orders (owner, owner_id, song_id, released_at, views, title_key, public_from, per_day)
  SELECT x.owner, x.owner_id, v.song_id, v.released_at, v.views, v.title_key, v.public_from, v.per_day
  FROM (SELECT 'g'::"char" AS owner, genre_id AS owner_id, song_id FROM song_genres
        UNION ALL SELECT 'l'::"char", label_id, song_id FROM song_labels) x
  JOIN song_order_values v ON v.song_id = x.song_id;
$$;

CREATE OR REPLACE FUNCTION recount_artist_song_orders() RETURNS void LANGUAGE sql AS $$
  TRUNCATE artist_song_orders;
  INSERT INTO artist_song_orders (song_id, artist_id, released_at, public_from, performer, writer, per_day)
  SELECT song_id, artist_id, released_at, public_from, performer, writer, per_day FROM artist_song_order_values;
$$;

CREATE OR REPLACE FUNCTION move_owner_song_orders(owner "char", gone_owners integer[], gone_songs integer[],
                                                  added_owners integer[], added_songs integer[]) RETURNS void LANGUAGE sql AS $$
  DELETE FROM owner_song_orders o USING unnest(gone_owners, gone_songs) AS g(owner_id, song_id)
  WHERE o.song_id = g.song_id AND o.owner = move_owner_song_orders.owner AND o.owner_id = g.owner_id;
  INSERT INTO owner_song_orders (owner, owner_id, song_id, released_at, views, title_key, public_from, per_day)
  SELECT move_owner_song_orders.owner, a.owner_id, v.song_id, v.released_at, v.views, v.title_key, v.public_from, v.per_day
  FROM unnest(added_owners, added_songs) AS a(owner_id, song_id) JOIN song_order_values v ON v.song_id = a.song_id;
$$;

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

-- sql/0037's songs trigger, with the song's new per_day written to its owners' and artists' rows.
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

SELECT recount_owner_song_orders();
SELECT recount_artist_song_orders();

-- A performer's songs; a writer's, those they also perform apart (a singer-songwriter's written
-- songs performed by him are one range, skipped whole when he performs the song asked about);
-- a genre's. Public entries only pass (song_is_public(public_from, NULL)), read index-only.
CREATE INDEX artist_song_orders_performed_idx ON artist_song_orders (artist_id, per_day DESC NULLS LAST, song_id DESC)
  INCLUDE (public_from) WHERE performer AND public_from IS NOT NULL;
CREATE INDEX artist_song_orders_written_idx ON artist_song_orders (artist_id, performer, per_day DESC NULLS LAST, song_id DESC)
  INCLUDE (public_from) WHERE writer AND public_from IS NOT NULL;
CREATE INDEX owner_song_orders_genre_trending_idx ON owner_song_orders (owner_id, per_day DESC NULLS LAST, song_id DESC)
  INCLUDE (public_from) WHERE owner = 'g' AND public_from IS NOT NULL;

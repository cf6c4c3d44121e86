-- Every genre's and label's songs in each order of the song lists, with what the public rule
-- needs, so that a page of one owner's songs at any offset is an index-only range of its owner
-- (src/Domain/SongSorts.ts `ownSongSort`). Before, a genre's or label's deep page joined every
-- skipped link to its song for the public rule (genre=pop at offset 130,000 of 263k: 0.47 s at
-- 1M songs), and a genre's popular and title orders and a label's title order walked the whole
-- catalogue's index with a link probe a row (offset 10,000: 0.14-0.49 s).
--
-- A row for every link (song_genres: owner 'g', song_labels: 'l'), whatever the song's state:
-- `public_from` is the song's published_at while it is live (sql/0014), so the song is public
-- exactly when song_is_public(public_from, NULL) (the indexes hold no row without it).
-- The sort keys are those of the catalogue's sorts: released_at; coalesce(vidsvc_views, -1);
-- lower(title). It replaces sql/0030's label_song_views. No triggers of its own and no change
-- feed: a views refresh moves these rows only. Index-only needs the visibility map kept
-- (autovacuum; a server without it: VACUUM owner_song_orders after bulk writes, docs/operations.md).
CREATE TABLE owner_song_orders (
  owner        "char" NOT NULL,
  owner_id     integer NOT NULL,
  song_id      integer NOT NULL,
  released_at  date NOT NULL,
  views        bigint NOT NULL,
  title_key    text NOT NULL,
  public_from  timestamptz,
  PRIMARY KEY (song_id, owner, owner_id)
);

-- The values a song's rows carry: written once, for the recount and both triggers.
CREATE VIEW song_order_values AS
  SELECT s.id AS song_id, s.released_at, coalesce(s.vidsvc_views, -1) AS views, lower(s.title) AS title_key,
         CASE WHEN song_is_live(s.published_at, s.deleted_at) THEN s.published_at END AS public_from
  FROM songs s;

CREATE FUNCTION recount_owner_song_orders() RETURNS void LANGUAGE sql AS $$
  TRUNCATE owner_song_orders;
  INSERT INTO owner_song_orders (owner, owner_id, song_id, released_at, views, title_key, public_from)
  SELECT x.owner, x.owner_id, v.song_id, v.released_at, v.views, v.title_key, v.public_from
  FROM (SELECT 'g'::"char" AS owner, genre_id AS owner_id, song_id FROM song_genres
        UNION ALL SELECT 'l'::"char", label_id, song_id FROM song_labels) x
  JOIN song_order_values v ON v.song_id = x.song_id;
$$;
SELECT recount_owner_song_orders();

CREATE INDEX owner_song_orders_released_idx ON owner_song_orders (owner, owner_id, released_at, song_id)
  INCLUDE (public_from) WHERE public_from IS NOT NULL;
CREATE INDEX owner_song_orders_popular_idx ON owner_song_orders (owner, owner_id, views, song_id)
  INCLUDE (public_from, released_at) WHERE public_from IS NOT NULL;
CREATE INDEX owner_song_orders_title_idx ON owner_song_orders (owner, owner_id, title_key, song_id)
  INCLUDE (public_from, released_at) WHERE public_from IS NOT NULL;

-- Links added and removed move their rows (owner and song arrays, read from the statement's
-- transition tables by the trigger below: their owner column is named by the table).
CREATE FUNCTION move_owner_song_orders(owner "char", gone_owners integer[], gone_songs integer[],
                                       added_owners integer[], added_songs integer[]) RETURNS void LANGUAGE sql AS $$
  DELETE FROM owner_song_orders o USING unnest(gone_owners, gone_songs) AS g(owner_id, song_id)
  WHERE o.song_id = g.song_id AND o.owner = move_owner_song_orders.owner AND o.owner_id = g.owner_id;
  INSERT INTO owner_song_orders (owner, owner_id, song_id, released_at, views, title_key, public_from)
  SELECT move_owner_song_orders.owner, a.owner_id, v.song_id, v.released_at, v.views, v.title_key, v.public_from
  FROM unnest(added_owners, added_songs) AS a(owner_id, song_id) JOIN song_order_values v ON v.song_id = a.song_id;
$$;

-- Each transition table read only where it exists (a statement naming one is planned when run).
CREATE FUNCTION song_links_order_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE FUNCTION recount_owner_song_orders_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recount_owner_song_orders();
  RETURN NULL;
END $$;

CREATE TRIGGER song_genres_order_insert AFTER INSERT ON song_genres
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_links_order_trigger();
CREATE TRIGGER song_genres_order_update AFTER UPDATE ON song_genres
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_links_order_trigger();
CREATE TRIGGER song_genres_order_delete AFTER DELETE ON song_genres
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION song_links_order_trigger();
CREATE TRIGGER song_genres_order_truncate AFTER TRUNCATE ON song_genres
  FOR EACH STATEMENT EXECUTE FUNCTION recount_owner_song_orders_trigger();
CREATE TRIGGER song_labels_order_insert AFTER INSERT ON song_labels
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_links_order_trigger();
CREATE TRIGGER song_labels_order_update AFTER UPDATE ON song_labels
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_links_order_trigger();
CREATE TRIGGER song_labels_order_delete AFTER DELETE ON song_labels
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION song_links_order_trigger();
CREATE TRIGGER song_labels_order_truncate AFTER TRUNCATE ON song_labels
  FOR EACH STATEMENT EXECUTE FUNCTION recount_owner_song_orders_trigger();

-- sql/0032's trigger: the links' release dates as before; the owners' rows of every song the
-- statement wrote take its values again where one of them changed (date, views, title, state).
CREATE OR REPLACE FUNCTION songs_link_copies_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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
  UPDATE owner_song_orders o SET released_at = v.released_at, views = v.views, title_key = v.title_key, public_from = v.public_from
  FROM new_rows n JOIN song_order_values v ON v.song_id = n.id
  WHERE o.song_id = n.id
    AND (o.released_at, o.views, o.title_key, o.public_from) IS DISTINCT FROM (v.released_at, v.views, v.title_key, v.public_from);
  RETURN NULL;
END $$;

DROP TRIGGER song_labels_views_insert ON song_labels;
DROP TRIGGER song_labels_views_update ON song_labels;
DROP TRIGGER song_labels_views_delete ON song_labels;
DROP TRIGGER song_labels_views_truncate ON song_labels;
DROP FUNCTION song_labels_views_trigger();
DROP FUNCTION recount_label_song_views_trigger();
DROP FUNCTION recount_label_song_views();
DROP TABLE label_song_views;

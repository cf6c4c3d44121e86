-- Every artist's songs newest first, with what the public rule and the role filter need, so that
-- a page of /v1/artists/{id}/songs in any role at any offset is an index-only range of the
-- artist's entries walked from the nearer end (src/Artists/Repo.ts). Before, a page walked the
-- catalogue's release index with a credit test per entry, or collected the artist's songs and
-- sorted them: the most credited artists at 1M songs (27k-47k songs) took 65-130 ms in the middle
-- of their songs and up to 250 ms for the last page.
--
-- A row per artist and song they are credited on (any role), whatever the song's state:
-- `released_at` and `public_from` as sql/0033's (song_order_values), and whether one of the
-- artist's credits on the song has the tag `performer` or `writer` (the `role` filter). No
-- triggers or feed of its own. Index-only needs the visibility map kept (autovacuum; without it,
-- VACUUM artist_song_orders after bulk writes, docs/operations.md).
CREATE TABLE artist_song_orders (
  song_id      integer NOT NULL,
  artist_id    integer NOT NULL,
  released_at  date NOT NULL,
  public_from  timestamptz,
  performer    boolean NOT NULL,
  writer       boolean NOT NULL,
  PRIMARY KEY (song_id, artist_id)
);

-- Every row as the credits, roles and songs are now: the recount reads it whole, the trigger
-- below for a few songs (the song's credits by key: the filter goes under the grouping).
CREATE VIEW artist_song_order_values AS
  SELECT c.song_id, c.artist_id, v.released_at, v.public_from,
         bool_or(r.tag = 'performer') AS performer, bool_or(r.tag = 'writer') AS writer
  FROM credits c JOIN roles r ON r.id = c.role_id JOIN song_order_values v ON v.song_id = c.song_id
  GROUP BY c.song_id, c.artist_id, v.released_at, v.public_from;

CREATE FUNCTION recount_artist_song_orders() RETURNS void LANGUAGE sql AS $$
  TRUNCATE artist_song_orders;
  INSERT INTO artist_song_orders (song_id, artist_id, released_at, public_from, performer, writer)
  SELECT song_id, artist_id, released_at, public_from, performer, writer FROM artist_song_order_values;
$$;
SELECT recount_artist_song_orders();

CREATE INDEX artist_song_orders_walk_idx ON artist_song_orders (artist_id, released_at, song_id)
  INCLUDE (public_from, performer, writer) WHERE public_from IS NOT NULL;

-- Credits added, changed and removed: their songs' rows again. Each transition table read only
-- where it exists (a statement naming one is planned when run).
CREATE FUNCTION credits_order_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
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
  INSERT INTO artist_song_orders (song_id, artist_id, released_at, public_from, performer, writer)
  SELECT v.song_id, v.artist_id, v.released_at, v.public_from, v.performer, v.writer
  FROM artist_song_order_values v WHERE v.song_id = ANY (song_ids);
  RETURN NULL;
END $$;

CREATE FUNCTION recount_artist_song_orders_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
BEGIN
  PERFORM recount_artist_song_orders();
  RETURN NULL;
END $$;

CREATE TRIGGER credits_order_insert AFTER INSERT ON credits
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_order_trigger();
CREATE TRIGGER credits_order_update AFTER UPDATE ON credits
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_order_trigger();
CREATE TRIGGER credits_order_delete AFTER DELETE ON credits
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION credits_order_trigger();
CREATE TRIGGER credits_order_truncate AFTER TRUNCATE ON credits
  FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_song_orders_trigger();
-- a role changing tag: every flag again (rare, as sql/0016's per-tag counts)
CREATE TRIGGER roles_artist_song_order_update AFTER UPDATE OF tag ON roles
  FOR EACH STATEMENT EXECUTE FUNCTION recount_artist_song_orders_trigger();

-- sql/0035's songs trigger, and a song's new date and state written to its artists' rows.
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
  UPDATE owner_song_orders o SET released_at = v.released_at, views = v.views, title_key = v.title_key, public_from = v.public_from
  FROM new_rows n JOIN song_order_values v ON v.song_id = n.id
  WHERE o.song_id = n.id
    AND (o.released_at, o.views, o.title_key, o.public_from) IS DISTINCT FROM (v.released_at, v.views, v.title_key, v.public_from);
  UPDATE member_contribution_orders o SET public_from = v.public_from
  FROM new_rows n JOIN song_order_values v ON v.song_id = n.id
  WHERE o.song_id = n.id AND o.public_from IS DISTINCT FROM v.public_from;
  UPDATE artist_song_orders o SET released_at = v.released_at, public_from = v.public_from
  FROM new_rows n JOIN song_order_values v ON v.song_id = n.id
  WHERE o.song_id = n.id AND (o.released_at, o.public_from) IS DISTINCT FROM (v.released_at, v.public_from);
  RETURN NULL;
END $$;

-- Every contribution in its member's order (newest first: action_at, id) with when its song is
-- public, so that a page of /v1/users/{username}/contributions at any offset is an index-only
-- range of the member's entries, walked from the nearer end (src/Users/Repo.ts). Before, the walk
-- read every skipped contribution and probed its song for the public rule from the start: the
-- busiest member at 1M songs (78,651 contributions) took 158 ms at offset 20,000 and ~0.5 s near
-- the end.
--
-- A row for every contribution, whatever its song's state: `public_from` as sql/0033's
-- (song_order_values: the song's published_at while it is live), so the contribution is listed
-- exactly when song_is_public(public_from, NULL). Its own table with no triggers or feed of its
-- own, as sql/0033's. Index-only needs the visibility map kept (autovacuum; without it, VACUUM
-- member_contribution_orders after bulk writes, docs/operations.md).
CREATE TABLE member_contribution_orders (
  id           integer PRIMARY KEY,
  member_id    integer NOT NULL,
  action_at    timestamptz NOT NULL,
  song_id      integer NOT NULL,
  public_from  timestamptz
);

CREATE FUNCTION recount_member_contribution_orders() RETURNS void LANGUAGE sql AS $$
  TRUNCATE member_contribution_orders;
  INSERT INTO member_contribution_orders (id, member_id, action_at, song_id, public_from)
  SELECT c.id, c.member_id, c.action_at, c.song_id, v.public_from
  FROM contributions c JOIN song_order_values v ON v.song_id = c.song_id;
$$;
SELECT recount_member_contribution_orders();

CREATE INDEX member_contribution_orders_walk_idx ON member_contribution_orders (member_id, action_at, id)
  INCLUDE (public_from) WHERE public_from IS NOT NULL;
CREATE INDEX member_contribution_orders_song_idx ON member_contribution_orders (song_id);

-- Contributions added, changed and removed move their rows. Each transition table read only
-- where it exists (a statement naming one is planned when run).
CREATE FUNCTION contributions_order_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
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

CREATE FUNCTION recount_member_contribution_orders_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
BEGIN
  PERFORM recount_member_contribution_orders();
  RETURN NULL;
END $$;

CREATE TRIGGER contributions_order_insert AFTER INSERT ON contributions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contributions_order_trigger();
CREATE TRIGGER contributions_order_update AFTER UPDATE ON contributions
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contributions_order_trigger();
CREATE TRIGGER contributions_order_delete AFTER DELETE ON contributions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION contributions_order_trigger();
CREATE TRIGGER contributions_order_truncate AFTER TRUNCATE ON contributions
  FOR EACH STATEMENT EXECUTE FUNCTION recount_member_contribution_orders_trigger();

-- sql/0033's songs trigger, and a song's new state written to its contributions' rows.
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
  RETURN NULL;
END $$;

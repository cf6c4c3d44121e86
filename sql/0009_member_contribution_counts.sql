-- Kept public contribution counts of members, the way sql/0008 keeps artists' song counts:
-- contributions on settled songs (live and not listed in scheduled_song_links), plus, at read
-- time, those on due songs (listed, published_at passed; usually none). sql/0003's view subtracts
-- every still-scheduled song's contributions on each read (~15 ms a member at 1M songs, where
-- search shows five members and /v1/users twenty).

-- The first count reads every contribution: not bounded by the service's statement timeout.
SET LOCAL statement_timeout = 0;

CREATE TABLE member_settled_contributions (
  member_id  integer PRIMARY KEY REFERENCES members (id) ON DELETE CASCADE,
  settled    integer NOT NULL DEFAULT 0
);

CREATE FUNCTION recount_member_settled_contributions() RETURNS void LANGUAGE sql AS $$
  DELETE FROM member_settled_contributions;
  INSERT INTO member_settled_contributions (member_id, settled)
  SELECT c.member_id, count(*) FROM contributions c JOIN songs s ON s.id = c.song_id
  WHERE s.deleted_at IS NULL AND s.published_at IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = c.song_id)
  GROUP BY c.member_id;
$$;

CREATE FUNCTION recount_member_settled_contributions_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recount_member_settled_contributions();
  RETURN NULL;
END $$;

CREATE FUNCTION add_settled_contributions(member_ids integer[], deltas bigint[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO member_settled_contributions AS t (member_id, settled)
  SELECT x.member_id, sum(x.delta) FROM unnest(member_ids, deltas) AS x(member_id, delta)
  GROUP BY x.member_id HAVING sum(x.delta) <> 0
  ON CONFLICT (member_id) DO UPDATE SET settled = t.settled + excluded.settled;
$$;

-- contributions: +1 / -1 per row on a settled song. Named to fire before sql/0006's
-- contributions_scheduled_count_* (name order), seeing scheduled_song_links as it was.
CREATE FUNCTION contributions_member_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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
  JOIN songs s ON s.id = x.song_id AND s.deleted_at IS NULL AND s.published_at IS NOT NULL
  WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = x.song_id);
  IF changed IS NOT NULL THEN PERFORM add_settled_contributions(changed, deltas); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER contributions_member_count_insert AFTER INSERT ON contributions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contributions_member_count_trigger();
CREATE TRIGGER contributions_member_count_update AFTER UPDATE ON contributions
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION contributions_member_count_trigger();
CREATE TRIGGER contributions_member_count_delete AFTER DELETE ON contributions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION contributions_member_count_trigger();

-- songs: a settled song becoming live or not moves its contributors (fires before
-- songs_scheduled_count_update, as sql/0008's songs trigger).
CREATE FUNCTION songs_member_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed integer[];
  deltas bigint[];
BEGIN
  SELECT array_agg(c.member_id), array_agg(ch.delta) INTO changed, deltas
  FROM (
    SELECT n.id,
      (CASE WHEN n.deleted_at IS NULL AND n.published_at IS NOT NULL THEN 1 ELSE 0 END) -
      (CASE WHEN o.deleted_at IS NULL AND o.published_at IS NOT NULL THEN 1 ELSE 0 END)::bigint AS delta
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = n.id)
  ) ch
  JOIN contributions c ON c.song_id = ch.id
  WHERE ch.delta <> 0;
  IF changed IS NOT NULL THEN PERFORM add_settled_contributions(changed, deltas); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER songs_member_count_update AFTER UPDATE ON songs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_member_count_trigger();

-- scheduled_song_links: a live song listed there stops being settled; one removed is settled again.
CREATE FUNCTION scheduled_song_links_member_count_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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
  JOIN songs s ON s.id = x.song_id AND s.deleted_at IS NULL AND s.published_at IS NOT NULL
  JOIN contributions c ON c.song_id = x.song_id;
  IF changed IS NOT NULL THEN PERFORM add_settled_contributions(changed, deltas); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER scheduled_song_links_member_count_insert AFTER INSERT ON scheduled_song_links
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_member_count_trigger();
CREATE TRIGGER scheduled_song_links_member_count_update AFTER UPDATE ON scheduled_song_links
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_member_count_trigger();
CREATE TRIGGER scheduled_song_links_member_count_delete AFTER DELETE ON scheduled_song_links
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION scheduled_song_links_member_count_trigger();

CREATE TRIGGER contributions_member_count_truncate AFTER TRUNCATE ON contributions
  FOR EACH STATEMENT EXECUTE FUNCTION recount_member_settled_contributions_trigger();
CREATE TRIGGER songs_member_count_truncate AFTER TRUNCATE ON songs
  FOR EACH STATEMENT EXECUTE FUNCTION recount_member_settled_contributions_trigger();

SELECT recount_member_settled_contributions();

-- The due contributions of each member: on songs listed as scheduled whose published_at passed.
CREATE VIEW due_member_contributions AS
  SELECT x.member_id, count(*) AS contributions
  FROM scheduled_song_links l CROSS JOIN LATERAL unnest(l.member_ids) AS x(member_id)
  WHERE l.published_at <= now()
  GROUP BY x.member_id;

-- Same columns as sql/0003's public_member_contribution_counts, from the kept counts: the
-- settled contributions plus the due ones.
CREATE VIEW public_member_contributions AS
  SELECT mc.member_id, (mc.settled + coalesce(d.contributions, 0))::bigint AS contribution_count
  FROM member_settled_contributions mc
  LEFT JOIN due_member_contributions d ON d.member_id = mc.member_id
  UNION ALL
  SELECT d.member_id, d.contributions FROM due_member_contributions d
  WHERE NOT EXISTS (SELECT 1 FROM member_settled_contributions mc WHERE mc.member_id = d.member_id);

-- How many members are public (a handle, not banned): /v1/users' total without filters, which
-- counted ~91k rows at 1M songs on each request.
CREATE TABLE public_member_total (
  only_row  boolean PRIMARY KEY DEFAULT true CHECK (only_row),
  members   bigint NOT NULL DEFAULT 0
);
INSERT INTO public_member_total (members)
SELECT count(*) FROM members WHERE username IS NOT NULL AND NOT is_banned;

CREATE FUNCTION public_member_total_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta bigint := 0;
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    delta := delta + (SELECT count(*) FROM new_rows WHERE username IS NOT NULL AND NOT is_banned);
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    delta := delta - (SELECT count(*) FROM old_rows WHERE username IS NOT NULL AND NOT is_banned);
  END IF;
  IF delta <> 0 THEN
    UPDATE public_member_total SET members = members + delta;
  END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION recount_public_member_total() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE public_member_total SET members = (SELECT count(*) FROM members WHERE username IS NOT NULL AND NOT is_banned);
  RETURN NULL;
END $$;

CREATE TRIGGER members_public_total_count_insert AFTER INSERT ON members
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public_member_total_trigger();
CREATE TRIGGER members_public_total_count_update AFTER UPDATE ON members
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION public_member_total_trigger();
CREATE TRIGGER members_public_total_count_delete AFTER DELETE ON members
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION public_member_total_trigger();
CREATE TRIGGER members_public_total_count_truncate AFTER TRUNCATE ON members
  FOR EACH STATEMENT EXECUTE FUNCTION recount_public_member_total();

-- Public members with a settled contribution: /v1/stats' contributors without sql/0006's
-- per-member check of every scheduled song's contributors (~170 ms at 1M songs).
ALTER TABLE public_member_total ADD COLUMN with_settled bigint NOT NULL DEFAULT 0;
UPDATE public_member_total SET with_settled = (
  SELECT count(*) FROM member_settled_contributions mc JOIN members m ON m.id = mc.member_id
  WHERE mc.settled > 0 AND m.username IS NOT NULL AND NOT m.is_banned);

-- member_settled_contributions: a public member crossing zero moves with_settled.
CREATE FUNCTION member_settled_total_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta bigint := 0;
BEGIN
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    delta := delta + (SELECT count(*) FROM new_rows n JOIN members m ON m.id = n.member_id
                      WHERE n.settled > 0 AND m.username IS NOT NULL AND NOT m.is_banned);
  END IF;
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    delta := delta - (SELECT count(*) FROM old_rows o JOIN members m ON m.id = o.member_id
                      WHERE o.settled > 0 AND m.username IS NOT NULL AND NOT m.is_banned);
  END IF;
  IF delta <> 0 THEN
    UPDATE public_member_total SET with_settled = with_settled + delta;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER member_settled_total_count_insert AFTER INSERT ON member_settled_contributions
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_settled_total_trigger();
CREATE TRIGGER member_settled_total_count_update AFTER UPDATE ON member_settled_contributions
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_settled_total_trigger();
CREATE TRIGGER member_settled_total_count_delete AFTER DELETE ON member_settled_contributions
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION member_settled_total_trigger();

-- members: gaining or losing a public profile moves with_settled for members with settled contributions.
CREATE FUNCTION members_settled_total_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  delta bigint;
BEGIN
  delta := (SELECT count(*) FROM new_rows n JOIN member_settled_contributions mc ON mc.member_id = n.id
            WHERE mc.settled > 0 AND n.username IS NOT NULL AND NOT n.is_banned)
         - (SELECT count(*) FROM old_rows o JOIN member_settled_contributions mc ON mc.member_id = o.id
            WHERE mc.settled > 0 AND o.username IS NOT NULL AND NOT o.is_banned);
  IF delta <> 0 THEN
    UPDATE public_member_total SET with_settled = with_settled + delta;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER members_settled_total_count_update AFTER UPDATE ON members
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION members_settled_total_trigger();

-- The recount after a bulk load (the seeder) or a TRUNCATE also refreshes both totals.
CREATE OR REPLACE FUNCTION recount_member_settled_contributions() RETURNS void LANGUAGE sql AS $$
  DELETE FROM member_settled_contributions;
  INSERT INTO member_settled_contributions (member_id, settled)
  SELECT c.member_id, count(*) FROM contributions c JOIN songs s ON s.id = c.song_id
  WHERE s.deleted_at IS NULL AND s.published_at IS NOT NULL
    AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = c.song_id)
  GROUP BY c.member_id;
  UPDATE public_member_total SET
    members = (SELECT count(*) FROM members WHERE username IS NOT NULL AND NOT is_banned),
    with_settled = (SELECT count(*) FROM member_settled_contributions mc JOIN members m ON m.id = mc.member_id
                    WHERE mc.settled > 0 AND m.username IS NOT NULL AND NOT m.is_banned);
$$;

-- /v1/stats' counts (spec 2.13: public rows only): sql/0006's public_catalogue_counts for songs
-- and credits (their scheduled part is one short range of scheduled_song_links), the kept counts
-- of sql/0008 and this file for artists and contributors.
CREATE VIEW public_catalogue_totals AS
  SELECT
    cc.live_songs - (SELECT count(*) FROM scheduled_song_links_now) AS songs,
    cc.live_credits - (SELECT coalesce(sum(cardinality(artist_ids)), 0) FROM scheduled_song_links_now) AS credits,
    visible_artist_count() AS artists,
    (SELECT with_settled FROM public_member_total)
      + (SELECT count(*) FROM due_member_contributions d JOIN members m ON m.id = d.member_id
         WHERE m.username IS NOT NULL AND NOT m.is_banned
           AND NOT EXISTS (SELECT 1 FROM member_settled_contributions mc WHERE mc.member_id = d.member_id AND mc.settled > 0))
      AS contributors
  FROM catalogue_counts cc;

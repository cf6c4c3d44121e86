-- What the public may see, each rule written once. Every view, count, trigger and read calls
-- these; test/live-rules.test.ts fails on a definition that spells a rule out again. The rules
-- are one expression each (LANGUAGE sql ... RETURN), so the planner inlines them: a WHERE that
-- calls one plans as the written-out condition and matches the partial indexes.

-- Songs: live once published (now or scheduled) and not deleted; public once published_at has
-- passed. A trigger cannot see the clock pass published_at, so kept counts count live rows and
-- the readers subtract what is still scheduled. song_is_live is in sql/schema/0_computed.sql (an
-- index is computed with it).

CREATE OR REPLACE FUNCTION song_is_public_at(published_at timestamp with time zone, deleted_at timestamp with time zone, at timestamp with time zone) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN published_at <= at AND deleted_at IS NULL;

CREATE OR REPLACE FUNCTION song_is_public(published_at timestamp with time zone, deleted_at timestamp with time zone) RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
  RETURN song_is_public_at(published_at, deleted_at, now());

-- Scheduled: live, and published_at still ahead (songs_scheduled_idx, albums_scheduled_idx).
CREATE OR REPLACE FUNCTION song_is_scheduled(published_at timestamp with time zone, deleted_at timestamp with time zone) RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
  RETURN song_is_live(published_at, deleted_at) AND published_at > now();

-- Is the song settled: live and not listed as scheduled (reads the list as it is now).
CREATE OR REPLACE FUNCTION song_is_settled(song integer) RETURNS boolean LANGUAGE sql STABLE AS $$
  SELECT EXISTS (SELECT 1 FROM songs s WHERE s.id = song AND song_is_live(s.published_at, s.deleted_at))
     AND NOT EXISTS (SELECT 1 FROM scheduled_song_links l WHERE l.song_id = song)
$$;

CREATE OR REPLACE VIEW public_songs AS
  SELECT * FROM songs WHERE song_is_public(published_at, deleted_at);

-- the scheduled and due rows the public counts subtract or add.
CREATE OR REPLACE VIEW scheduled_songs AS
  SELECT s.id FROM songs s WHERE song_is_scheduled(s.published_at, s.deleted_at);

-- Albums, and curated lists as albums: live with a published_at, public once it has passed.

CREATE OR REPLACE FUNCTION album_is_live(published_at timestamp with time zone) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN published_at IS NOT NULL;

CREATE OR REPLACE FUNCTION album_is_public_at(published_at timestamp with time zone, at timestamp with time zone) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN published_at <= at;

CREATE OR REPLACE FUNCTION album_is_public(published_at timestamp with time zone) RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
  RETURN album_is_public_at(published_at, now());

CREATE OR REPLACE FUNCTION album_is_scheduled(published_at timestamp with time zone) RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
  RETURN album_is_live(published_at) AND published_at > now();

CREATE OR REPLACE VIEW public_albums AS
  SELECT * FROM albums WHERE album_is_public(published_at);

CREATE OR REPLACE VIEW scheduled_albums AS
  SELECT al.id, al.album_type FROM albums al WHERE album_is_scheduled(al.published_at);

CREATE OR REPLACE FUNCTION curated_list_is_live(published_at timestamp with time zone) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN album_is_live(published_at);

-- A curated list is public as an album is: once its published_at has passed.
CREATE OR REPLACE FUNCTION curated_list_is_public_at(published_at timestamp with time zone, at timestamp with time zone) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN album_is_public_at(published_at, at);

CREATE OR REPLACE FUNCTION curated_list_is_public(published_at timestamp with time zone) RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
  RETURN curated_list_is_public_at(published_at, now());

CREATE OR REPLACE VIEW public_curated_lists AS
  SELECT * FROM curated_lists WHERE curated_list_is_public(published_at);

-- Members: public with a handle and not banned (member_is_public, sql/schema/0_computed.sql).

CREATE OR REPLACE VIEW public_members AS
  SELECT * FROM members WHERE member_is_public(username, is_banned);

-- Scheduled and due: a scheduled_song_links row lists a live song whose published_at was ahead
-- when it was written; it is due once that time has passed, until a write settles it.

-- A scheduled_song_links row is due once its song's published_at has passed.
CREATE OR REPLACE FUNCTION scheduled_link_is_due(published_at timestamp with time zone) RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
  RETURN published_at <= now();

CREATE OR REPLACE VIEW scheduled_song_links_now AS
  SELECT * FROM scheduled_song_links WHERE NOT scheduled_link_is_due(published_at);

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

-- Artists: visible with a public song credit or a public album naming them. The rule, written
-- once, decides it from the kept counts: a settled public song (artist_song_counts), a due one
-- (due_artist_songs), or a public album. A set-returning SQL function of one row, so that the
-- planner inlines it where it is read, as `CROSS JOIN LATERAL artist_visibility(a.id) v WHERE
-- v.visible`: its subqueries become probes of the caller's plan (a scalar function with a
-- subquery is never inlined, and a call a row cost ~40 us on a deep page). Scalar subqueries, so
-- that the planner probes instead of hashing whole tables. The settled count is read once
-- (OFFSET 0) and handed back, for a reader that shows the song count; a caller that has read it
-- already hands it in (known_settled), and the probe is planned away.
-- test/artist-visibility.test.ts holds it, and every reader of it, to the definition above.
CREATE OR REPLACE FUNCTION artist_visibility(artist integer, known_settled integer DEFAULT NULL) RETURNS TABLE(visible boolean, settled_songs integer) LANGUAGE sql STABLE ROWS 1 AS $$
  SELECT k.settled > 0
      OR artist IN (SELECT d.artist_id FROM due_artist_songs d)
      OR (SELECT true FROM album_artists aa JOIN public_albums al ON al.id = aa.album_id WHERE aa.artist_id = artist LIMIT 1) IS NOT NULL,
    k.settled
  FROM (SELECT coalesce(known_settled, (SELECT ac.settled_songs FROM artist_song_counts ac WHERE ac.artist_id = artist), 0) AS settled OFFSET 0) k
$$;

-- The rule for one artist, as a value (search_entry_visible). PL/pgSQL keeps its plan for the
-- session (in SQL it would be planned at every execution of its caller).
CREATE OR REPLACE FUNCTION artist_is_visible(artist integer) RETURNS boolean LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN (SELECT v.visible FROM artist_visibility(artist) v);
END $$;

CREATE OR REPLACE VIEW public_artists AS
  SELECT a.* FROM artists a CROSS JOIN LATERAL artist_visibility(a.id) v WHERE v.visible;

-- The visible artists without a settled song: the few that can be (a kept row at zero and album
-- credits only, both without a settled song; a due song), each tested by the rule. With the
-- artists that have a settled song (artist_song_counts, kept in name order) they are every
-- visible artist.
CREATE OR REPLACE FUNCTION visible_unsettled_artist_ids() RETURNS TABLE(id integer) LANGUAGE sql STABLE AS $$
  SELECT x.artist_id
  FROM (SELECT artist_id FROM artist_song_counts WHERE settled_songs = 0
        UNION SELECT artist_id FROM artist_counts WHERE live_credits = 0 AND live_album_credits > 0) x
  CROSS JOIN LATERAL artist_visibility(x.artist_id, 0) v
  WHERE v.visible
  UNION
  SELECT d.artist_id FROM due_artist_songs d CROSS JOIN LATERAL artist_visibility(d.artist_id) v
  WHERE v.visible AND v.settled_songs = 0;
$$;

-- The same as (name_key, id), the keys of the artists list in name order.
CREATE OR REPLACE FUNCTION visible_unsettled_artists() RETURNS TABLE(name_key text, id integer) LANGUAGE sql STABLE AS $$
  SELECT lower(a.name), a.id FROM visible_unsettled_artist_ids() u JOIN artists a ON a.id = u.id;
$$;

CREATE OR REPLACE FUNCTION visible_artist_count() RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT with_settled FROM artist_song_totals) + (SELECT count(*) FROM visible_unsettled_artist_ids());
END $$;

-- Search rows: a row is shown once its public_from has passed; an artist's row without
-- one (no settled song) by the artists' rule (artist_is_visible).

-- The kind of a /v1/search type: its place in the order of the types (search_docs.kind); the
-- types' names are the only numbering TypeScript knows.
CREATE OR REPLACE FUNCTION search_kind(type text) RETURNS smallint LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE type WHEN 'songs' THEN 1 WHEN 'artists' THEN 2 WHEN 'albums' THEN 3 WHEN 'curated_lists' THEN 4
                   WHEN 'labels' THEN 5 WHEN 'genres' THEN 6 WHEN 'users' THEN 7 END;

-- Entry (kind, id, public_from) is shown now: its public_from has passed, or it is an artist
-- without a settled song whom the rule above shows. No subquery of its own, so it is inlined
-- into each read; the artists' rule runs only for their few entries without a public_from.
CREATE OR REPLACE FUNCTION search_entry_visible(entry_kind smallint, entry_id integer, entry_public_from timestamp with time zone) RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
  RETURN entry_public_from <= now() OR (entry_public_from IS NULL AND entry_kind = search_kind('artists') AND artist_is_visible(entry_id));

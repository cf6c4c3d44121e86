-- /v1/users?q= of one or two characters, as sql/0047 for the artists: the total was a pass over every
-- member's folded name and username (100k at 1M songs, ~25 ms), and a query matching few members
-- walked the whole sort order to find them (`zq`: 52 ms over HTTP at 1M).
--
-- Every text of one or two characters in a public member's folded name or username (a gram) is
-- kept: member_name_gram_counts, how many public members have it (the total of a short q without a
-- type), and member_name_grams, which (a rare gram's members read by key: src/Domain/SteeredPage.ts
-- chooses between that and the walk, as for every list it steers). At 1M songs: ~100k members,
-- ~2.4M pairs.
--
-- Kept by one statement trigger on members (listed in src/Seed/keptCounts.ts: the seed switches it
-- off and refills both tables once at the end): a member becoming public or not, or renamed, moves
-- its grams; any other write moves nothing.

SET LOCAL statement_timeout = 0;

CREATE TABLE member_name_grams (
  gram text COLLATE "C" NOT NULL,
  member_id integer NOT NULL,
  PRIMARY KEY (gram, member_id)
);

CREATE TABLE member_name_gram_counts (
  gram text COLLATE "C" PRIMARY KEY,
  members integer NOT NULL
);

-- Members (id, folded names) leaving the public ones and joining them: their grams' pairs moved,
-- and the counts by the pairs actually moved (a rename keeps the grams both names have).
CREATE FUNCTION move_member_name_grams(gone_ids integer[], gone_names text[], gone_usernames text[],
                                       came_ids integer[], came_names text[], came_usernames text[])
RETURNS void LANGUAGE sql AS $$
  WITH gone AS (
    SELECT u.id, g.gram FROM unnest(gone_ids, gone_names, gone_usernames) u(id, n, f)
    CROSS JOIN unnest(name_grams(u.n, u.f)) g(gram)),
  came AS (
    SELECT u.id, g.gram FROM unnest(came_ids, came_names, came_usernames) u(id, n, f)
    CROSS JOIN unnest(name_grams(u.n, u.f)) g(gram)),
  dropped AS (
    DELETE FROM member_name_grams t USING (SELECT * FROM gone EXCEPT SELECT * FROM came) x
    WHERE t.gram = x.gram AND t.member_id = x.id
    RETURNING t.gram, -1 AS moved),
  added AS (
    INSERT INTO member_name_grams (gram, member_id)
    SELECT x.gram, x.id FROM (SELECT * FROM came EXCEPT SELECT * FROM gone) x
    RETURNING gram, 1 AS moved)
  INSERT INTO member_name_gram_counts AS c (gram, members)
  SELECT m.gram, sum(m.moved) FROM (SELECT * FROM dropped UNION ALL SELECT * FROM added) m GROUP BY m.gram
  ON CONFLICT (gram) DO UPDATE SET members = c.members + excluded.members;
$$;

-- Both tables written anew from the public members, in key order (the seed's last step, TRUNCATE,
-- and a statement moving more than 10,000 members).
CREATE FUNCTION refill_member_name_grams() RETURNS void LANGUAGE sql AS $$
  TRUNCATE member_name_grams, member_name_gram_counts;
  INSERT INTO member_name_grams (gram, member_id)
  SELECT g.gram, m.id FROM members m CROSS JOIN unnest(name_grams(m.search_name, m.search_username)) g(gram)
  WHERE member_is_public(m.username, m.is_banned)
  ORDER BY 1, 2;
  INSERT INTO member_name_gram_counts (gram, members) SELECT gram, count(*) FROM member_name_grams GROUP BY gram;
$$;

CREATE FUNCTION member_name_grams_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  gone_ids integer[]; gone_names text[]; gone_usernames text[];
  came_ids integer[]; came_names text[]; came_usernames text[];
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM refill_member_name_grams();
    RETURN NULL;
  ELSIF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.id), array_agg(n.search_name), array_agg(n.search_username)
      INTO came_ids, came_names, came_usernames
    FROM new_rows n WHERE member_is_public(n.username, n.is_banned);
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.id), array_agg(o.search_name), array_agg(o.search_username)
      INTO gone_ids, gone_names, gone_usernames
    FROM old_rows o WHERE member_is_public(o.username, o.is_banned);
  ELSE
    -- only the rows whose public names changed: public or not, or renamed
    SELECT array_agg(o.id), array_agg(o.search_name), array_agg(o.search_username)
      INTO gone_ids, gone_names, gone_usernames
    FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE member_is_public(o.username, o.is_banned) AND (NOT member_is_public(n.username, n.is_banned)
      OR (n.search_name, n.search_username) IS DISTINCT FROM (o.search_name, o.search_username));
    SELECT array_agg(n.id), array_agg(n.search_name), array_agg(n.search_username)
      INTO came_ids, came_names, came_usernames
    FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE member_is_public(n.username, n.is_banned) AND (NOT member_is_public(o.username, o.is_banned)
      OR (n.search_name, n.search_username) IS DISTINCT FROM (o.search_name, o.search_username));
  END IF;
  IF coalesce(cardinality(gone_ids), 0) + coalesce(cardinality(came_ids), 0) > 10000 THEN
    PERFORM refill_member_name_grams();
  ELSIF gone_ids IS NOT NULL OR came_ids IS NOT NULL THEN
    PERFORM move_member_name_grams(gone_ids, gone_names, gone_usernames, came_ids, came_names, came_usernames);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER members_name_grams_insert AFTER INSERT ON members
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_name_grams_trigger();
CREATE TRIGGER members_name_grams_update AFTER UPDATE ON members
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_name_grams_trigger();
CREATE TRIGGER members_name_grams_delete AFTER DELETE ON members
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION member_name_grams_trigger();
CREATE TRIGGER members_name_grams_truncate AFTER TRUNCATE ON members
  FOR EACH STATEMENT EXECUTE FUNCTION member_name_grams_trigger();

SELECT refill_member_name_grams();
ANALYZE member_name_grams, member_name_gram_counts;

-- The public members whose folded name or username contains the folded `q`, by the kept grams: as
-- (member's handle) for src/Domain/SteeredPage.ts's key sets, and how many (NULL when the folded q
-- is not a gram: empty, or folded to more than two characters).
-- (each handle a probe by primary key: a join was planned as a hash over every member, 10 ms at 1M)
CREATE FUNCTION short_member_query_handles(q text) RETURNS TABLE (handle text) LANGUAGE sql STABLE AS $$
  SELECT (SELECT lower(m.username) FROM members m WHERE m.id = g.member_id) FROM member_name_grams g WHERE g.gram = fold_name(q)
$$;
CREATE FUNCTION short_member_query_count(q text) RETURNS integer LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN char_length(f) BETWEEN 1 AND 2
    THEN coalesce((SELECT c.members FROM member_name_gram_counts c WHERE c.gram = f), 0) END
  FROM fold_name(q) f
$$;

-- src/Domain/SteeredPage.ts reads a rare gram's members by key in contribution order too: the ranks by handle.
CREATE INDEX member_contribution_ranks_handle_idx ON member_contribution_ranks (handle);

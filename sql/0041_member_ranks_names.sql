-- /v1/users in contribution order with `q` or `type`: the walk of sql/0017's ranks joined each
-- walked member's row to test the filters (a probe a member), so a page deep in a common filter
-- read that many members: at 1M songs `q=an` (32.5k of 91k members) 105-113 ms in the middle,
-- `type=fans&offset=40000` 67 ms.
--
-- The ranks now keep what the filters test (the member's kind and folded name and username, copies
-- of the generated columns of members), and the ranks' index carries them: a filtered page is one
-- index-only walk stopped at the page. Kept as the ranks are: every write of a member removes its
-- rank and adds it again from the new row (sql/0017's trigger, restated with the columns), and the
-- recount.

SET LOCAL statement_timeout = 0;

ALTER TABLE member_contribution_ranks ADD COLUMN kind text, ADD COLUMN search_name text, ADD COLUMN search_username text;
UPDATE member_contribution_ranks r SET kind = m.kind, search_name = m.search_name, search_username = m.search_username
FROM members m WHERE m.id = r.member_id;

DROP INDEX member_contribution_ranks_idx;
CREATE INDEX member_contribution_ranks_idx ON member_contribution_ranks (settled, handle)
  INCLUDE (member_id, kind, search_name, search_username);

CREATE OR REPLACE FUNCTION recount_member_contribution_ranks() RETURNS void LANGUAGE sql AS $$
  DELETE FROM member_contribution_ranks;
  INSERT INTO member_contribution_ranks (member_id, handle, settled, kind, search_name, search_username)
  SELECT m.id, lower(m.username), coalesce(mc.settled, 0), m.kind, m.search_name, m.search_username
  FROM members m LEFT JOIN member_settled_contributions mc ON mc.member_id = m.id
  WHERE member_is_public(m.username, m.is_banned);
$$;

CREATE OR REPLACE FUNCTION members_contribution_rank_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
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

-- the members with due contributions, with the same columns for the readers' merge
CREATE OR REPLACE VIEW due_member_ranks AS
  SELECT r.member_id, r.handle, (r.settled + d.contributions)::int AS contribution_count,
         r.kind, r.search_name, r.search_username
  FROM due_member_contributions d JOIN member_contribution_ranks r ON r.member_id = d.member_id;

-- short_member_query_count (sql/0048: how many members a one- or two-letter /v1/users?q= matches)
-- in PL/pgSQL, as sql/0056 did for the artists' counts: its subquery kept it from being inlined,
-- so it was planned at every execution of the page's statement (~0.25 ms of a call at 100k songs).
-- The same body. No LANGUAGE sql function a read calls has a subquery now
-- (test/functions-planned-once.test.ts).

CREATE OR REPLACE FUNCTION short_member_query_count(q text) RETURNS integer LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN (
  SELECT CASE WHEN char_length(f) BETWEEN 1 AND 2
    THEN coalesce((SELECT c.members FROM member_name_gram_counts c WHERE c.gram = f), 0) END
  FROM fold_name(q) f);
END $$;


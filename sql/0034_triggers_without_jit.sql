-- The kept-count, search and feed triggers run in whatever session writes (a views refresh, staff
-- tooling, psql), not only in the service's, whose connections run with jit off
-- (src/Database.ts). Their statements are planned generically over transition tables and
-- set-returning functions, with estimates in the hundreds of thousands of rows: past
-- jit_above_cost, so PostgreSQL compiled each one to machine code before running it on a few
-- rows. songs_search_update (a row trigger rebuilding the song's search entries) spent ~40 ms of
-- JIT compilation a song at 1M songs for ~0.4 ms of work: a views update of 200 songs 6.5 s in
-- that trigger, 0.17 s without JIT. Every trigger function runs without it now, whoever writes.
-- A migration that creates or replaces a trigger function gives it `SET jit = off` itself
-- (CREATE OR REPLACE clears the setting; docs/query-plans.md, "How to add a kept count").
DO $$
DECLARE
  f regprocedure;
BEGIN
  FOR f IN
    SELECT p.oid::regprocedure FROM pg_proc p
    WHERE p.pronamespace = 'public'::regnamespace AND p.prorettype = 'trigger'::regtype
      AND NOT EXISTS (SELECT 1 FROM pg_depend d
                      WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e')
  LOOP
    EXECUTE format('ALTER FUNCTION %s SET jit = off', f);
  END LOOP;
END $$;

-- How the definitions attach a trigger function to a table: one line a table. A statement-level
-- trigger that reads transition tables fires on one event only (PostgreSQL's rule), so a
-- function that follows every write of a table is attached three times, as <name>_delete
-- (old_rows), <name>_insert (new_rows) and <name>_update (both): triggers fire in name order among
-- the table's others.

CREATE OR REPLACE FUNCTION attach_after_statement(tbl regclass, name text, fn regproc) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('CREATE OR REPLACE TRIGGER %I AFTER DELETE ON %s REFERENCING OLD TABLE AS old_rows
                  FOR EACH STATEMENT EXECUTE FUNCTION %s()', name || '_delete', tbl, fn);
  EXECUTE format('CREATE OR REPLACE TRIGGER %I AFTER INSERT ON %s REFERENCING NEW TABLE AS new_rows
                  FOR EACH STATEMENT EXECUTE FUNCTION %s()', name || '_insert', tbl, fn);
  EXECUTE format('CREATE OR REPLACE TRIGGER %I AFTER UPDATE ON %s REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
                  FOR EACH STATEMENT EXECUTE FUNCTION %s()', name || '_update', tbl, fn);
END $$;

-- A trigger that runs the refill it names (its argument): a TRUNCATE of a source, or a change that
-- moves every kept row, writes the kept data again from scratch.
CREATE OR REPLACE FUNCTION refill_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  EXECUTE format('SELECT %I()', TG_ARGV[0]);
  RETURN NULL;
END $$;

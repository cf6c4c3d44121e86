-- An UPDATE that leaves a row as it was changes nothing anyone can see, so nothing kept from the
-- row may move: no count, order, search row or change-feed entry. Every table whose updates a
-- trigger of the files above follows skips such a row before its AFTER triggers see it
-- (PostgreSQL's suppress_redundant_updates_trigger): the statement's transition tables and row
-- triggers hold only rows that changed. The trigger's name sorts after the table's other BEFORE
-- triggers, so it compares the row they wrote. This file comes last to find every such table.

CREATE OR REPLACE FUNCTION attach_unchanged_rows_skipped() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  tbl regclass;
BEGIN
  FOR tbl IN
    SELECT DISTINCT t.tgrelid::regclass FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
    WHERE c.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
      AND t.tgtype & 16 <> 0 -- TRIGGER_TYPE_UPDATE
      AND t.tgname <> 'zz_unchanged_rows_skipped'
  LOOP
    EXECUTE format('CREATE OR REPLACE TRIGGER zz_unchanged_rows_skipped BEFORE UPDATE ON %s
                    FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger()', tbl);
  END LOOP;
END $$;
SELECT attach_unchanged_rows_skipped();

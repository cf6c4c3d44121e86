-- search_kind_page and search_kind_typos take the kind as a parameter, so their cached (generic)
-- plans of the inside-a-word and typo lookups held the arms of all seven kinds
-- (search_names_inside and search_names_near are a UNION ALL of one arm per kind, each on its
-- kind's partial trigram indexes): every execution locked and started the index scans of seven
-- arms to run one. ~0.05 ms a kind, several kinds a search. Now each lookup is one statement per
-- kind with its kind written in, whose plan holds that kind's arm only. Same rows.

-- The inside-a-word candidates of kind k (search_inside_entries), at most `most` of them.
DO $do$
BEGIN
  EXECUTE format($f$
    CREATE FUNCTION search_inside_candidates(k smallint, q text, most integer)
    RETURNS TABLE (id integer, popularity bigint, handle text)
    LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $body$
    #variable_conflict use_column
    BEGIN
      %s
    END $body$$f$,
    (SELECT string_agg(format($a$IF k = %1$s THEN
        RETURN QUERY SELECT i.id, i.popularity, i.handle FROM search_inside_entries(%1$s::smallint, q) i LIMIT most;
      END IF;$a$, kind), E'\n      ')
     FROM generate_series(1, 7) kind));
END $do$;

-- search_kind_page as sql/0054 left it, reading its inside candidates through the above.
DO $do$
DECLARE
  definition text := pg_get_functiondef('search_kind_page'::regproc);
  lookup CONSTANT text := 'FROM (SELECT i.id, i.popularity, i.handle FROM search_inside_entries(k, q) i LIMIT 2 * (bound - starting)) r';
BEGIN
  IF position(lookup IN definition) = 0 THEN
    RAISE EXCEPTION 'search_kind_page no longer reads its inside candidates as sql/0054 wrote it';
  END IF;
  EXECUTE replace(definition, lookup, 'FROM search_inside_candidates(k, q, 2 * (bound - starting)) r');
END $do$;

-- sql/0042's typo page, one statement per kind.
DO $do$
BEGIN
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION search_kind_typos(k smallint, q text, take integer)
    RETURNS TABLE (id integer, score numeric, popularity bigint, handle text, total integer)
    LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $body$
    #variable_conflict use_column
    BEGIN
      %s
    END $body$$f$,
    (SELECT string_agg(format($a$IF k = %1$s THEN
        RETURN QUERY
          SELECT m.id, 0.25, m.popularity, m.handle, (count(*) OVER ())::integer FROM (
            SELECT e.id, max(e.popularity) AS popularity, max(e.handle) AS handle
            FROM search_names_near(%1$s::smallint, q) e
            WHERE search_entry_visible(%1$s::smallint, e.id, e.public_from)
            GROUP BY e.id) m
          ORDER BY m.popularity DESC, m.handle, m.id LIMIT take;
      END IF;$a$, kind), E'\n      ')
     FROM generate_series(1, 7) kind));
END $do$;

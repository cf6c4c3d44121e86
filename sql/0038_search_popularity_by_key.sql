-- sql/0015's refresh of some rows' search popularity: the rows were named on search_entries
-- only, so the generic plan joined every row of the kind's source (search_sources: for artists,
-- 250k rows with two kept-count probes each, ~1 s at 1M songs) to find the few asked. Called by
-- the kept-count triggers, it made one credit written at 1M take 2.2 s. The source is now read by
-- key too (`s.id = ANY (ids)`, which each arm of the view takes to its primary key).
CREATE OR REPLACE FUNCTION refresh_search_popularity(entry_kind smallint, ids integer[]) RETURNS void LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  UPDATE search_entries e SET popularity = s.popularity, public_from = s.public_from
  FROM search_sources s
  WHERE e.kind = entry_kind AND e.id = ANY(ids) AND s.kind = entry_kind AND s.id = ANY(ids) AND s.id = e.id
    AND (e.popularity, e.public_from) IS DISTINCT FROM (s.popularity, s.public_from);
END $$;

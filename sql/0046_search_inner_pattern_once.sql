-- sql/0043's inside-a-word arms wrote their pattern as `'%' || search_inner_query(q) || '%'`: in
-- the generic plan q is a parameter, so the pattern was computed again (a regexp_replace) for every
-- row the trigram index returned, at its recheck. "a b" at 1M songs (11k candidate titles): 420 ms
-- for the songs arm, 150 with the pattern computed once (an init plan). The arms are otherwise
-- sql/0043's.

DO $do$
BEGIN
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION search_names_inside(k smallint, q text)
    RETURNS TABLE (id integer, popularity bigint, handle text, public_from timestamptz)
    LANGUAGE sql STABLE AS $body$ %s $body$$f$,
    (SELECT string_agg(format(
              $a$SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
               WHERE k = %1$s AND e.kind = %1$s AND e.whole AND e.inner_tail LIKE (SELECT '%%' || search_inner_query(q) || '%%')
                 AND NOT (starts_with(e.tail, q) OR strpos(e.tail, ' ' || q) > 0)$a$, kind),
            ' UNION ALL ')
     FROM generate_series(1, 7) kind));
END $do$;

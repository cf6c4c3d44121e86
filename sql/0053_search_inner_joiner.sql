-- sql/0052 joined a name's words with the letter `q` in the inner indexes, so that a query's
-- trigrams cross its spaces. But `q` is also a letter of folded names and queries: `q=aqs` (a
-- word of its own, not "a s") found as candidates every name where a word ending in "a" meets
-- one starting with "s" (~17k titles at 1M songs), all rejected by the exact test: 0.66 s.
-- The joiner is now U+A66E (CYRILLIC LETTER MULTIOCULAR O), a letter to pg_trgm in the
-- database's UTF-8 character classes and absent from the catalogue's names: only a query that
-- holds it pays as `aqs` did. (Where the character type classes do not count it a letter, the
-- C locale, it separates words as the space did before sql/0052: slower, never wrong.)

SET LOCAL statement_timeout = 0;
SET LOCAL maintenance_work_mem = '128MB';

-- The inner text as its index holds it: the words joined by the joiner.
CREATE FUNCTION search_inner_joined(inner_text text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN replace(inner_text, ' ', 'ꙮ');

DROP INDEX search_entries_songs_inner_trgm, search_entries_artists_inner_trgm, search_entries_albums_inner_trgm,
  search_entries_curated_lists_inner_trgm, search_entries_labels_inner_trgm, search_entries_genres_inner_trgm,
  search_entries_users_inner_trgm;

CREATE OR REPLACE FUNCTION create_search_inner_indexes() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  kind record;
BEGIN
  FOR kind IN VALUES (1, 'songs'), (2, 'artists'), (3, 'albums'), (4, 'curated_lists'), (5, 'labels'), (6, 'genres'), (7, 'users') LOOP
    EXECUTE format($i$CREATE INDEX search_entries_%s_inner_trgm ON search_entries USING gin ((search_inner_joined(inner_tail)) gin_trgm_ops)
                    WHERE whole AND kind = %s$i$, kind.column2, kind.column1);
  END LOOP;
END $$;

SELECT create_search_inner_indexes();

-- sql/0052's arms with the joiner.
DO $do$
BEGIN
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION search_names_inside(k smallint, q text)
    RETURNS TABLE (id integer, popularity bigint, handle text, public_from timestamptz)
    LANGUAGE sql STABLE AS $body$ %s $body$$f$,
    (SELECT string_agg(format(
              $a$SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
               WHERE k = %1$s AND e.kind = %1$s AND e.whole
                 AND search_inner_joined(e.inner_tail) LIKE (SELECT '%%' || search_inner_joined(search_inner_query(q)) || '%%')
                 AND e.inner_tail LIKE (SELECT '%%' || search_inner_query(q) || '%%')
                 AND NOT (starts_with(e.tail, q) OR strpos(e.tail, ' ' || q) > 0)$a$, kind),
            ' UNION ALL ')
     FROM generate_series(1, 7) kind));
END $do$;

ANALYZE search_entries;

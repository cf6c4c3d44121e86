-- Inside a word, the kind's trigram index over whole names (sql/0015) found every name holding the
-- query, and for a common word nearly all of them hold it at a word start: "suci" at 100k songs
-- read 834 titles from the heap to keep none. The search table now keeps each whole name with a
-- '#' after the first character of every word (`inner_tail`: "bukan cinta" -> "b#ukan c#inta";
-- folded names never hold '#'), in which a word start no longer reads as the word, and a trigram
-- index per kind over it: a query is found there exactly where it starts inside a word.
--
-- The column is generated. sql/0015's search_entry_rows returns the table's row type, which now
-- holds it: it returns the column as the table computes it (test/search-entries.test.ts compares
-- the two), and the row triggers' insert names the columns it writes. recount_search_entries
-- builds the new indexes after the rows, as it does the others.
-- Adding it rewrites the table (51 s at 1M songs, 3.35M rows, on the slow machine): VACUUM
-- search_entries after this migration (docs/operations.md), for the index-only ranges.

SET LOCAL statement_timeout = 0;
SET LOCAL maintenance_work_mem = '128MB';

-- Each word's first character followed by '#'.
CREATE FUNCTION search_inner_words(folded text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN regexp_replace(folded, '(^| )([^ ])', '\1\2#', 'g');

-- A query starting inside a word, as search_inner_words writes the names that hold it there: its
-- first word as typed (it starts inside a word), its later words marked ("ta bia" -> "ta b#ia").
CREATE FUNCTION search_inner_query(q text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN regexp_replace(q, ' ([^ ])', ' \1#', 'g');

ALTER TABLE search_entries
  ADD COLUMN inner_tail text COLLATE "C" GENERATED ALWAYS AS (CASE WHEN whole THEN search_inner_words(tail) END) STORED;

-- The kinds' inner indexes, built here and by recount_search_entries (below).
CREATE FUNCTION create_search_inner_indexes() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  kind record;
BEGIN
  FOR kind IN VALUES (1, 'songs'), (2, 'artists'), (3, 'albums'), (4, 'curated_lists'), (5, 'labels'), (6, 'genres'), (7, 'users') LOOP
    EXECUTE format('CREATE INDEX search_entries_%s_inner_trgm ON search_entries USING gin (inner_tail gin_trgm_ops)
                    WHERE whole AND kind = %s', kind.column2, kind.column1);
  END LOOP;
END $$;

SELECT create_search_inner_indexes();
ANALYZE search_entries;

-- sql/0042's arms, now read from the inner indexes; the name itself must not start a word with q
-- (a name may hold it both inside a word and at a word start: that is a word start match).
DO $do$
BEGIN
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION search_names_inside(k smallint, q text)
    RETURNS TABLE (id integer, popularity bigint, handle text, public_from timestamptz)
    LANGUAGE sql STABLE AS $body$ %s $body$$f$,
    (SELECT string_agg(format(
              $a$SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
               WHERE k = %1$s AND e.kind = %1$s AND e.whole AND e.inner_tail LIKE '%%' || search_inner_query(q) || '%%'
                 AND NOT (starts_with(e.tail, q) OR strpos(e.tail, ' ' || q) > 0)$a$, kind),
            ' UNION ALL ')
     FROM generate_series(1, 7) kind));
END $do$;

-- sql/0015's entries of some rows of one kind, with inner_tail.
CREATE OR REPLACE FUNCTION search_entry_rows(entry_kind smallint, ids integer[])
RETURNS SETOF search_entries LANGUAGE sql STABLE AS $$
  SELECT DISTINCT ON (s.id, t.tail) s.kind, s.id, t.tail, t.whole, s.popularity, s.public_from, s.handle,
         CASE WHEN t.whole THEN search_inner_words(t.tail) END
  FROM search_sources s
  CROSS JOIN LATERAL unnest(s.name_keys) AS k(name_key)
  CROSS JOIN LATERAL name_tails(k.name_key) t
  WHERE s.kind = entry_kind AND s.id = ANY(ids)
  ORDER BY s.id, t.tail, t.whole DESC
$$;

-- sql/0015's rewrite of some rows' entries, with the columns it writes named.
CREATE OR REPLACE FUNCTION refresh_search_entries(entry_kind smallint, ids integer[]) RETURNS void LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  DELETE FROM search_entries WHERE kind = entry_kind AND id = ANY(ids);
  INSERT INTO search_entries (kind, id, tail, whole, popularity, public_from, handle)
  SELECT e.kind, e.id, e.tail, e.whole, e.popularity, e.public_from, e.handle FROM search_entry_rows(entry_kind, ids) e;
END $$;

-- sql/0015's first fill, which drops the indexes and builds them after the rows: the inner ones too.
CREATE OR REPLACE FUNCTION recount_search_entries() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  k smallint;
BEGIN
  DROP INDEX IF EXISTS search_entries_tail_idx, search_entries_id_idx, search_entries_head1_idx, search_entries_head2_idx, search_entries_songs_trgm,
    search_entries_artists_trgm, search_entries_albums_trgm, search_entries_curated_lists_trgm,
    search_entries_labels_trgm, search_entries_genres_trgm, search_entries_users_trgm,
    search_entries_songs_inner_trgm, search_entries_artists_inner_trgm, search_entries_albums_inner_trgm,
    search_entries_curated_lists_inner_trgm, search_entries_labels_inner_trgm, search_entries_genres_inner_trgm,
    search_entries_users_inner_trgm;
  TRUNCATE search_entries;
  FOR k IN 1..7 LOOP
    INSERT INTO search_entries (kind, id, tail, whole, popularity, public_from, handle)
    SELECT DISTINCT ON (s.id, t.tail) s.kind, s.id, t.tail, t.whole, s.popularity, s.public_from, s.handle
    FROM search_sources s
    CROSS JOIN LATERAL unnest(s.name_keys) AS n(name_key)
    CROSS JOIN LATERAL name_tails(n.name_key) t
    WHERE s.kind = k
    ORDER BY s.id, t.tail, t.whole DESC;
  END LOOP;
  CREATE INDEX search_entries_tail_idx ON search_entries (kind, tail) INCLUDE (id, whole, popularity, public_from, handle);
  CREATE INDEX search_entries_id_idx ON search_entries (kind, id);
  CREATE INDEX search_entries_head1_idx ON search_entries (kind, left(tail, 1), popularity DESC, handle, id)
    INCLUDE (public_from) WHERE whole;
  CREATE INDEX search_entries_head2_idx ON search_entries (kind, whole, left(tail, 2), popularity DESC, handle, id)
    INCLUDE (tail, public_from);
  CREATE INDEX search_entries_songs_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE whole AND kind = 1;
  CREATE INDEX search_entries_artists_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE whole AND kind = 2;
  CREATE INDEX search_entries_albums_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE whole AND kind = 3;
  CREATE INDEX search_entries_curated_lists_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE whole AND kind = 4;
  CREATE INDEX search_entries_labels_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE whole AND kind = 5;
  CREATE INDEX search_entries_genres_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE whole AND kind = 6;
  CREATE INDEX search_entries_users_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE whole AND kind = 7;
  PERFORM create_search_inner_indexes();
  ANALYZE search_entries;
END $$;

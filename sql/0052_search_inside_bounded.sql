-- Inside a word (sql/0043), a query of short words had no trigram that narrowed it: "a s" (`%a s#%`)
-- found its candidates by the one trigram of its "s", every name with a word starting with s
-- (~300k titles at 1M songs), and then ranked every match (~17k titles) to show the five most
-- popular: 130-210 ms a kind, the slowest searches (`q=e s`, `q=a s`: 160-170 ms at 1M).
--
-- - The kinds' inner indexes now index the inner text with its spaces as a letter (`q`), so that
--   the trigrams of the query's words cross them: "a s" looks up "aqs". The condition on that text
--   finds a superset of the matches (a `q` in the name reads as a space there); the condition on
--   `inner_tail` itself decides. ("an s": 63 -> 20 ms; "ng k": 47 -> 26 for songs at 1M.)
-- - The inside matches are read only up to the bound (2 x the rows left under it, as names, read
--   from the index without grouping): fewer are counted and ranked from what was read, in one
--   statement as before; when the bound is reached and the page still has room, the most popular
--   matches are read by walking the kind's whole names in popularity order
--   (`search_entries_popular_idx`) until the page is full, instead of ranking every match.
-- recount_search_entries builds the inner indexes through create_search_inner_indexes (sql/0043),
-- redefined here; the popularity index stays through its refill.

SET LOCAL statement_timeout = 0;
SET LOCAL maintenance_work_mem = '128MB';

DROP INDEX search_entries_songs_inner_trgm, search_entries_artists_inner_trgm, search_entries_albums_inner_trgm,
  search_entries_curated_lists_inner_trgm, search_entries_labels_inner_trgm, search_entries_genres_inner_trgm,
  search_entries_users_inner_trgm;

-- The inner text with its spaces as a letter: what the inner indexes hold.
CREATE OR REPLACE FUNCTION create_search_inner_indexes() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  kind record;
BEGIN
  FOR kind IN VALUES (1, 'songs'), (2, 'artists'), (3, 'albums'), (4, 'curated_lists'), (5, 'labels'), (6, 'genres'), (7, 'users') LOOP
    EXECUTE format($i$CREATE INDEX search_entries_%s_inner_trgm ON search_entries USING gin ((replace(inner_tail, ' ', 'q')) gin_trgm_ops)
                    WHERE whole AND kind = %s$i$, kind.column2, kind.column1);
  END LOOP;
END $$;

SELECT create_search_inner_indexes();

CREATE INDEX search_entries_popular_idx ON search_entries (kind, popularity DESC, handle, id) INCLUDE (public_from) WHERE whole;

-- sql/0046's arms: found through the inner index, decided by inner_tail (each pattern computed once).
DO $do$
BEGIN
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION search_names_inside(k smallint, q text)
    RETURNS TABLE (id integer, popularity bigint, handle text, public_from timestamptz)
    LANGUAGE sql STABLE AS $body$ %s $body$$f$,
    (SELECT string_agg(format(
              $a$SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
               WHERE k = %1$s AND e.kind = %1$s AND e.whole
                 AND replace(e.inner_tail, ' ', 'q') LIKE (SELECT '%%' || replace(search_inner_query(q), ' ', 'q') || '%%')
                 AND e.inner_tail LIKE (SELECT '%%' || search_inner_query(q) || '%%')
                 AND NOT (starts_with(e.tail, q) OR strpos(e.tail, ' ' || q) > 0)$a$, kind),
            ' UNION ALL ')
     FROM generate_series(1, 7) kind));
END $do$;

-- The whole names of kind k's rows that hold q inside a word only (sql/0042's search_inside_word
-- before its grouping: a row may have two names).
CREATE FUNCTION search_inside_entries(k smallint, q text)
RETURNS TABLE (id integer, popularity bigint, handle text) LANGUAGE sql STABLE AS $$
  SELECT e.id, e.popularity, e.handle FROM search_names_inside(k, q) e
  WHERE search_entry_visible(k, e.id, e.public_from)
    AND NOT EXISTS (SELECT 1 FROM search_entries s WHERE s.kind = k AND s.id = e.id AND s.tail >= q AND s.tail < q || chr(1114111))
$$;

-- The `take` most popular of those rows (popularity, then handle, then id), walking the kind's
-- whole names in that order (the test is not an index condition: IS TRUE) until 2 x take names
-- matched: a row's names share its popularity and handle, so they are next to each other.
CREATE FUNCTION search_inside_popular(k smallint, q text, take integer)
RETURNS TABLE (id integer, popularity bigint, handle text) LANGUAGE sql STABLE AS $$
  SELECT m.id, max(m.popularity), max(m.handle) FROM (
    SELECT e.id, e.popularity, e.handle FROM search_entries e
    WHERE e.kind = k AND e.whole
      AND (e.inner_tail LIKE (SELECT '%' || search_inner_query(q) || '%')) IS TRUE
      AND NOT (starts_with(e.tail, q) OR strpos(e.tail, ' ' || q) > 0)
      AND search_entry_visible(k, e.id, e.public_from)
      AND NOT EXISTS (SELECT 1 FROM search_entries s WHERE s.kind = k AND s.id = e.id AND s.tail >= q AND s.tail < q || chr(1114111))
    ORDER BY e.popularity DESC, e.handle, e.id
    LIMIT 2 * take) m
  GROUP BY m.id
  ORDER BY 2 DESC, 3, 1
  LIMIT take
$$;

DROP FUNCTION search_inside_word(smallint, text);

ANALYZE search_entries;

-- sql/0044's function; only the inside-a-word tier changed (above).
CREATE OR REPLACE FUNCTION search_kind_page(k smallint, q text, short boolean, take integer)
RETURNS TABLE (id integer, score numeric, popularity bigint, handle text, total integer)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  bound CONSTANT integer := 1000;           -- SEARCH_TOTAL_BOUND: totals are exact below it
  range_read CONSTANT integer := 3 * bound; -- tails read before deciding a query is common
  q_end text := q || chr(1114111);          -- tail >= q AND tail < q_end: "starts with q" (sql/0015)
  tails integer;
  starting integer;                         -- rows with a word starting with q
  inside integer := 0;                      -- rows with q inside a word only
  inside_entries integer;                   -- their whole names read, up to 2 x the rows the bound leaves
  later text;                               -- q from its second word on (all of it when one word)
  inside_page search_kind_hit[];            -- the best inside matches, when the word starts leave room
BEGIN
  IF short THEN
    -- every equal name, and the 2 x take most popular names starting with it (a row has at most
    -- two whole names); the total counts rows among the first 2 x bound tails of the range
    SELECT count(DISTINCT r.id) INTO starting FROM (
      SELECT e.id FROM search_entries e
      WHERE e.kind = k AND e.whole AND e.tail >= q AND e.tail < q_end AND q <> ''
        AND search_entry_visible(e.kind, e.id, e.public_from)
      LIMIT 2 * bound) r;
    RETURN QUERY
      SELECT c.id, max(c.score), max(c.popularity), max(c.handle), starting FROM (
        SELECT e.id, 1::numeric AS score, e.popularity, e.handle FROM search_entries e
          WHERE e.kind = k AND e.whole AND e.tail >= q AND e.tail <= q AND search_entry_visible(e.kind, e.id, e.public_from)
        UNION ALL (SELECT e.id, 0.75, e.popularity, e.handle FROM search_entries e
          WHERE char_length(q) = 1 AND e.kind = k AND e.whole AND left(e.tail, 1) = q
            AND search_entry_visible(e.kind, e.id, e.public_from)
          ORDER BY e.popularity DESC, e.handle, e.id LIMIT 2 * take)
        UNION ALL (SELECT e.id, 0.75, e.popularity, e.handle FROM search_entries e
          WHERE char_length(q) = 2 AND e.kind = k AND e.whole AND left(e.tail, 2) = q
            AND search_entry_visible(e.kind, e.id, e.public_from)
          ORDER BY e.popularity DESC, e.handle, e.id LIMIT 2 * take)
        -- folding made more than two characters of one or two (a ligature): every name with that start
        UNION ALL SELECT e.id, 0.75, e.popularity, e.handle FROM search_entries e
          WHERE char_length(q) > 2 AND e.kind = k AND e.whole AND e.tail >= q AND e.tail < q_end
            AND search_entry_visible(e.kind, e.id, e.public_from)
      ) c GROUP BY c.id
      ORDER BY 2 DESC, 3 DESC, 4, 1 LIMIT take;
    RETURN;
  END IF;

  -- the word starts: the first range_read tails (index-only), counted; when they hold fewer rows
  -- than the bound but fill range_read (names repeating a word), the whole range
  SELECT count(*), count(DISTINCT r.id) INTO tails, starting FROM (
    SELECT e.id FROM search_entries e
    WHERE e.kind = k AND e.tail >= q AND e.tail < q_end AND q <> '' AND search_entry_visible(e.kind, e.id, e.public_from)
    LIMIT range_read) r;
  IF starting < bound AND tails >= range_read THEN
    SELECT count(DISTINCT e.id) INTO starting FROM search_entries e
    WHERE e.kind = k AND e.tail >= q AND e.tail < q_end AND search_entry_visible(e.kind, e.id, e.public_from);
  END IF;

  IF starting >= bound THEN
    -- a common word: the total is the bound, and the page comes from the most popular matches of
    -- each score, read in popularity order within the query's first two characters and stopped at
    -- 2 x take rows (a row has at most two whole names; one later word counts once per row)
    RETURN QUERY
      SELECT c.id, max(c.score), max(c.popularity), max(c.handle), bound FROM (
        SELECT e.id, 1::numeric AS score, e.popularity, e.handle FROM search_entries e
          WHERE e.kind = k AND e.whole AND e.tail >= q AND e.tail <= q AND search_entry_visible(e.kind, e.id, e.public_from)
        UNION ALL (SELECT e.id, 0.75, e.popularity, e.handle FROM search_entries e
          WHERE e.kind = k AND e.whole AND left(e.tail, 2) = left(q, 2) AND e.tail >= q AND e.tail < q_end
            AND search_entry_visible(e.kind, e.id, e.public_from)
          GROUP BY e.popularity, e.handle, e.id ORDER BY e.popularity DESC, e.handle, e.id LIMIT 2 * take)
        UNION ALL (SELECT e.id, 0.5, e.popularity, e.handle FROM search_entries e
          WHERE e.kind = k AND NOT e.whole AND left(e.tail, 2) = left(q, 2) AND e.tail >= q AND e.tail < q_end
            AND search_entry_visible(e.kind, e.id, e.public_from)
          GROUP BY e.popularity, e.handle, e.id ORDER BY e.popularity DESC, e.handle, e.id LIMIT 2 * take)
      ) c GROUP BY c.id
      ORDER BY 2 DESC, 3 DESC, 4, 1 LIMIT take;
    RETURN;
  END IF;

  -- inside a word (3+ characters): once the word starts fill the page, inside matches only count
  -- towards the bound; otherwise the best of them fill the page. A query of several words can
  -- start inside a word only in a name where its later words start a word: when no tail of the
  -- kind starts with them (one index probe), its trigrams are not looked up.
  later := substr(q, strpos(q, ' ') + 1);
  IF char_length(q) < 3 OR (strpos(q, ' ') > 0 AND NOT EXISTS (
       SELECT 1 FROM search_entries e WHERE e.kind = k AND e.tail >= later AND e.tail < later || chr(1114111))) THEN
    NULL;
  ELSE
    -- read up to 2 x (bound - starting) names (a row has at most two whole names): fewer means
    -- every match was read, and they are counted and ranked; that many means the bound is reached
    SELECT sum(g.names), count(*), array_agg(ROW(g.id, 0.25, g.popularity, g.handle)::search_kind_hit ORDER BY g.place)
        FILTER (WHERE g.place <= take - starting)
      INTO inside_entries, inside, inside_page
    FROM (
      SELECT r.id, max(r.popularity) AS popularity, max(r.handle) AS handle, count(*) AS names,
             row_number() OVER (ORDER BY max(r.popularity) DESC, max(r.handle), r.id) AS place
      FROM (SELECT i.id, i.popularity, i.handle FROM search_inside_entries(k, q) i LIMIT 2 * (bound - starting)) r
      GROUP BY r.id) g;
    IF coalesce(inside_entries, 0) >= 2 * (bound - starting) THEN
      inside := bound - starting;
      -- many (short words: "a s" sits inside ~17k titles at 1M songs): the most popular first
      SELECT array_agg(ROW(m.id, 0.25, m.popularity, m.handle)::search_kind_hit ORDER BY m.popularity DESC, m.handle, m.id)
        INTO inside_page
      FROM search_inside_popular(k, q, take - starting) m WHERE starting < take;
    ELSIF starting >= take THEN
      inside_page := NULL;
    END IF;
  END IF;

  IF starting > 0 THEN
    RETURN QUERY
      SELECT c.id, max(c.score), max(c.popularity), max(c.handle), starting + inside FROM (
        SELECT e.id, CASE WHEN e.whole AND e.tail = q THEN 1 WHEN e.whole THEN 0.75 ELSE 0.5 END AS score,
               e.popularity, e.handle
        FROM search_entries e
        WHERE e.kind = k AND e.tail >= q AND e.tail < q_end AND search_entry_visible(e.kind, e.id, e.public_from)
      ) c GROUP BY c.id
      ORDER BY 2 DESC, 3 DESC, 4, 1 LIMIT take;
  END IF;
  IF inside_page IS NOT NULL THEN
    RETURN QUERY SELECT x.id, x.score, x.popularity, x.handle, starting + inside FROM unnest(inside_page) x;
  END IF;
END $$;

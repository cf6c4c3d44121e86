-- sql/0042's search_kind_page, two changes measured at 100k songs (PostgreSQL CPU of the ranking,
-- the bench's 137 queries: 2.8 -> 1.7 ms a search; answers the same, docs/query-plans.md "Wave 10"):
--
-- - The word starts were counted and cut to the page in one statement, whose window sorted every
--   matching row (up to 3,000 tails, ~10 ms for a common word like "untu"); now a count (as before
--   sql/0042), then, below the bound, the page as a top-N of the range.
-- - A query of several words starts inside a word only in a name where its later words start a
--   word, i.e. only if some tail of the kind starts with them: when none does (one probe of the
--   tails index), the inside-a-word scan, which looks up every trigram of the query, is skipped.
--   Most multi-word queries (whole titles, names with honorifics) matched nothing inside a word
--   and paid for the lookup in every kind.

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
  ELSIF starting >= take THEN
    SELECT count(*) INTO inside FROM (SELECT 1 FROM search_inside_word(k, q) LIMIT bound - starting) m;
  ELSE
    SELECT count(*), array_agg(ROW(m.id, 0.25, m.popularity, m.handle)::search_kind_hit ORDER BY m.place)
        FILTER (WHERE m.place <= take - starting)
      INTO inside, inside_page
    FROM (SELECT i.*, row_number() OVER (ORDER BY i.popularity DESC, i.handle, i.id) AS place FROM search_inside_word(k, q) i) m;
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

-- /v1/search ranked every asked kind in one statement whose generic plan held every tier of every
-- kind (~600 plan lines for seven kinds): starting and ending the executor on it cost ~1 ms a
-- search even when nothing matched. Now a function ranks one kind and runs only the small
-- statements the query needs:
--
-- search_kind_page(kind, folded query, short, limit): the kind's best `take` matches by word
-- start and inside a word, each with the kind's total (no row when nothing matches). `short`: the
-- query as typed had one or two characters (only names starting with it match).
-- search_kind_typos(kind, folded query, limit): the same for names within a typo of the query;
-- the statement asks it only when no asked kind matched otherwise (docs/search.md).
-- Each is planned once per connection (generic plans, checked at 1M songs: index ranges and the
-- kind's own trigram index).

SET LOCAL statement_timeout = 0;

-- public_artists' rule from the kept counts (sql/0008), for the few artists without a settled song.
CREATE FUNCTION search_artist_visible(artist_id integer) RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
  RETURN coalesce((SELECT ac.settled_songs FROM artist_song_counts ac WHERE ac.artist_id = search_artist_visible.artist_id), 0) > 0
    OR search_artist_visible.artist_id IN (SELECT d.artist_id FROM due_artist_songs d)
    OR (SELECT true FROM album_artists aa JOIN public_albums al ON al.id = aa.album_id
        WHERE aa.artist_id = search_artist_visible.artist_id LIMIT 1);

-- Entry (kind, id, public_from) is shown now: its public_from has passed, or it is an artist
-- without a settled song whom the rule above shows. No subquery of its own, so it is inlined
-- into each read; the artists' rule runs only for their few entries without a public_from.
CREATE FUNCTION search_entry_visible(entry_kind smallint, entry_id integer, entry_public_from timestamptz)
  RETURNS boolean LANGUAGE sql STABLE PARALLEL SAFE
  RETURN entry_public_from <= now() OR (entry_public_from IS NULL AND entry_kind = 2 AND search_artist_visible(entry_id));

-- A ranked match kept aside while the total is still being counted.
CREATE TYPE search_kind_hit AS (id integer, score numeric, popularity bigint, handle text);

-- The whole names of kind k that hold q inside a word and at no word start
-- (`search_names_inside`), or are within a typo of it (`search_names_near`), from the kind's
-- trigram index (sql/0015: partial on the kind): one arm per kind behind a test of k, so the
-- plan kept for every kind reads only its own index.
DO $do$
DECLARE
  matches record;
BEGIN
  FOR matches IN VALUES
    ('search_names_inside', $m$e.tail LIKE '%' || q || '%' AND NOT (e.tail LIKE q || '%' OR e.tail LIKE '% ' || q || '%')$m$),
    ('search_names_near', 'q <% e.tail')
  LOOP
    EXECUTE format($f$
      CREATE FUNCTION %I(k smallint, q text)
      RETURNS TABLE (id integer, popularity bigint, handle text, public_from timestamptz)
      LANGUAGE sql STABLE AS $body$ %s $body$$f$,
      matches.column1,
      (SELECT string_agg(format(
                'SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
                 WHERE k = %1$s AND e.kind = %1$s AND e.whole AND %2$s', kind, matches.column2),
              ' UNION ALL ')
       FROM generate_series(1, 7) kind));
  END LOOP;
END $do$;

-- The rows of kind k with a name holding q inside a word and no word starting with it (the row's
-- other name, for artists, labels and users, may have one), one per row.
CREATE FUNCTION search_inside_word(k smallint, q text)
RETURNS TABLE (id integer, popularity bigint, handle text) LANGUAGE sql STABLE AS $$
  SELECT e.id, max(e.popularity), max(e.handle) FROM search_names_inside(k, q) e
  WHERE search_entry_visible(k, e.id, e.public_from)
    AND NOT EXISTS (SELECT 1 FROM search_entries s WHERE s.kind = k AND s.id = e.id AND s.tail >= q AND s.tail < q || chr(1114111))
  GROUP BY e.id
$$;

CREATE FUNCTION search_kind_page(k smallint, q text, short boolean, take integer)
RETURNS TABLE (id integer, score numeric, popularity bigint, handle text, total integer)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
DECLARE
  bound CONSTANT integer := 1000;           -- SEARCH_TOTAL_BOUND: totals are exact below it
  range_read CONSTANT integer := 3 * bound; -- tails read before deciding a query is common
  q_end text := q || chr(1114111);          -- tail >= q AND tail < q_end: "starts with q" (sql/0015)
  whole_range boolean := false;
  tails integer;
  starting integer;                         -- rows with a word starting with q
  inside integer := 0;                      -- rows with q inside a word only
  page search_kind_hit[];                   -- the best `take` of each
  inside_page search_kind_hit[];
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

  -- the word starts: the first range_read tails (index-only), one row per id with its best score;
  -- when they hold fewer rows than the bound but fill range_read (names repeating a word), all of them
  LOOP
    SELECT count(*), sum(g.tails),
           array_agg(ROW(g.id, g.score, g.popularity, g.handle)::search_kind_hit ORDER BY g.place) FILTER (WHERE g.place <= take)
      INTO starting, tails, page
    FROM (
      SELECT r.id, max(r.score) AS score, max(r.popularity) AS popularity, max(r.handle) AS handle, count(*) AS tails,
             row_number() OVER (ORDER BY max(r.score) DESC, max(r.popularity) DESC, max(r.handle), r.id) AS place
      FROM (
        SELECT e.id, CASE WHEN e.whole AND e.tail = q THEN 1 WHEN e.whole THEN 0.75 ELSE 0.5 END AS score,
               e.popularity, e.handle
        FROM search_entries e
        WHERE e.kind = k AND e.tail >= q AND e.tail < q_end AND q <> '' AND search_entry_visible(e.kind, e.id, e.public_from)
        LIMIT CASE WHEN whole_range THEN NULL ELSE range_read END) r
      GROUP BY r.id) g;
    EXIT WHEN whole_range OR starting >= bound OR coalesce(tails, 0) < range_read;
    whole_range := true;
  END LOOP;

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
  -- towards the bound; otherwise the best of them fill the page
  IF char_length(q) >= 3 AND starting >= take THEN
    SELECT count(*) INTO inside FROM (SELECT 1 FROM search_inside_word(k, q) LIMIT bound - starting) m;
  ELSIF char_length(q) >= 3 THEN
    SELECT count(*), array_agg(ROW(m.id, 0.25, m.popularity, m.handle)::search_kind_hit ORDER BY m.place)
        FILTER (WHERE m.place <= take - starting)
      INTO inside, inside_page
    FROM (SELECT i.*, row_number() OVER (ORDER BY i.popularity DESC, i.handle, i.id) AS place FROM search_inside_word(k, q) i) m;
  END IF;

  RETURN QUERY
    SELECT x.id, x.score, x.popularity, x.handle, starting + inside
    FROM unnest(coalesce(page, '{}') || coalesce(inside_page, '{}')) x;
END $$;

CREATE FUNCTION search_kind_typos(k smallint, q text, take integer)
RETURNS TABLE (id integer, score numeric, popularity bigint, handle text, total integer)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  RETURN QUERY
    SELECT m.id, 0.25, m.popularity, m.handle, (count(*) OVER ())::integer FROM (
      SELECT e.id, max(e.popularity) AS popularity, max(e.handle) AS handle
      FROM search_names_near(k, q) e
      WHERE search_entry_visible(k, e.id, e.public_from)
      GROUP BY e.id) m
    ORDER BY m.popularity DESC, m.handle, m.id LIMIT take;
END $$;

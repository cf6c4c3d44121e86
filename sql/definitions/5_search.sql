-- Search (docs/search.md): the search table's upkeep, the lookups and the ranking of
-- /v1/search, and the kept name grams that answer one- and two-character name filters.

-- ---- The search table: its rows from the catalogue, kept by row and count triggers ---------

-- The tails of a folded name (fold_name leaves single spaces between words, none at the ends).
CREATE OR REPLACE FUNCTION name_tails(name_key text) RETURNS TABLE(tail text, whole boolean) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_to_string(x.words[i:], ' '), i = 1
  FROM (SELECT string_to_array(name_key, ' ') AS words) x, generate_subscripts(x.words, 1) AS i
$$;

CREATE OR REPLACE VIEW search_sources AS
  SELECT 1::smallint AS kind, s.id, ARRAY[s.search_title] AS name_keys,
         coalesce(s.vidsvc_views, 0)::bigint AS popularity, s.published_at AS public_from, NULL::text AS handle
  FROM songs s WHERE song_is_live(s.published_at, s.deleted_at)
  UNION ALL
  SELECT 2::smallint, a.id, ARRAY[a.search_name, a.search_full_name],
         coalesce((SELECT ac.live_credits FROM artist_counts ac WHERE ac.artist_id = a.id), 0)::bigint,
         CASE WHEN (SELECT c.settled_songs FROM artist_song_counts c WHERE c.artist_id = a.id) > 0
              THEN '-infinity'::timestamptz END,
         NULL
  FROM artists a
  UNION ALL
  SELECT 3::smallint, al.id, ARRAY[al.search_title],
         (SELECT count(*) FROM album_tracks t JOIN songs ts ON ts.id = t.song_id
          WHERE t.album_id = al.id AND song_is_live(ts.published_at, ts.deleted_at)),
         al.published_at, NULL
  FROM albums al WHERE album_is_live(al.published_at)
  UNION ALL
  SELECT 4::smallint, l.id, ARRAY[l.search_title],
         CASE WHEN l.content_type = 'songs'
           THEN (SELECT count(*) FROM curated_list_songs e JOIN songs es ON es.id = e.song_id
                 WHERE e.list_id = l.id AND song_is_live(es.published_at, es.deleted_at))
           ELSE (SELECT count(*) FROM curated_list_albums e JOIN albums ea ON ea.id = e.album_id
                 WHERE e.list_id = l.id AND album_is_live(ea.published_at))
         END,
         l.published_at, NULL
  FROM curated_lists l WHERE curated_list_is_live(l.published_at)
  UNION ALL
  SELECT 5::smallint, lb.id, ARRAY[lb.search_name, lb.search_former_name],
         coalesce((SELECT lc.live_songs FROM label_counts lc WHERE lc.label_id = lb.id), 0)::bigint,
         '-infinity'::timestamptz, NULL
  FROM labels lb
  UNION ALL
  SELECT 6::smallint, g.id, ARRAY[g.search_title],
         coalesce((SELECT gc.live_songs FROM genre_counts gc WHERE gc.genre_id = g.id), 0)::bigint,
         '-infinity'::timestamptz, NULL
  FROM genres g
  UNION ALL
  SELECT 7::smallint, m.id, ARRAY[m.search_name, m.search_username],
         coalesce((SELECT mc.live FROM member_contribution_counts mc WHERE mc.member_id = m.id), 0)::bigint,
         '-infinity'::timestamptz, lower(m.username)
  FROM members m WHERE member_is_public(m.username, m.is_banned);

-- The entries of some rows of one kind, as the table computes them (inner_tail included).
CREATE OR REPLACE FUNCTION search_entry_rows(entry_kind smallint, ids integer[]) RETURNS SETOF search_entries LANGUAGE sql STABLE AS $$
  SELECT DISTINCT ON (s.id, t.tail) s.kind, s.id, t.tail, t.whole, s.popularity, s.public_from, s.handle,
         CASE WHEN t.whole THEN search_inner_words(t.tail) END
  FROM search_sources s
  CROSS JOIN LATERAL unnest(s.name_keys) AS k(name_key)
  CROSS JOIN LATERAL name_tails(k.name_key) t
  WHERE s.kind = entry_kind AND s.id = ANY(ids)
  ORDER BY s.id, t.tail, t.whole DESC
$$;

-- Rewrites some rows' entries, naming the columns it writes.
CREATE OR REPLACE FUNCTION refresh_search_entries(entry_kind smallint, ids integer[]) RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  AS $$
BEGIN
  DELETE FROM search_entries WHERE kind = entry_kind AND id = ANY(ids);
  INSERT INTO search_entries (kind, id, tail, whole, popularity, public_from, handle)
  SELECT e.kind, e.id, e.tail, e.whole, e.popularity, e.public_from, e.handle FROM search_entry_rows(entry_kind, ids) e;
END $$;

-- Refreshes the search popularity of some rows of one kind. The source is read by key too
-- (`s.id = ANY (ids)`, which each arm of search_sources takes to its primary key): named on
-- search_entries only, the generic plan would join every row of the kind's source (for artists
-- 250k rows, ~1 s at 1M songs) on every credit written.
CREATE OR REPLACE FUNCTION refresh_search_popularity(entry_kind smallint, ids integer[]) RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  AS $$
BEGIN
  UPDATE search_entries e SET popularity = s.popularity, public_from = s.public_from
  FROM search_sources s
  WHERE e.kind = entry_kind AND e.id = ANY(ids) AND s.kind = entry_kind AND s.id = ANY(ids) AND s.id = e.id
    AND (e.popularity, e.public_from) IS DISTINCT FROM (s.popularity, s.public_from);
END $$;

CREATE OR REPLACE FUNCTION search_entries_rows_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM refresh_search_entries(TG_ARGV[0]::smallint, ARRAY(SELECT n.id FROM new_rows n));
  ELSE
    PERFORM refresh_search_entries(TG_ARGV[0]::smallint, ARRAY(SELECT o.id FROM old_rows o));
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER albums_search_delete AFTER DELETE ON albums REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('3');
CREATE OR REPLACE TRIGGER albums_search_insert AFTER INSERT ON albums REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('3');
CREATE OR REPLACE TRIGGER artists_search_delete AFTER DELETE ON artists REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('2');
CREATE OR REPLACE TRIGGER artists_search_insert AFTER INSERT ON artists REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('2');
CREATE OR REPLACE TRIGGER curated_lists_search_delete AFTER DELETE ON curated_lists REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('4');
CREATE OR REPLACE TRIGGER curated_lists_search_insert AFTER INSERT ON curated_lists REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('4');
CREATE OR REPLACE TRIGGER genres_search_delete AFTER DELETE ON genres REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('6');
CREATE OR REPLACE TRIGGER genres_search_insert AFTER INSERT ON genres REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('6');
CREATE OR REPLACE TRIGGER labels_search_delete AFTER DELETE ON labels REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('5');
CREATE OR REPLACE TRIGGER labels_search_insert AFTER INSERT ON labels REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('5');
CREATE OR REPLACE TRIGGER members_search_delete AFTER DELETE ON members REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('7');
CREATE OR REPLACE TRIGGER members_search_insert AFTER INSERT ON members REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('7');
CREATE OR REPLACE TRIGGER songs_search_delete AFTER DELETE ON songs REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('1');
CREATE OR REPLACE TRIGGER songs_search_insert AFTER INSERT ON songs REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('1');

-- Triggers. Searchable rows: inserts and deletes per statement (an import writes many rows at
-- once), updates per row (only a name, visibility or popularity column moves them; PostgreSQL
-- allows no column list with transition tables). The seed switches them off and calls
-- recount_search_entries once. TG_ARGV[0] is the kind.
CREATE OR REPLACE FUNCTION search_entries_refresh_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  PERFORM refresh_search_entries(TG_ARGV[0]::smallint, ARRAY[OLD.id, NEW.id]);
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER albums_search_update AFTER UPDATE OF id, title, published_at ON albums FOR EACH ROW EXECUTE FUNCTION search_entries_refresh_trigger('3');
CREATE OR REPLACE TRIGGER artists_search_update AFTER UPDATE OF id, name, prefix_title ON artists FOR EACH ROW EXECUTE FUNCTION search_entries_refresh_trigger('2');
CREATE OR REPLACE TRIGGER curated_lists_search_update AFTER UPDATE OF id, title, published_at, content_type ON curated_lists FOR EACH ROW EXECUTE FUNCTION search_entries_refresh_trigger('4');
CREATE OR REPLACE TRIGGER genres_search_update AFTER UPDATE OF id, title ON genres FOR EACH ROW EXECUTE FUNCTION search_entries_refresh_trigger('6');
CREATE OR REPLACE TRIGGER labels_search_update AFTER UPDATE OF id, name, formerly_known_as ON labels FOR EACH ROW EXECUTE FUNCTION search_entries_refresh_trigger('5');
CREATE OR REPLACE TRIGGER members_search_update AFTER UPDATE OF id, name, username, is_banned ON members FOR EACH ROW EXECUTE FUNCTION search_entries_refresh_trigger('7');
CREATE OR REPLACE TRIGGER songs_search_update AFTER UPDATE OF id, title, published_at, deleted_at, vidsvc_views ON songs FOR EACH ROW EXECUTE FUNCTION search_entries_refresh_trigger('1');

-- Album and list popularity: their tracks and entries, and those rows becoming live or not.
CREATE OR REPLACE FUNCTION search_links_popularity_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  IF TG_TABLE_NAME = 'album_tracks' THEN
    PERFORM refresh_search_popularity(3::smallint, ARRAY[(to_jsonb(OLD)->>'album_id')::int, (to_jsonb(NEW)->>'album_id')::int]);
  ELSIF TG_TABLE_NAME IN ('curated_list_songs', 'curated_list_albums') THEN
    PERFORM refresh_search_popularity(4::smallint, ARRAY[(to_jsonb(OLD)->>'list_id')::int, (to_jsonb(NEW)->>'list_id')::int]);
  ELSIF TG_TABLE_NAME = 'songs' THEN
    PERFORM refresh_search_popularity(3::smallint, ARRAY(SELECT t.album_id FROM album_tracks t WHERE t.song_id = NEW.id));
    PERFORM refresh_search_popularity(4::smallint, ARRAY(SELECT e.list_id FROM curated_list_songs e WHERE e.song_id = NEW.id));
  ELSIF TG_TABLE_NAME = 'albums' THEN
    PERFORM refresh_search_popularity(4::smallint, ARRAY(SELECT e.list_id FROM curated_list_albums e WHERE e.album_id = NEW.id));
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER album_tracks_search_popularity AFTER INSERT OR DELETE OR UPDATE ON album_tracks FOR EACH ROW EXECUTE FUNCTION search_links_popularity_trigger();
CREATE OR REPLACE TRIGGER albums_search_popularity AFTER UPDATE OF published_at ON albums FOR EACH ROW WHEN ((album_is_live(old.published_at) <> album_is_live(new.published_at))) EXECUTE FUNCTION search_links_popularity_trigger();
CREATE OR REPLACE TRIGGER curated_list_albums_search_popularity AFTER INSERT OR DELETE OR UPDATE ON curated_list_albums FOR EACH ROW EXECUTE FUNCTION search_links_popularity_trigger();
CREATE OR REPLACE TRIGGER curated_list_songs_search_popularity AFTER INSERT OR DELETE OR UPDATE ON curated_list_songs FOR EACH ROW EXECUTE FUNCTION search_links_popularity_trigger();
CREATE OR REPLACE TRIGGER songs_search_popularity AFTER UPDATE OF published_at, deleted_at ON songs FOR EACH ROW WHEN ((song_is_live(old.published_at, old.deleted_at) <> song_is_live(new.published_at, new.deleted_at))) EXECUTE FUNCTION search_links_popularity_trigger();

-- Kept counts (statement triggers: the recounts rewrite whole tables): TG_ARGV[0] is the kind,
-- TG_ARGV[1] the count table's id column.
CREATE OR REPLACE FUNCTION search_counts_popularity_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  ids integer[];
BEGIN
  EXECUTE format('SELECT array_agg(%I) FROM %I', TG_ARGV[1], CASE WHEN TG_OP = 'DELETE' THEN 'old_rows' ELSE 'new_rows' END) INTO ids;
  PERFORM refresh_search_popularity(TG_ARGV[0]::smallint, ids);
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER artist_counts_search_popularity_delete AFTER DELETE ON artist_counts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('2', 'artist_id');
CREATE OR REPLACE TRIGGER artist_counts_search_popularity_insert AFTER INSERT ON artist_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('2', 'artist_id');
CREATE OR REPLACE TRIGGER artist_counts_search_popularity_update AFTER UPDATE ON artist_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('2', 'artist_id');
CREATE OR REPLACE TRIGGER artist_song_counts_search_visible_delete AFTER DELETE ON artist_song_counts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('2', 'artist_id');
CREATE OR REPLACE TRIGGER artist_song_counts_search_visible_insert AFTER INSERT ON artist_song_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('2', 'artist_id');
CREATE OR REPLACE TRIGGER artist_song_counts_search_visible_update AFTER UPDATE ON artist_song_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('2', 'artist_id');
CREATE OR REPLACE TRIGGER genre_counts_search_popularity_delete AFTER DELETE ON genre_counts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('6', 'genre_id');
CREATE OR REPLACE TRIGGER genre_counts_search_popularity_insert AFTER INSERT ON genre_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('6', 'genre_id');
CREATE OR REPLACE TRIGGER genre_counts_search_popularity_update AFTER UPDATE ON genre_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('6', 'genre_id');
CREATE OR REPLACE TRIGGER label_counts_search_popularity_delete AFTER DELETE ON label_counts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('5', 'label_id');
CREATE OR REPLACE TRIGGER label_counts_search_popularity_insert AFTER INSERT ON label_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('5', 'label_id');
CREATE OR REPLACE TRIGGER label_counts_search_popularity_update AFTER UPDATE ON label_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('5', 'label_id');
CREATE OR REPLACE TRIGGER member_contribution_counts_search_popularity_delete AFTER DELETE ON member_contribution_counts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('7', 'member_id');
CREATE OR REPLACE TRIGGER member_contribution_counts_search_popularity_insert AFTER INSERT ON member_contribution_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('7', 'member_id');
CREATE OR REPLACE TRIGGER member_contribution_counts_search_popularity_update AFTER UPDATE ON member_contribution_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('7', 'member_id');

-- Refills the search table from scratch. Its indexes, as sql/schema/4_search.sql defines them, are
-- read back, dropped, and built again after the rows: faster than keeping them up to date row by
-- row during the refill.
CREATE OR REPLACE FUNCTION recount_search_entries() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  k smallint;
  definitions text[];
  statement text;
BEGIN
  SELECT array_agg(pg_get_indexdef(x.indexrelid)) INTO definitions
  FROM pg_index x WHERE x.indrelid = 'search_entries'::regclass;
  FOR statement IN SELECT format('DROP INDEX %s', x.indexrelid::regclass) FROM pg_index x WHERE x.indrelid = 'search_entries'::regclass LOOP
    EXECUTE statement;
  END LOOP;
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
  FOREACH statement IN ARRAY coalesce(definitions, '{}') LOOP
    EXECUTE statement;
  END LOOP;
  ANALYZE search_entries;
END $$;

-- ---- Ranking a kind: word starts, inside a word, typos ---------------------------------------

-- How well a folded name matches a folded query (D8): 1 exact, 0.75 prefix, 0.5 a word of the
-- name starts with the query, 0.25 the query is inside a word, or is close to a word of the name
-- (trigram word similarity >= 0.6; `fuzzy_query` is null when the query is too short for that),
-- 0 no match. STABLE: `<%` reads pg_trgm.word_similarity_threshold (default 0.6). Inlined by the
-- planner; the WHERE clauses that use the indexes sit beside it.
CREATE OR REPLACE FUNCTION search_score(name_key text, query text, fuzzy_query text) RETURNS numeric LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN name_key IS NULL OR query = '' THEN 0
    WHEN name_key = query THEN 1
    WHEN name_key LIKE query || '%' THEN 0.75
    WHEN name_key LIKE '% ' || query || '%' THEN 0.5
    WHEN name_key LIKE '%' || query || '%' THEN 0.25
    WHEN fuzzy_query <> '' AND fuzzy_query <% name_key THEN 0.25
    ELSE 0
  END::numeric
$$;

-- A query starting inside a word, as search_inner_words writes the names that hold it there: its
-- first word as typed (it starts inside a word), its later words marked ("ta bia" -> "ta b#ia").
CREATE OR REPLACE FUNCTION search_inner_query(q text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN regexp_replace(q, ' ([^ ])', ' \1#', 'g');

-- The whole names of kind k holding q inside a word (not at a word start of the same name), by
-- the kind's inner trigram index: one arm per kind, each on its own partial index. Callers write
-- the kind in (search_inside_candidates), so a statement's generic plan holds one arm.
CREATE OR REPLACE FUNCTION search_names_inside(k smallint, q text) RETURNS TABLE(id integer, popularity bigint, handle text, public_from timestamp with time zone) LANGUAGE sql STABLE AS $$
  SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
  WHERE k = 1 AND e.kind = 1 AND e.whole
    AND search_inner_joined(e.inner_tail) LIKE (SELECT '%' || search_inner_joined(search_inner_query(q)) || '%')
    AND e.inner_tail LIKE (SELECT '%' || search_inner_query(q) || '%')
    AND NOT (starts_with(e.tail, q) OR strpos(e.tail, ' ' || q) > 0)
  UNION ALL
  SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
  WHERE k = 2 AND e.kind = 2 AND e.whole
    AND search_inner_joined(e.inner_tail) LIKE (SELECT '%' || search_inner_joined(search_inner_query(q)) || '%')
    AND e.inner_tail LIKE (SELECT '%' || search_inner_query(q) || '%')
    AND NOT (starts_with(e.tail, q) OR strpos(e.tail, ' ' || q) > 0)
  UNION ALL
  SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
  WHERE k = 3 AND e.kind = 3 AND e.whole
    AND search_inner_joined(e.inner_tail) LIKE (SELECT '%' || search_inner_joined(search_inner_query(q)) || '%')
    AND e.inner_tail LIKE (SELECT '%' || search_inner_query(q) || '%')
    AND NOT (starts_with(e.tail, q) OR strpos(e.tail, ' ' || q) > 0)
  UNION ALL
  SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
  WHERE k = 4 AND e.kind = 4 AND e.whole
    AND search_inner_joined(e.inner_tail) LIKE (SELECT '%' || search_inner_joined(search_inner_query(q)) || '%')
    AND e.inner_tail LIKE (SELECT '%' || search_inner_query(q) || '%')
    AND NOT (starts_with(e.tail, q) OR strpos(e.tail, ' ' || q) > 0)
  UNION ALL
  SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
  WHERE k = 5 AND e.kind = 5 AND e.whole
    AND search_inner_joined(e.inner_tail) LIKE (SELECT '%' || search_inner_joined(search_inner_query(q)) || '%')
    AND e.inner_tail LIKE (SELECT '%' || search_inner_query(q) || '%')
    AND NOT (starts_with(e.tail, q) OR strpos(e.tail, ' ' || q) > 0)
  UNION ALL
  SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
  WHERE k = 6 AND e.kind = 6 AND e.whole
    AND search_inner_joined(e.inner_tail) LIKE (SELECT '%' || search_inner_joined(search_inner_query(q)) || '%')
    AND e.inner_tail LIKE (SELECT '%' || search_inner_query(q) || '%')
    AND NOT (starts_with(e.tail, q) OR strpos(e.tail, ' ' || q) > 0)
  UNION ALL
  SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
  WHERE k = 7 AND e.kind = 7 AND e.whole
    AND search_inner_joined(e.inner_tail) LIKE (SELECT '%' || search_inner_joined(search_inner_query(q)) || '%')
    AND e.inner_tail LIKE (SELECT '%' || search_inner_query(q) || '%')
    AND NOT (starts_with(e.tail, q) OR strpos(e.tail, ' ' || q) > 0)
$$;

-- The whole names of kind k within a typo of q (trigram word similarity), one arm per kind as above.
CREATE OR REPLACE FUNCTION search_names_near(k smallint, q text) RETURNS TABLE(id integer, popularity bigint, handle text, public_from timestamp with time zone) LANGUAGE sql STABLE AS $$
  SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
  WHERE k = 1 AND e.kind = 1 AND e.whole AND q <% e.tail
  UNION ALL
  SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
  WHERE k = 2 AND e.kind = 2 AND e.whole AND q <% e.tail
  UNION ALL
  SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
  WHERE k = 3 AND e.kind = 3 AND e.whole AND q <% e.tail
  UNION ALL
  SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
  WHERE k = 4 AND e.kind = 4 AND e.whole AND q <% e.tail
  UNION ALL
  SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
  WHERE k = 5 AND e.kind = 5 AND e.whole AND q <% e.tail
  UNION ALL
  SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
  WHERE k = 6 AND e.kind = 6 AND e.whole AND q <% e.tail
  UNION ALL
  SELECT e.id, e.popularity, e.handle, e.public_from FROM search_entries e
  WHERE k = 7 AND e.kind = 7 AND e.whole AND q <% e.tail
$$;

CREATE OR REPLACE FUNCTION search_inside_entries(k smallint, q text) RETURNS TABLE(id integer, popularity bigint, handle text) LANGUAGE sql STABLE AS $$
  SELECT e.id, e.popularity, e.handle FROM search_names_inside(k, q) e
  WHERE search_entry_visible(k, e.id, e.public_from)
    AND NOT EXISTS (SELECT 1 FROM search_entries s
                    WHERE s.kind = k AND s.id = e.id AND (s.tail >= q AND s.tail < q || chr(1114111)) IS TRUE)
$$;

CREATE OR REPLACE FUNCTION search_inside_popular(k smallint, q text, take integer) RETURNS TABLE(id integer, popularity bigint, handle text) LANGUAGE sql STABLE AS $$
  SELECT m.id, max(m.popularity), max(m.handle) FROM (
    SELECT e.id, e.popularity, e.handle FROM search_entries e
    WHERE e.kind = k AND e.whole
      AND (e.inner_tail LIKE (SELECT '%' || search_inner_query(q) || '%')) IS TRUE
      AND NOT (starts_with(e.tail, q) OR strpos(e.tail, ' ' || q) > 0)
      AND search_entry_visible(k, e.id, e.public_from)
      AND NOT EXISTS (SELECT 1 FROM search_entries s
                      WHERE s.kind = k AND s.id = e.id AND (s.tail >= q AND s.tail < q || chr(1114111)) IS TRUE)
    ORDER BY e.popularity DESC, e.handle, e.id
    LIMIT 2 * take) m
  GROUP BY m.id
  ORDER BY 2 DESC, 3, 1
  LIMIT take
$$;

CREATE OR REPLACE FUNCTION search_inside_candidates(k smallint, q text, most integer) RETURNS TABLE(id integer, popularity bigint, handle text) LANGUAGE plpgsql STABLE
  SET plan_cache_mode = force_generic_plan
  AS $$
    #variable_conflict use_column
    BEGIN
      IF k = 1 THEN
        RETURN QUERY SELECT i.id, i.popularity, i.handle FROM search_inside_entries(1::smallint, q) i LIMIT most;
      END IF;
      IF k = 2 THEN
        RETURN QUERY SELECT i.id, i.popularity, i.handle FROM search_inside_entries(2::smallint, q) i LIMIT most;
      END IF;
      IF k = 3 THEN
        RETURN QUERY SELECT i.id, i.popularity, i.handle FROM search_inside_entries(3::smallint, q) i LIMIT most;
      END IF;
      IF k = 4 THEN
        RETURN QUERY SELECT i.id, i.popularity, i.handle FROM search_inside_entries(4::smallint, q) i LIMIT most;
      END IF;
      IF k = 5 THEN
        RETURN QUERY SELECT i.id, i.popularity, i.handle FROM search_inside_entries(5::smallint, q) i LIMIT most;
      END IF;
      IF k = 6 THEN
        RETURN QUERY SELECT i.id, i.popularity, i.handle FROM search_inside_entries(6::smallint, q) i LIMIT most;
      END IF;
      IF k = 7 THEN
        RETURN QUERY SELECT i.id, i.popularity, i.handle FROM search_inside_entries(7::smallint, q) i LIMIT most;
      END IF;
    END $$;

CREATE OR REPLACE FUNCTION search_kind_page(k smallint, q text, short boolean, take integer, bound integer) RETURNS TABLE(id integer, score numeric, popularity bigint, handle text, total integer) LANGUAGE plpgsql STABLE
  SET plan_cache_mode = force_generic_plan
  AS $$
DECLARE
  range_read CONSTANT integer := 3 * bound; -- tails read before deciding a query is common
  q_end text := q || chr(1114111);          -- tail >= q AND tail < q_end: "starts with q"
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
      FROM search_inside_candidates(k, q, 2 * (bound - starting)) r
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

CREATE OR REPLACE FUNCTION search_kind_typos(k smallint, q text, take integer) RETURNS TABLE(id integer, score numeric, popularity bigint, handle text, total integer) LANGUAGE plpgsql STABLE
  SET plan_cache_mode = force_generic_plan
  AS $$
    #variable_conflict use_column
    BEGIN
      IF k = 1 THEN
        RETURN QUERY
          SELECT m.id, 0.25, m.popularity, m.handle, (count(*) OVER ())::integer FROM (
            SELECT e.id, max(e.popularity) AS popularity, max(e.handle) AS handle
            FROM search_names_near(1::smallint, q) e
            WHERE search_entry_visible(1::smallint, e.id, e.public_from)
            GROUP BY e.id) m
          ORDER BY m.popularity DESC, m.handle, m.id LIMIT take;
      END IF;
      IF k = 2 THEN
        RETURN QUERY
          SELECT m.id, 0.25, m.popularity, m.handle, (count(*) OVER ())::integer FROM (
            SELECT e.id, max(e.popularity) AS popularity, max(e.handle) AS handle
            FROM search_names_near(2::smallint, q) e
            WHERE search_entry_visible(2::smallint, e.id, e.public_from)
            GROUP BY e.id) m
          ORDER BY m.popularity DESC, m.handle, m.id LIMIT take;
      END IF;
      IF k = 3 THEN
        RETURN QUERY
          SELECT m.id, 0.25, m.popularity, m.handle, (count(*) OVER ())::integer FROM (
            SELECT e.id, max(e.popularity) AS popularity, max(e.handle) AS handle
            FROM search_names_near(3::smallint, q) e
            WHERE search_entry_visible(3::smallint, e.id, e.public_from)
            GROUP BY e.id) m
          ORDER BY m.popularity DESC, m.handle, m.id LIMIT take;
      END IF;
      IF k = 4 THEN
        RETURN QUERY
          SELECT m.id, 0.25, m.popularity, m.handle, (count(*) OVER ())::integer FROM (
            SELECT e.id, max(e.popularity) AS popularity, max(e.handle) AS handle
            FROM search_names_near(4::smallint, q) e
            WHERE search_entry_visible(4::smallint, e.id, e.public_from)
            GROUP BY e.id) m
          ORDER BY m.popularity DESC, m.handle, m.id LIMIT take;
      END IF;
      IF k = 5 THEN
        RETURN QUERY
          SELECT m.id, 0.25, m.popularity, m.handle, (count(*) OVER ())::integer FROM (
            SELECT e.id, max(e.popularity) AS popularity, max(e.handle) AS handle
            FROM search_names_near(5::smallint, q) e
            WHERE search_entry_visible(5::smallint, e.id, e.public_from)
            GROUP BY e.id) m
          ORDER BY m.popularity DESC, m.handle, m.id LIMIT take;
      END IF;
      IF k = 6 THEN
        RETURN QUERY
          SELECT m.id, 0.25, m.popularity, m.handle, (count(*) OVER ())::integer FROM (
            SELECT e.id, max(e.popularity) AS popularity, max(e.handle) AS handle
            FROM search_names_near(6::smallint, q) e
            WHERE search_entry_visible(6::smallint, e.id, e.public_from)
            GROUP BY e.id) m
          ORDER BY m.popularity DESC, m.handle, m.id LIMIT take;
      END IF;
      IF k = 7 THEN
        RETURN QUERY
          SELECT m.id, 0.25, m.popularity, m.handle, (count(*) OVER ())::integer FROM (
            SELECT e.id, max(e.popularity) AS popularity, max(e.handle) AS handle
            FROM search_names_near(7::smallint, q) e
            WHERE search_entry_visible(7::smallint, e.id, e.public_from)
            GROUP BY e.id) m
          ORDER BY m.popularity DESC, m.handle, m.id LIMIT take;
      END IF;
    END $$;

-- ---- Name filters of lists: folded names, kept grams of one and two characters -------------

-- An artist's folded names contain the folded query `q`; NULL: every artist; '' none, as
-- src/Domain/NameFilter.ts (every name contains the empty text). One expression: inlined.
CREATE OR REPLACE FUNCTION folded_names_contain(q text, search_name text, search_full_name text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT q IS NULL OR (q <> '' AND (strpos(search_name, q) > 0 OR strpos(search_full_name, q) > 0))
$$;

-- Every distinct text of one or two characters in either name (NULL names have none).
CREATE OR REPLACE FUNCTION name_grams(search_name text, search_full_name text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT substr(n, i, w)), '{}')
  FROM unnest(ARRAY[search_name, search_full_name]) n
  CROSS JOIN generate_series(1, 2) w
  CROSS JOIN generate_series(1, char_length(n) - w + 1) i
$$;

-- Artists (id, folded names) leaving the kept names and joining them: their grams' pairs moved,
-- and the counts by the pairs actually moved (a rename keeps the grams both names have).
CREATE OR REPLACE FUNCTION move_artist_name_grams(gone_ids integer[], gone_names text[], gone_full_names text[], came_ids integer[], came_names text[], came_full_names text[]) RETURNS void LANGUAGE sql AS $$
  WITH gone AS (
    SELECT u.id, g.gram FROM unnest(gone_ids, gone_names, gone_full_names) u(id, n, f)
    CROSS JOIN unnest(name_grams(u.n, u.f)) g(gram)),
  came AS (
    SELECT u.id, g.gram FROM unnest(came_ids, came_names, came_full_names) u(id, n, f)
    CROSS JOIN unnest(name_grams(u.n, u.f)) g(gram)),
  dropped AS (
    DELETE FROM artist_name_grams t USING (SELECT * FROM gone EXCEPT SELECT * FROM came) x
    WHERE t.gram = x.gram AND t.artist_id = x.id
    RETURNING t.gram, -1 AS moved),
  added AS (
    INSERT INTO artist_name_grams (gram, artist_id)
    SELECT x.gram, x.id FROM (SELECT * FROM came EXCEPT SELECT * FROM gone) x
    RETURNING gram, 1 AS moved)
  INSERT INTO artist_name_gram_counts AS c (gram, artists)
  SELECT m.gram, sum(m.moved) FROM (SELECT * FROM dropped UNION ALL SELECT * FROM added) m GROUP BY m.gram
  ON CONFLICT (gram) DO UPDATE SET artists = c.artists + excluded.artists;
$$;

CREATE OR REPLACE FUNCTION artist_name_grams_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  gone_ids integer[]; gone_names text[]; gone_full_names text[];
  came_ids integer[]; came_names text[]; came_full_names text[];
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM refill_artist_name_grams();
    RETURN NULL;
  ELSIF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.artist_id), array_agg(n.search_name), array_agg(n.search_full_name)
      INTO came_ids, came_names, came_full_names
    FROM new_rows n WHERE n.settled_songs > 0;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.artist_id), array_agg(o.search_name), array_agg(o.search_full_name)
      INTO gone_ids, gone_names, gone_full_names
    FROM old_rows o WHERE o.settled_songs > 0;
  ELSE
    -- only the rows whose kept names changed: in or out of the set, or renamed
    SELECT array_agg(o.artist_id), array_agg(o.search_name), array_agg(o.search_full_name)
      INTO gone_ids, gone_names, gone_full_names
    FROM old_rows o JOIN new_rows n ON n.artist_id = o.artist_id
    WHERE o.settled_songs > 0 AND (n.settled_songs <= 0
      OR (n.search_name, n.search_full_name) IS DISTINCT FROM (o.search_name, o.search_full_name));
    SELECT array_agg(n.artist_id), array_agg(n.search_name), array_agg(n.search_full_name)
      INTO came_ids, came_names, came_full_names
    FROM old_rows o JOIN new_rows n ON n.artist_id = o.artist_id
    WHERE n.settled_songs > 0 AND (o.settled_songs <= 0
      OR (n.search_name, n.search_full_name) IS DISTINCT FROM (o.search_name, o.search_full_name));
  END IF;
  IF coalesce(cardinality(gone_ids), 0) + coalesce(cardinality(came_ids), 0) > 10000 THEN
    PERFORM refill_artist_name_grams();
  ELSIF gone_ids IS NOT NULL OR came_ids IS NOT NULL THEN
    PERFORM move_artist_name_grams(gone_ids, gone_names, gone_full_names, came_ids, came_names, came_full_names);
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER artist_song_counts_name_grams_delete AFTER DELETE ON artist_song_counts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_name_grams_trigger();
CREATE OR REPLACE TRIGGER artist_song_counts_name_grams_insert AFTER INSERT ON artist_song_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_name_grams_trigger();
CREATE OR REPLACE TRIGGER artist_song_counts_name_grams_truncate AFTER TRUNCATE ON artist_song_counts FOR EACH STATEMENT EXECUTE FUNCTION artist_name_grams_trigger();
CREATE OR REPLACE TRIGGER artist_song_counts_name_grams_update AFTER UPDATE ON artist_song_counts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_name_grams_trigger();

-- Both tables written anew from the kept names, for a statement that moves many of them (a
-- recount, the seed's bulk load): in key order, ~25 s at 1M songs, where moving 245k artists pair
-- by pair took minutes.
CREATE OR REPLACE FUNCTION refill_artist_name_grams() RETURNS void LANGUAGE sql AS $$
  TRUNCATE artist_name_grams, artist_name_gram_counts;
  INSERT INTO artist_name_grams (gram, artist_id)
  SELECT g.gram, ac.artist_id FROM artist_song_counts ac CROSS JOIN unnest(name_grams(ac.search_name, ac.search_full_name)) g(gram)
  WHERE ac.settled_songs > 0
  ORDER BY 1, 2;
  INSERT INTO artist_name_gram_counts (gram, artists) SELECT gram, count(*) FROM artist_name_grams GROUP BY gram;
$$;

-- The artists with a settled song whose folded names contain the folded `q`: by its kept gram
-- for one or two characters, by the trigram indexes above for more (the query folded
-- once: an init plan each).
CREATE OR REPLACE FUNCTION artist_kept_name_matches(q text) RETURNS TABLE(artist_id integer) LANGUAGE sql STABLE AS $$
  SELECT g.artist_id FROM artist_name_grams g
  WHERE g.gram = (SELECT fold_name(q)) AND char_length((SELECT fold_name(q))) BETWEEN 1 AND 2
  UNION ALL
  SELECT ac.artist_id FROM artist_song_counts ac
  WHERE ac.settled_songs > 0 AND char_length((SELECT fold_name(q))) > 2
    AND (ac.search_name LIKE '%' || (SELECT fold_name(q)) || '%' OR ac.search_full_name LIKE '%' || (SELECT fold_name(q)) || '%')
$$;

CREATE OR REPLACE FUNCTION artist_kept_name_count(q text, up_to bigint) RETURNS integer LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN (
  SELECT CASE
      WHEN f.folded = '' THEN 0
      WHEN char_length(f.folded) <= 2 THEN coalesce((SELECT c.artists FROM artist_name_gram_counts c WHERE c.gram = f.folded), 0)
      ELSE (SELECT count(*) FROM (SELECT 1 FROM artist_kept_name_matches(q) LIMIT up_to) m)::integer
    END
  FROM (SELECT fold_name(q) AS folded) f);
END $$;

CREATE OR REPLACE FUNCTION artist_name_query(q text) RETURNS TABLE(kept_matches integer, kept_artists integer) LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN char_length(f.folded) > 2 AND 60 * b.fewest::bigint * b.fewest <= t.with_settled THEN b.fewest
              ELSE artist_kept_name_count(q, t.with_settled / 30 + 1) END,
    t.with_settled::integer
  FROM artist_song_totals t
  CROSS JOIN (SELECT fold_name(q) AS folded) f
  CROSS JOIN LATERAL (
    SELECT min(coalesce(c.artists, 0)) AS fewest
    FROM generate_series(1, char_length(f.folded) - 1) i
    LEFT JOIN artist_name_gram_counts c ON c.gram = substr(f.folded, i, 2)) b
$$;

-- Members (id, folded names) leaving the public ones and joining them: their grams' pairs moved,
-- and the counts by the pairs actually moved (a rename keeps the grams both names have).
CREATE OR REPLACE FUNCTION move_member_name_grams(gone_ids integer[], gone_names text[], gone_usernames text[], came_ids integer[], came_names text[], came_usernames text[]) RETURNS void LANGUAGE sql AS $$
  WITH gone AS (
    SELECT u.id, g.gram FROM unnest(gone_ids, gone_names, gone_usernames) u(id, n, f)
    CROSS JOIN unnest(name_grams(u.n, u.f)) g(gram)),
  came AS (
    SELECT u.id, g.gram FROM unnest(came_ids, came_names, came_usernames) u(id, n, f)
    CROSS JOIN unnest(name_grams(u.n, u.f)) g(gram)),
  dropped AS (
    DELETE FROM member_name_grams t USING (SELECT * FROM gone EXCEPT SELECT * FROM came) x
    WHERE t.gram = x.gram AND t.member_id = x.id
    RETURNING t.gram, -1 AS moved),
  added AS (
    INSERT INTO member_name_grams (gram, member_id)
    SELECT x.gram, x.id FROM (SELECT * FROM came EXCEPT SELECT * FROM gone) x
    RETURNING gram, 1 AS moved)
  INSERT INTO member_name_gram_counts AS c (gram, members)
  SELECT m.gram, sum(m.moved) FROM (SELECT * FROM dropped UNION ALL SELECT * FROM added) m GROUP BY m.gram
  ON CONFLICT (gram) DO UPDATE SET members = c.members + excluded.members;
$$;

CREATE OR REPLACE FUNCTION member_name_grams_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  gone_ids integer[]; gone_names text[]; gone_usernames text[];
  came_ids integer[]; came_names text[]; came_usernames text[];
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM refill_member_name_grams();
    RETURN NULL;
  ELSIF TG_OP = 'INSERT' THEN
    SELECT array_agg(n.id), array_agg(n.search_name), array_agg(n.search_username)
      INTO came_ids, came_names, came_usernames
    FROM new_rows n WHERE member_is_public(n.username, n.is_banned);
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.id), array_agg(o.search_name), array_agg(o.search_username)
      INTO gone_ids, gone_names, gone_usernames
    FROM old_rows o WHERE member_is_public(o.username, o.is_banned);
  ELSE
    -- only the rows whose public names changed: public or not, or renamed
    SELECT array_agg(o.id), array_agg(o.search_name), array_agg(o.search_username)
      INTO gone_ids, gone_names, gone_usernames
    FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE member_is_public(o.username, o.is_banned) AND (NOT member_is_public(n.username, n.is_banned)
      OR (n.search_name, n.search_username) IS DISTINCT FROM (o.search_name, o.search_username));
    SELECT array_agg(n.id), array_agg(n.search_name), array_agg(n.search_username)
      INTO came_ids, came_names, came_usernames
    FROM old_rows o JOIN new_rows n ON n.id = o.id
    WHERE member_is_public(n.username, n.is_banned) AND (NOT member_is_public(o.username, o.is_banned)
      OR (n.search_name, n.search_username) IS DISTINCT FROM (o.search_name, o.search_username));
  END IF;
  IF coalesce(cardinality(gone_ids), 0) + coalesce(cardinality(came_ids), 0) > 10000 THEN
    PERFORM refill_member_name_grams();
  ELSIF gone_ids IS NOT NULL OR came_ids IS NOT NULL THEN
    PERFORM move_member_name_grams(gone_ids, gone_names, gone_usernames, came_ids, came_names, came_usernames);
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER members_name_grams_delete AFTER DELETE ON members REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION member_name_grams_trigger();
CREATE OR REPLACE TRIGGER members_name_grams_insert AFTER INSERT ON members REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_name_grams_trigger();
CREATE OR REPLACE TRIGGER members_name_grams_truncate AFTER TRUNCATE ON members FOR EACH STATEMENT EXECUTE FUNCTION member_name_grams_trigger();
CREATE OR REPLACE TRIGGER members_name_grams_update AFTER UPDATE ON members REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION member_name_grams_trigger();

-- Both tables written anew from the public members, in key order (the seed's last step, TRUNCATE,
-- and a statement moving more than 10,000 members).
CREATE OR REPLACE FUNCTION refill_member_name_grams() RETURNS void LANGUAGE sql AS $$
  TRUNCATE member_name_grams, member_name_gram_counts;
  INSERT INTO member_name_grams (gram, member_id)
  SELECT g.gram, m.id FROM members m CROSS JOIN unnest(name_grams(m.search_name, m.search_username)) g(gram)
  WHERE member_is_public(m.username, m.is_banned)
  ORDER BY 1, 2;
  INSERT INTO member_name_gram_counts (gram, members) SELECT gram, count(*) FROM member_name_grams GROUP BY gram;
$$;

-- The public members whose folded name or username contains the folded `q`, by the kept grams: as
-- (member's handle) for src/Domain/SteeredPage.ts's key sets, and how many (NULL when the folded q
-- is not a gram: empty, or folded to more than two characters).
-- (each handle a probe by primary key: a join was planned as a hash over every member, 10 ms at 1M)
CREATE OR REPLACE FUNCTION short_member_query_handles(q text) RETURNS TABLE(handle text) LANGUAGE sql STABLE AS $$
  SELECT (SELECT lower(m.username) FROM members m WHERE m.id = g.member_id) FROM member_name_grams g WHERE g.gram = fold_name(q)
$$;

CREATE OR REPLACE FUNCTION short_member_query_count(q text) RETURNS integer LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN (
  SELECT CASE WHEN char_length(f) BETWEEN 1 AND 2
    THEN coalesce((SELECT c.members FROM member_name_gram_counts c WHERE c.gram = f), 0) END
  FROM fold_name(q) f);
END $$;

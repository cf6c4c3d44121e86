-- Three functions that searches (and genre and label pages) call, made cheap to call.
--
-- search_inside_entries and search_inside_popular (sql/0052) drop a name that holds the query
-- inside a word when its row has a word starting with it elsewhere. The generic plan tested that
-- as an anti join that walks the query's whole word-start range of the kind for every inside
-- match (the id as a join filter): 342 matches x 1,027 tails for `q=rindu` at 100k songs, ~10 ms
-- of a search's ~14. The range test is now no index condition (IS TRUE), so the probe is by the
-- row's own entries (search_entries_id_idx): ~1 ms. Same rows.
--
-- search_artist_visible (sql/0042), public_genre_song_count and public_label_song_count
-- (sql/0019): LANGUAGE sql with subqueries is never inlined, so each call site was parsed and
-- planned at every execution of the calling statement (sql/0026 did the same for
-- public_artist_song_count). The same bodies in PL/pgSQL keep their plans for the session.

CREATE OR REPLACE FUNCTION search_inside_entries(k smallint, q text)
RETURNS TABLE (id integer, popularity bigint, handle text) LANGUAGE sql STABLE AS $$
  SELECT e.id, e.popularity, e.handle FROM search_names_inside(k, q) e
  WHERE search_entry_visible(k, e.id, e.public_from)
    AND NOT EXISTS (SELECT 1 FROM search_entries s
                    WHERE s.kind = k AND s.id = e.id AND (s.tail >= q AND s.tail < q || chr(1114111)) IS TRUE)
$$;

CREATE OR REPLACE FUNCTION search_inside_popular(k smallint, q text, take integer)
RETURNS TABLE (id integer, popularity bigint, handle text) LANGUAGE sql STABLE AS $$
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

CREATE OR REPLACE FUNCTION search_artist_visible(artist_id integer) RETURNS boolean LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN coalesce((SELECT ac.settled_songs FROM artist_song_counts ac WHERE ac.artist_id = search_artist_visible.artist_id), 0) > 0
    OR search_artist_visible.artist_id IN (SELECT d.artist_id FROM due_artist_songs d)
    OR (SELECT true FROM album_artists aa JOIN public_albums al ON al.id = aa.album_id
        WHERE aa.artist_id = search_artist_visible.artist_id LIMIT 1);
END $$;

CREATE OR REPLACE FUNCTION public_genre_song_count(genre integer) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN coalesce((SELECT settled_songs FROM genre_song_counts WHERE genre_id = genre), 0)
       + (SELECT count(*) FROM scheduled_song_links l WHERE scheduled_link_is_due(l.published_at) AND genre = ANY (l.genre_ids));
END $$;

CREATE OR REPLACE FUNCTION public_label_song_count(label integer) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN coalesce((SELECT settled_songs FROM label_song_counts WHERE label_id = label), 0)
       + (SELECT count(*) FROM scheduled_song_links l WHERE scheduled_link_is_due(l.published_at) AND label = ANY (l.label_ids));
END $$;

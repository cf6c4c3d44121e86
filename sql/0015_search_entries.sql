-- Search at scale (docs/search.md): one table of every searchable name of the seven types, so
-- that /v1/search reads narrow index entries instead of rechecking wide rows, and ranks all the
-- asked types in one statement.
--
-- A row is one "tail" of a folded name: the name from one of its word starts to its end
-- ("bukan cinta biasa", "cinta biasa", "biasa"; `whole` marks the first). A name matches a query
-- at a word start exactly when one of its tails starts with the query, so scores 1, 0.75 and 0.5
-- are one btree range in byte order (kind, tail >= q AND tail < q || U+10FFFF), read index-only
-- with the kept popularity and visibility beside it. Inside-a-word matches and typos read the
-- whole names through a trigram index per type (only when the word starts found few rows).
--
-- kind: the position of the type in /v1/search's order: 1 songs, 2 artists, 3 albums,
-- 4 curated_lists, 5 labels, 6 genres, 7 users (members). Only live rows have entries (songs and
-- albums: song_is_live / album_is_live; members: member_is_public); `public_from` is when the
-- row becomes public (published_at: scheduled rows wait for it; '-infinity': now; NULL:
-- artists without a settled song, whose visibility the read decides from kept counts).
-- The first fill reads every name (~N s at 1M songs): not bounded by the service's statement timeout.
SET LOCAL statement_timeout = 0;
SET LOCAL maintenance_work_mem = '128MB';

CREATE TABLE search_entries (
  kind         smallint NOT NULL,
  id           integer NOT NULL,
  tail         text COLLATE "C" NOT NULL,
  whole        boolean NOT NULL,
  popularity   bigint NOT NULL,
  public_from  timestamptz,
  -- users: the handle folded to lower case, their last tie-break (no internal id decides)
  handle       text
);

-- A row of search_entries is shown now.
CREATE FUNCTION search_entry_is_public(public_from timestamptz) RETURNS boolean
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN public_from <= now();

-- The tails of a folded name (fold_name leaves single spaces between words, none at the ends).
CREATE FUNCTION name_tails(name_key text) RETURNS TABLE (tail text, whole boolean)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT array_to_string(x.words[i:], ' '), i = 1
  FROM (SELECT string_to_array(name_key, ' ') AS words) x, generate_subscripts(x.words, 1) AS i
$$;

-- Every searchable row with its folded names, popularity, visibility and tie-break. Popularity:
-- songs their vidsvc views; artists their credits on live songs; albums their tracks on live
-- songs; lists their entries on live rows; labels, genres and users their kept live counts.
CREATE VIEW search_sources AS
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
  -- lists have no rule function of their own: public_curated_lists is published_at <= now()
  SELECT 4::smallint, l.id, ARRAY[l.search_title],
         CASE WHEN l.content_type = 'songs'
           THEN (SELECT count(*) FROM curated_list_songs e JOIN songs es ON es.id = e.song_id
                 WHERE e.list_id = l.id AND song_is_live(es.published_at, es.deleted_at))
           ELSE (SELECT count(*) FROM curated_list_albums e JOIN albums ea ON ea.id = e.album_id
                 WHERE e.list_id = l.id AND album_is_live(ea.published_at))
         END,
         l.published_at, NULL
  FROM curated_lists l WHERE l.published_at IS NOT NULL
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

-- The entries of some rows of one kind, from their sources (a tail shared by two names once).
CREATE FUNCTION search_entry_rows(entry_kind smallint, ids integer[])
RETURNS SETOF search_entries LANGUAGE sql STABLE AS $$
  SELECT DISTINCT ON (s.id, t.tail) s.kind, s.id, t.tail, t.whole, s.popularity, s.public_from, s.handle
  FROM search_sources s
  CROSS JOIN LATERAL unnest(s.name_keys) AS k(name_key)
  CROSS JOIN LATERAL name_tails(k.name_key) t
  WHERE s.kind = entry_kind AND s.id = ANY(ids)
  ORDER BY s.id, t.tail, t.whole DESC
$$;

-- Rewrites the entries of some rows of one kind (a name, visibility or popularity changed).
-- PL/pgSQL, not SQL: its plans are kept per session (a SQL function plans the view on every call);
-- generic ones: a custom plan drops the other kinds' arms, so Postgres kept planning each call
-- (~3 ms a written row), where the generic plan skips them with one-time filters.
CREATE FUNCTION refresh_search_entries(entry_kind smallint, ids integer[]) RETURNS void LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  DELETE FROM search_entries WHERE kind = entry_kind AND id = ANY(ids);
  INSERT INTO search_entries SELECT * FROM search_entry_rows(entry_kind, ids);
END $$;

-- Moves the popularity and visibility of some rows' entries (a kept count changed). Rows never
-- gain or lose entries this way: that follows their own liveness (refresh_search_entries).
CREATE FUNCTION refresh_search_popularity(entry_kind smallint, ids integer[]) RETURNS void LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan AS $$
BEGIN
  UPDATE search_entries e SET popularity = s.popularity, public_from = s.public_from
  FROM search_sources s
  WHERE e.kind = entry_kind AND e.id = ANY(ids) AND s.kind = entry_kind AND s.id = e.id
    AND (e.popularity, e.public_from) IS DISTINCT FROM (s.popularity, s.public_from);
END $$;

-- Fills the table from scratch with its indexes built after the rows: the first fill, the seed.
CREATE FUNCTION recount_search_entries() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  k smallint;
BEGIN
  DROP INDEX IF EXISTS search_entries_tail_idx, search_entries_id_idx, search_entries_head1_idx, search_entries_head2_idx, search_entries_songs_trgm,
    search_entries_artists_trgm, search_entries_albums_trgm, search_entries_curated_lists_trgm,
    search_entries_labels_trgm, search_entries_genres_trgm, search_entries_users_trgm;
  TRUNCATE search_entries;
  FOR k IN 1..7 LOOP
    INSERT INTO search_entries
    SELECT DISTINCT ON (s.id, t.tail) s.kind, s.id, t.tail, t.whole, s.popularity, s.public_from, s.handle
    FROM search_sources s
    CROSS JOIN LATERAL unnest(s.name_keys) AS n(name_key)
    CROSS JOIN LATERAL name_tails(n.name_key) t
    WHERE s.kind = k
    ORDER BY s.id, t.tail, t.whole DESC;
  END LOOP;
  -- word starts of every type: index-only with what ranking needs
  CREATE INDEX search_entries_tail_idx ON search_entries (kind, tail) INCLUDE (id, whole, popularity, public_from, handle);
  CREATE INDEX search_entries_id_idx ON search_entries (kind, id);
  -- tails by their first one or two characters, most popular first: a short query, or a common
  -- word ("cinta": ~10k titles at 1M songs), reads its page and stops instead of ranking every match
  CREATE INDEX search_entries_head1_idx ON search_entries (kind, left(tail, 1), popularity DESC, handle, id)
    INCLUDE (public_from) WHERE whole;
  CREATE INDEX search_entries_head2_idx ON search_entries (kind, whole, left(tail, 2), popularity DESC, handle, id)
    INCLUDE (tail, public_from);
  -- whole names of one type, for inside-a-word matches and typos
  CREATE INDEX search_entries_songs_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE whole AND kind = 1;
  CREATE INDEX search_entries_artists_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE whole AND kind = 2;
  CREATE INDEX search_entries_albums_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE whole AND kind = 3;
  CREATE INDEX search_entries_curated_lists_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE whole AND kind = 4;
  CREATE INDEX search_entries_labels_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE whole AND kind = 5;
  CREATE INDEX search_entries_genres_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE whole AND kind = 6;
  CREATE INDEX search_entries_users_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE whole AND kind = 7;
  ANALYZE search_entries;
END $$;

-- Triggers. Searchable rows: inserts and deletes per statement (an import writes many rows at
-- once), updates per row (only a name, visibility or popularity column moves them; PostgreSQL
-- allows no column list with transition tables). The seed switches them off and calls
-- recount_search_entries once. TG_ARGV[0] is the kind.
CREATE FUNCTION search_entries_refresh_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM refresh_search_entries(TG_ARGV[0]::smallint, ARRAY[OLD.id, NEW.id]);
  RETURN NULL;
END $$;

CREATE FUNCTION search_entries_rows_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM refresh_search_entries(TG_ARGV[0]::smallint, ARRAY(SELECT n.id FROM new_rows n));
  ELSE
    PERFORM refresh_search_entries(TG_ARGV[0]::smallint, ARRAY(SELECT o.id FROM old_rows o));
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER songs_search_insert AFTER INSERT ON songs REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('1');
CREATE TRIGGER songs_search_delete AFTER DELETE ON songs REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('1');
CREATE TRIGGER songs_search_update AFTER UPDATE OF id, title, published_at, deleted_at, vidsvc_views ON songs
  FOR EACH ROW EXECUTE FUNCTION search_entries_refresh_trigger('1');
CREATE TRIGGER artists_search_insert AFTER INSERT ON artists REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('2');
CREATE TRIGGER artists_search_delete AFTER DELETE ON artists REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('2');
CREATE TRIGGER artists_search_update AFTER UPDATE OF id, name, prefix_title ON artists
  FOR EACH ROW EXECUTE FUNCTION search_entries_refresh_trigger('2');
CREATE TRIGGER albums_search_insert AFTER INSERT ON albums REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('3');
CREATE TRIGGER albums_search_delete AFTER DELETE ON albums REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('3');
CREATE TRIGGER albums_search_update AFTER UPDATE OF id, title, published_at ON albums
  FOR EACH ROW EXECUTE FUNCTION search_entries_refresh_trigger('3');
CREATE TRIGGER curated_lists_search_insert AFTER INSERT ON curated_lists REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('4');
CREATE TRIGGER curated_lists_search_delete AFTER DELETE ON curated_lists REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('4');
CREATE TRIGGER curated_lists_search_update AFTER UPDATE OF id, title, published_at, content_type ON curated_lists
  FOR EACH ROW EXECUTE FUNCTION search_entries_refresh_trigger('4');
CREATE TRIGGER labels_search_insert AFTER INSERT ON labels REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('5');
CREATE TRIGGER labels_search_delete AFTER DELETE ON labels REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('5');
CREATE TRIGGER labels_search_update AFTER UPDATE OF id, name, formerly_known_as ON labels
  FOR EACH ROW EXECUTE FUNCTION search_entries_refresh_trigger('5');
CREATE TRIGGER genres_search_insert AFTER INSERT ON genres REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('6');
CREATE TRIGGER genres_search_delete AFTER DELETE ON genres REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('6');
CREATE TRIGGER genres_search_update AFTER UPDATE OF id, title ON genres
  FOR EACH ROW EXECUTE FUNCTION search_entries_refresh_trigger('6');
CREATE TRIGGER members_search_insert AFTER INSERT ON members REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('7');
CREATE TRIGGER members_search_delete AFTER DELETE ON members REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_entries_rows_trigger('7');
CREATE TRIGGER members_search_update AFTER UPDATE OF id, name, username, is_banned ON members
  FOR EACH ROW EXECUTE FUNCTION search_entries_refresh_trigger('7');

-- Album and list popularity: their tracks and entries, and those rows becoming live or not.
CREATE FUNCTION search_links_popularity_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TRIGGER album_tracks_search_popularity AFTER INSERT OR DELETE OR UPDATE
  ON album_tracks FOR EACH ROW EXECUTE FUNCTION search_links_popularity_trigger();
CREATE TRIGGER curated_list_songs_search_popularity AFTER INSERT OR DELETE OR UPDATE
  ON curated_list_songs FOR EACH ROW EXECUTE FUNCTION search_links_popularity_trigger();
CREATE TRIGGER curated_list_albums_search_popularity AFTER INSERT OR DELETE OR UPDATE
  ON curated_list_albums FOR EACH ROW EXECUTE FUNCTION search_links_popularity_trigger();
-- inserted rows have no links yet; deleted ones lost theirs first (foreign keys)
CREATE TRIGGER songs_search_popularity AFTER UPDATE OF published_at, deleted_at ON songs FOR EACH ROW
  WHEN (song_is_live(OLD.published_at, OLD.deleted_at) <> song_is_live(NEW.published_at, NEW.deleted_at))
  EXECUTE FUNCTION search_links_popularity_trigger();
CREATE TRIGGER albums_search_popularity AFTER UPDATE OF published_at ON albums FOR EACH ROW
  WHEN (album_is_live(OLD.published_at) <> album_is_live(NEW.published_at))
  EXECUTE FUNCTION search_links_popularity_trigger();

-- Kept counts (statement triggers: the recounts rewrite whole tables): TG_ARGV[0] is the kind,
-- TG_ARGV[1] the count table's id column.
CREATE FUNCTION search_counts_popularity_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids integer[];
BEGIN
  EXECUTE format('SELECT array_agg(%I) FROM %I', TG_ARGV[1], CASE WHEN TG_OP = 'DELETE' THEN 'old_rows' ELSE 'new_rows' END) INTO ids;
  PERFORM refresh_search_popularity(TG_ARGV[0]::smallint, ids);
  RETURN NULL;
END $$;

CREATE TRIGGER artist_counts_search_popularity_insert AFTER INSERT ON artist_counts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('2', 'artist_id');
CREATE TRIGGER artist_counts_search_popularity_update AFTER UPDATE ON artist_counts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('2', 'artist_id');
CREATE TRIGGER artist_counts_search_popularity_delete AFTER DELETE ON artist_counts REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('2', 'artist_id');
CREATE TRIGGER artist_song_counts_search_visible_insert AFTER INSERT ON artist_song_counts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('2', 'artist_id');
CREATE TRIGGER artist_song_counts_search_visible_update AFTER UPDATE ON artist_song_counts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('2', 'artist_id');
CREATE TRIGGER artist_song_counts_search_visible_delete AFTER DELETE ON artist_song_counts REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('2', 'artist_id');
CREATE TRIGGER label_counts_search_popularity_insert AFTER INSERT ON label_counts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('5', 'label_id');
CREATE TRIGGER label_counts_search_popularity_update AFTER UPDATE ON label_counts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('5', 'label_id');
CREATE TRIGGER label_counts_search_popularity_delete AFTER DELETE ON label_counts REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('5', 'label_id');
CREATE TRIGGER genre_counts_search_popularity_insert AFTER INSERT ON genre_counts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('6', 'genre_id');
CREATE TRIGGER genre_counts_search_popularity_update AFTER UPDATE ON genre_counts REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('6', 'genre_id');
CREATE TRIGGER genre_counts_search_popularity_delete AFTER DELETE ON genre_counts REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('6', 'genre_id');
CREATE TRIGGER member_contribution_counts_search_popularity_insert AFTER INSERT ON member_contribution_counts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('7', 'member_id');
CREATE TRIGGER member_contribution_counts_search_popularity_update AFTER UPDATE ON member_contribution_counts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('7', 'member_id');
CREATE TRIGGER member_contribution_counts_search_popularity_delete AFTER DELETE ON member_contribution_counts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('7', 'member_id');

SELECT recount_search_entries();

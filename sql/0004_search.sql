-- Search (DESIGN D8) and artist name filters (D6).
-- Every searchable name gets a stored, folded copy (fold_name: lower case, no diacritics, no
-- apostrophes, punctuation and hyphens as spaces) with a GIN trigram index on it. Stored, because
-- a trigram match is always rechecked against the row, and fold_name() costs ~5 us a call:
-- recomputing it for every candidate would dominate a search.

ALTER TABLE songs ADD COLUMN search_title text GENERATED ALWAYS AS (fold_name(title)) STORED;
ALTER TABLE albums ADD COLUMN search_title text GENERATED ALWAYS AS (fold_name(title)) STORED;
ALTER TABLE curated_lists ADD COLUMN search_title text GENERATED ALWAYS AS (fold_name(title)) STORED;
ALTER TABLE genres ADD COLUMN search_title text GENERATED ALWAYS AS (fold_name(title)) STORED;
ALTER TABLE labels ADD COLUMN search_name text GENERATED ALWAYS AS (fold_name(name)) STORED;
ALTER TABLE labels ADD COLUMN search_former_name text GENERATED ALWAYS AS (fold_name(formerly_known_as)) STORED;
ALTER TABLE members ADD COLUMN search_name text GENERATED ALWAYS AS (fold_name(name)) STORED;
ALTER TABLE members ADD COLUMN search_username text GENERATED ALWAYS AS (fold_name(username)) STORED;
ALTER TABLE artists ADD COLUMN search_name text GENERATED ALWAYS AS (fold_name(name)) STORED;
-- The name with its honorific ("dato sri siti nurhaliza"), so typing the honorific still matches.
ALTER TABLE artists ADD COLUMN search_full_name text
  GENERATED ALWAYS AS (fold_name(coalesce(prefix_title || ' ', '') || name)) STORED;

CREATE INDEX songs_search_title_trgm ON songs USING gin (search_title gin_trgm_ops)
  WHERE deleted_at IS NULL AND published_at IS NOT NULL;
CREATE INDEX albums_search_title_trgm ON albums USING gin (search_title gin_trgm_ops) WHERE published_at IS NOT NULL;
CREATE INDEX curated_lists_search_title_trgm ON curated_lists USING gin (search_title gin_trgm_ops)
  WHERE published_at IS NOT NULL;
CREATE INDEX genres_search_title_trgm ON genres USING gin (search_title gin_trgm_ops);
CREATE INDEX labels_search_name_trgm ON labels USING gin (search_name gin_trgm_ops);
CREATE INDEX labels_search_former_name_trgm ON labels USING gin (search_former_name gin_trgm_ops);
CREATE INDEX members_search_name_trgm ON members USING gin (search_name gin_trgm_ops)
  WHERE username IS NOT NULL AND NOT is_banned;
CREATE INDEX members_search_username_trgm ON members USING gin (search_username gin_trgm_ops)
  WHERE username IS NOT NULL AND NOT is_banned;
CREATE INDEX artists_search_name_trgm ON artists USING gin (search_name gin_trgm_ops);
CREATE INDEX artists_search_full_name_trgm ON artists USING gin (search_full_name gin_trgm_ops);

-- How well a folded name matches a folded query (D8): 1 exact, 0.75 prefix, 0.5 a word of the
-- name starts with the query, 0.25 the query is inside a word, or is close to a word of the name
-- (trigram word similarity >= 0.6; `fuzzy_query` is null when the query is too short for that),
-- 0 no match. STABLE: `<%` reads pg_trgm.word_similarity_threshold (default 0.6). Inlined by the
-- planner; the WHERE clauses that use the indexes sit beside it.
CREATE FUNCTION search_score(name_key text, query text, fuzzy_query text) RETURNS numeric
LANGUAGE sql STABLE PARALLEL SAFE AS $$
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

-- The public views again, so that they carry the folded names (a view's `*` is fixed when it is
-- made; OR REPLACE may only append columns). Same rules as sql/0001_catalogue.sql.
CREATE OR REPLACE VIEW public_songs AS
  SELECT * FROM songs WHERE published_at <= now() AND deleted_at IS NULL;
CREATE OR REPLACE VIEW public_albums AS
  SELECT * FROM albums WHERE published_at <= now();
CREATE OR REPLACE VIEW public_curated_lists AS
  SELECT * FROM curated_lists WHERE published_at <= now();
CREATE OR REPLACE VIEW public_members AS
  SELECT * FROM members WHERE username IS NOT NULL AND NOT is_banned;
CREATE OR REPLACE VIEW public_artists AS
  SELECT a.* FROM artists a
  WHERE EXISTS (SELECT 1 FROM credits c JOIN public_songs s ON s.id = c.song_id WHERE c.artist_id = a.id)
     OR EXISTS (SELECT 1 FROM album_artists aa JOIN public_albums al ON al.id = aa.album_id WHERE aa.artist_id = a.id);

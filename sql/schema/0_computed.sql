-- The extensions, and the functions a stored column or an index is computed with: they are part
-- of the tables (a change recomputes what holds their results), so they change with a numbered
-- migration, never in place. The other rules are in sql/definitions/1_rules.sql.

CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE EXTENSION IF NOT EXISTS unaccent;

-- Folds a name for comparison and search: lower case, no diacritics, apostrophes dropped,
-- every other run of ASCII punctuation or space collapsed to one space. Combining marks
-- (Tamil viramas and vowel signs) are letters here, so the class is spelled out.
CREATE OR REPLACE FUNCTION fold_name(value text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT btrim(regexp_replace(
    regexp_replace(lower(public.unaccent('public.unaccent'::regdictionary, value)), '[''`’‘]', '', 'g'),
    '[][[:space:]_.,;:!?"(){}/\\&+*|~^<>=@#%$–—-]+', ' ', 'g'))
$$;

CREATE OR REPLACE FUNCTION member_is_public(username text, is_banned boolean) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN username IS NOT NULL AND NOT is_banned;

-- A folded text with each Han, kana or hangul character set apart by spaces: those scripts do not
-- separate words, so search reads each of their characters as a word.
CREATE OR REPLACE FUNCTION search_spaced(folded text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN regexp_replace(folded, '([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f\u3040-\u30ff\uac00-\ud7af])', ' \1 ', 'g');

-- The words of a folded name as search keeps them: each once, sorted.
CREATE OR REPLACE FUNCTION search_split(folded text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN ARRAY(SELECT DISTINCT w FROM unnest(string_to_array(search_spaced(folded), ' ')) w WHERE w <> '' ORDER BY w);

-- A search row's lexemes: each word prefixed by the row's kind and its field (t the title or
-- name, o the other names, a the album's title), so one index serves every kind and field.
CREATE OR REPLACE FUNCTION search_lexemes(kind smallint, title_words text[], other_words text[], album_words text[]) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN array_to_tsvector(ARRAY(
    SELECT kind || 't' || w FROM unnest(title_words) w
    UNION SELECT kind || 'o' || w FROM unnest(other_words) w
    UNION SELECT kind || 'a' || w FROM unnest(album_words) w));

CREATE OR REPLACE FUNCTION song_is_live(published_at timestamp with time zone, deleted_at timestamp with time zone) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN published_at IS NOT NULL AND deleted_at IS NULL;

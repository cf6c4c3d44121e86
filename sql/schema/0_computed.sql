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

-- The inner text as its index holds it: the words joined by the joiner.
CREATE OR REPLACE FUNCTION search_inner_joined(inner_text text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN replace(inner_text, ' ', 'ꙮ');

-- Each word's first character followed by '#'.
CREATE OR REPLACE FUNCTION search_inner_words(folded text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN regexp_replace(folded, '(^| )([^ ])', '\1\2#', 'g');

CREATE OR REPLACE FUNCTION song_is_live(published_at timestamp with time zone, deleted_at timestamp with time zone) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN published_at IS NOT NULL AND deleted_at IS NULL;

-- How values are written in the API's JSON: asset URLs under the CDN base (the session setting
-- catalogue.cdn_base_url), ISO dates and times, a song's release year.

-- The public URL of a stored image: absolute URLs pass through, storage keys are joined to
-- the CDN base (session setting catalogue.cdn_base_url), absent images get a placeholder.
CREATE OR REPLACE FUNCTION asset_url(storage_key text, placeholder text) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $$
  SELECT CASE
    WHEN storage_key ~ '^https?://' THEN storage_key
    WHEN storage_key IS NULL OR storage_key = '' THEN
      coalesce(nullif(current_setting('catalogue.cdn_base_url', true), ''), 'https://cdn.example.com')
        || '/placeholders/' || placeholder || '.png'
    ELSE coalesce(nullif(current_setting('catalogue.cdn_base_url', true), ''), 'https://cdn.example.com')
        || '/' || ltrim(storage_key, '/')
  END
$$;

CREATE OR REPLACE FUNCTION iso_date(value date) RETURNS text LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$ SELECT to_char(value, 'YYYY-MM-DD') $$;

CREATE OR REPLACE FUNCTION iso_time(value timestamp with time zone) RETURNS text LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
  SELECT to_char(value AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

CREATE OR REPLACE FUNCTION song_release_year(released_at date) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN extract(year FROM released_at)::integer;

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

-- Compact JSON: a contribution's `details` printed the way every other body is, with no spaces
-- (json_build_object prints `"key" : value` and json_agg `[a, b]`; to_json of a row and
-- array_to_json print compact JSON). Same fields, order and defaults.
CREATE OR REPLACE FUNCTION contribution_details_json(details jsonb) RETURNS json LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT to_json(_j) FROM (SELECT
    (SELECT coalesce(array_to_json(array_agg((SELECT to_json(_c) FROM (SELECT
        coalesce(e->>'artist_name', '') AS artist_name, coalesce(e->>'role_name', '') AS role_name) _c) ORDER BY n)), '[]'::json)
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(details->'added_credits') = 'array'
                                     THEN details->'added_credits' ELSE '[]'::jsonb END) WITH ORDINALITY AS x(e, n)
      WHERE jsonb_typeof(e) = 'object') AS added_credits,
    (SELECT coalesce(array_to_json(array_agg((SELECT to_json(_c) FROM (SELECT
        coalesce(e->>'artist_name', '') AS artist_name, coalesce(e->>'role_name', '') AS role_name) _c) ORDER BY n)), '[]'::json)
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(details->'removed_credits') = 'array'
                                     THEN details->'removed_credits' ELSE '[]'::jsonb END) WITH ORDINALITY AS x(e, n)
      WHERE jsonb_typeof(e) = 'object') AS removed_credits,
    coalesce(details->'changed_genres' = 'true'::jsonb, false) AS changed_genres,
    coalesce(details->'changed_labels' = 'true'::jsonb, false) AS changed_labels,
    coalesce(details->'changed_lyrics' = 'true'::jsonb, false) AS changed_lyrics,
    coalesce(details->'changed_notes' = 'true'::jsonb, false) AS changed_notes,
    coalesce(details->'changed_title' = 'true'::jsonb, false) AS changed_title,
    coalesce(details->'changed_release_date' = 'true'::jsonb, false) AS changed_release_date,
    coalesce(details->'changed_artwork' = 'true'::jsonb, false) AS changed_artwork,
    (SELECT coalesce(array_to_json(array_agg((SELECT to_json(_l) FROM (SELECT
        coalesce(e->>'service', '') AS service, coalesce(e->>'change', '') AS change) _l) ORDER BY n)), '[]'::json)
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(details->'links') = 'array'
                                     THEN details->'links' ELSE '[]'::jsonb END) WITH ORDINALITY AS x(e, n)
      WHERE jsonb_typeof(e) = 'object') AS links
  ) _j
$$;

CREATE OR REPLACE FUNCTION iso_date(value date) RETURNS text LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$ SELECT to_char(value, 'YYYY-MM-DD') $$;

CREATE OR REPLACE FUNCTION iso_time(value timestamp with time zone) RETURNS text LANGUAGE sql STABLE STRICT PARALLEL SAFE AS $$
  SELECT to_char(value AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

CREATE OR REPLACE FUNCTION song_release_year(released_at date) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN extract(year FROM released_at)::integer;

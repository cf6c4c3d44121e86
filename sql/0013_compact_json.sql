-- Compact JSON: a contribution's `details` printed the way every other body is, with no spaces
-- (json_build_object prints `"key" : value` and json_agg `[a, b]`; to_json of a row and
-- array_to_json print compact JSON). Same fields, order and defaults as sql/0003.
CREATE OR REPLACE FUNCTION contribution_details_json(details jsonb) RETURNS json
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
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

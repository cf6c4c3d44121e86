-- /v1/artists?q= of one or two characters (no trigram): the total was a pass over every kept name
-- (sql/0039: 245k at 1M songs, 40-85 ms by machine), and a query that matches few names walked the
-- whole kept order to find them (the same again).
--
-- Every text of one or two characters that an artist with a settled song has in its folded names
-- (a "gram": exactly what a short folded query can match with strpos) is now kept twice:
-- artist_name_gram_counts, how many such artists have it (the short query's total without a pass),
-- and artist_name_grams, which artists have it (the few matches of a rare gram without a walk).
-- At 1M songs: ~5,100 grams, 6M (gram, artist) pairs, ~340 MB, ~25 s to fill.
--
-- Kept by one statement trigger on artist_song_counts, whose rows with a settled song are the kept
-- names (sql/0039): a row entering or leaving that set, or renamed, moves its grams; a song count
-- changing moves nothing.

SET LOCAL statement_timeout = 0;

-- Every distinct text of one or two characters in either name (NULL names have none).
CREATE FUNCTION name_grams(search_name text, search_full_name text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT substr(n, i, w)), '{}')
  FROM unnest(ARRAY[search_name, search_full_name]) n
  CROSS JOIN generate_series(1, 2) w
  CROSS JOIN generate_series(1, char_length(n) - w + 1) i
$$;

CREATE TABLE artist_name_grams (
  gram text COLLATE "C" NOT NULL,
  artist_id integer NOT NULL,
  PRIMARY KEY (gram, artist_id)
);

CREATE TABLE artist_name_gram_counts (
  gram text COLLATE "C" PRIMARY KEY,
  artists integer NOT NULL
);

-- Artists (id, folded names) leaving the kept names and joining them: their grams' pairs moved,
-- and the counts by the pairs actually moved (a rename keeps the grams both names have).
CREATE FUNCTION move_artist_name_grams(gone_ids integer[], gone_names text[], gone_full_names text[],
                                       came_ids integer[], came_names text[], came_full_names text[])
RETURNS void LANGUAGE sql AS $$
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

-- Both tables written anew from the kept names, for a statement that moves many of them (a
-- recount, the seed's bulk load): in key order, ~25 s at 1M songs, where moving 245k artists pair
-- by pair took minutes.
CREATE FUNCTION refill_artist_name_grams() RETURNS void LANGUAGE sql AS $$
  TRUNCATE artist_name_grams, artist_name_gram_counts;
  INSERT INTO artist_name_grams (gram, artist_id)
  SELECT g.gram, ac.artist_id FROM artist_song_counts ac CROSS JOIN unnest(name_grams(ac.search_name, ac.search_full_name)) g(gram)
  WHERE ac.settled_songs > 0
  ORDER BY 1, 2;
  INSERT INTO artist_name_gram_counts (gram, artists) SELECT gram, count(*) FROM artist_name_grams GROUP BY gram;
$$;

CREATE FUNCTION artist_name_grams_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
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

CREATE TRIGGER artist_song_counts_name_grams_insert AFTER INSERT ON artist_song_counts
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_name_grams_trigger();
CREATE TRIGGER artist_song_counts_name_grams_update AFTER UPDATE ON artist_song_counts
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_name_grams_trigger();
CREATE TRIGGER artist_song_counts_name_grams_delete AFTER DELETE ON artist_song_counts
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION artist_name_grams_trigger();
-- (the seed empties the catalogue with TRUNCATE ... CASCADE, which reaches artist_song_counts)
CREATE TRIGGER artist_song_counts_name_grams_truncate AFTER TRUNCATE ON artist_song_counts
  FOR EACH STATEMENT EXECUTE FUNCTION artist_name_grams_trigger();

-- The catalogue's grams as they are (the triggers carry every later change).
SELECT refill_artist_name_grams();
ANALYZE artist_name_grams, artist_name_gram_counts;

-- A short query's kept facts: the folded query, the visible artists with a settled song whose
-- names contain it (NULL when it is not a gram: empty, or folded to more than two characters),
-- and how many visible artists have a settled song (the length of the kept orders).
CREATE FUNCTION short_name_query(q text) RETURNS TABLE (folded text, kept_matches integer, kept_artists integer)
LANGUAGE sql STABLE AS $$
  SELECT f.folded,
    CASE WHEN char_length(f.folded) BETWEEN 1 AND 2
      THEN coalesce((SELECT c.artists FROM artist_name_gram_counts c WHERE c.gram = f.folded), 0) END,
    (SELECT t.with_settled FROM artist_song_totals t)::integer
  FROM (SELECT fold_name(q) AS folded) f
$$;

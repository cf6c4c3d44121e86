-- The song's values its links copy (sql/0028's release date on song_genres and song_labels,
-- sql/0030's views on label_song_views) follow the song in one trigger, with one join of the
-- statement's old and new rows, as sql/0020 folded the count triggers on songs: each had its own
-- trigger and join, and ran its updates for every write of songs. Same values.
DROP TRIGGER songs_link_release_date_update ON songs;
DROP TRIGGER songs_label_views_update ON songs;
DROP FUNCTION songs_link_release_date_trigger();
DROP FUNCTION songs_label_views_trigger();

CREATE FUNCTION songs_link_copies_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  redated integer[];
  new_dates date[];
  rewatched integer[];
  new_views bigint[];
BEGIN
  SELECT array_agg(n.id) FILTER (WHERE n.released_at IS DISTINCT FROM o.released_at),
         array_agg(n.released_at) FILTER (WHERE n.released_at IS DISTINCT FROM o.released_at),
         array_agg(n.id) FILTER (WHERE coalesce(n.vidsvc_views, -1) <> coalesce(o.vidsvc_views, -1)),
         array_agg(coalesce(n.vidsvc_views, -1)) FILTER (WHERE coalesce(n.vidsvc_views, -1) <> coalesce(o.vidsvc_views, -1))
  INTO redated, new_dates, rewatched, new_views
  FROM new_rows n JOIN old_rows o ON o.id = n.id;
  IF redated IS NOT NULL THEN
    UPDATE song_genres x SET released_at = c.released_at FROM unnest(redated, new_dates) AS c(id, released_at) WHERE x.song_id = c.id;
    UPDATE song_labels x SET released_at = c.released_at FROM unnest(redated, new_dates) AS c(id, released_at) WHERE x.song_id = c.id;
  END IF;
  IF rewatched IS NOT NULL THEN
    UPDATE label_song_views v SET views = c.views FROM unnest(rewatched, new_views) AS c(id, views) WHERE v.song_id = c.id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER songs_link_copies_update AFTER UPDATE ON songs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_link_copies_trigger();

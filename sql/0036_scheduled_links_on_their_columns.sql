-- sql/0006's trigger keeping scheduled_song_links, on an update of songs: it rewrote the rows of
-- every scheduled song the statement touched, whatever changed, and each rewrite moves the kept
-- counts through scheduled_song_links' own triggers (~0.5 s a song at 1M songs). A views refresh
-- touching 4 scheduled songs among 200 spent 2 s there. A song's row in scheduled_song_links
-- holds its published_at and released_at, and whether it is listed follows deleted_at too: only
-- a change of those (or of the id) rewrites it now. The other tables' branches are as before.
CREATE OR REPLACE FUNCTION scheduled_song_links_trigger() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
DECLARE
  song_ids integer[];
BEGIN
  IF TG_TABLE_NAME = 'songs' THEN
    IF TG_OP = 'INSERT' THEN
      song_ids := ARRAY(SELECT n.id FROM new_rows n WHERE n.published_at > now());
    ELSIF TG_OP = 'DELETE' THEN
      song_ids := ARRAY(SELECT o.id FROM old_rows o WHERE o.published_at > now());
    ELSE
      song_ids := ARRAY(
        SELECT x.id FROM (SELECT n.id, n.published_at, n.deleted_at, n.released_at FROM new_rows n
                          UNION ALL SELECT o.id, o.published_at, o.deleted_at, o.released_at FROM old_rows o) x
        GROUP BY x.id
        HAVING bool_or(x.published_at > now())
           AND (count(*) = 1 OR count(DISTINCT (x.published_at, x.deleted_at, x.released_at)) > 1));
    END IF;
  ELSE
    IF TG_OP = 'INSERT' THEN
      song_ids := ARRAY(SELECT DISTINCT n.song_id FROM new_rows n);
    ELSIF TG_OP = 'DELETE' THEN
      song_ids := ARRAY(SELECT DISTINCT o.song_id FROM old_rows o);
    ELSE
      song_ids := ARRAY(SELECT n.song_id FROM new_rows n UNION SELECT o.song_id FROM old_rows o);
    END IF;
    song_ids := ARRAY(SELECT s.id FROM songs s WHERE s.id = ANY (song_ids) AND s.published_at > now());
  END IF;
  IF cardinality(song_ids) > 0 THEN
    PERFORM refresh_scheduled_song_links(song_ids);
  END IF;
  RETURN NULL;
END $$;

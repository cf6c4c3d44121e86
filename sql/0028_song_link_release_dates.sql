-- Each song's release date on its genre and label links, kept from the song: a genre's or a
-- label's songs of one year are one index range (song_genres_genre_released_idx,
-- song_labels_label_released_idx), read by key when few (src/Domain/SteeredPage.ts), instead of
-- probing every song of the year for the link (~16k songs a year at 1M songs) or every link for
-- the year. Every song's date, whatever its state: the public rules are applied to the songs read.
ALTER TABLE song_genres ADD COLUMN released_at date;
ALTER TABLE song_labels ADD COLUMN released_at date;
-- Filled with the links' triggers off: no count or public list changes, and the change feed
-- would otherwise record every genre and label as changed.
ALTER TABLE song_genres DISABLE TRIGGER USER;
ALTER TABLE song_labels DISABLE TRIGGER USER;
UPDATE song_genres x SET released_at = s.released_at FROM songs s WHERE s.id = x.song_id;
UPDATE song_labels x SET released_at = s.released_at FROM songs s WHERE s.id = x.song_id;
ALTER TABLE song_genres ENABLE TRIGGER USER;
ALTER TABLE song_labels ENABLE TRIGGER USER;
ALTER TABLE song_genres ALTER COLUMN released_at SET NOT NULL;
ALTER TABLE song_labels ALTER COLUMN released_at SET NOT NULL;
CREATE INDEX song_genres_genre_released_idx ON song_genres (genre_id, released_at, song_id);
CREATE INDEX song_labels_label_released_idx ON song_labels (label_id, released_at, song_id);

-- A new or moved link takes its song's date (a bulk load writes the date itself).
CREATE FUNCTION song_link_release_date() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.released_at := (SELECT s.released_at FROM songs s WHERE s.id = NEW.song_id);
  RETURN NEW;
END $$;
CREATE TRIGGER song_genres_release_date BEFORE INSERT OR UPDATE OF song_id, released_at ON song_genres
  FOR EACH ROW EXECUTE FUNCTION song_link_release_date();
CREATE TRIGGER song_labels_release_date BEFORE INSERT OR UPDATE OF song_id, released_at ON song_labels
  FOR EACH ROW EXECUTE FUNCTION song_link_release_date();

-- A song's new date moves its links.
CREATE FUNCTION songs_link_release_date_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE song_genres x SET released_at = n.released_at
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  WHERE x.song_id = n.id AND n.released_at IS DISTINCT FROM o.released_at;
  UPDATE song_labels x SET released_at = n.released_at
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  WHERE x.song_id = n.id AND n.released_at IS DISTINCT FROM o.released_at;
  RETURN NULL;
END $$;
CREATE TRIGGER songs_link_release_date_update AFTER UPDATE ON songs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_link_release_date_trigger();

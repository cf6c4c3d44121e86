-- Each label's songs in popularity order: (label, coalesce(vidsvc_views, -1), song) kept from
-- song_labels and the songs' views. /v1/songs?label=...&sort=popular walks this index range of
-- the label instead of the whole catalogue's popularity index with a label probe a row (with a
-- genre too, ~17,500 rows for page 21 of genre=pop&label=381 at 1M songs; now the label's rows
-- until the page is found, ~1,600). Its own table with no triggers on it: a views refresh moves
-- these rows only, not the links the change feed and the counts watch. Every link, whatever the
-- song's state: the public rules are applied to the songs read.
CREATE TABLE label_song_views (
  song_id   integer NOT NULL,
  label_id  integer NOT NULL,
  views     bigint NOT NULL,
  PRIMARY KEY (song_id, label_id)
);
CREATE INDEX label_song_views_order_idx ON label_song_views (label_id, views, song_id);

CREATE FUNCTION recount_label_song_views() RETURNS void LANGUAGE sql AS $$
  TRUNCATE label_song_views;
  INSERT INTO label_song_views (song_id, label_id, views)
  SELECT x.song_id, x.label_id, coalesce(s.vidsvc_views, -1) FROM song_labels x JOIN songs s ON s.id = x.song_id;
$$;
SELECT recount_label_song_views();

-- Each transition table read only where it exists (a statement naming one is planned when run).
CREATE FUNCTION song_labels_views_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    DELETE FROM label_song_views v USING old_rows o WHERE v.song_id = o.song_id AND v.label_id = o.label_id;
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    INSERT INTO label_song_views (song_id, label_id, views)
    SELECT n.song_id, n.label_id, coalesce(s.vidsvc_views, -1) FROM new_rows n JOIN songs s ON s.id = n.song_id;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER song_labels_views_insert AFTER INSERT ON song_labels
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_views_trigger();
CREATE TRIGGER song_labels_views_update AFTER UPDATE ON song_labels
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_views_trigger();
CREATE TRIGGER song_labels_views_delete AFTER DELETE ON song_labels
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION song_labels_views_trigger();

CREATE FUNCTION recount_label_song_views_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM recount_label_song_views();
  RETURN NULL;
END $$;
CREATE TRIGGER song_labels_views_truncate AFTER TRUNCATE ON song_labels
  FOR EACH STATEMENT EXECUTE FUNCTION recount_label_song_views_trigger();

-- A song's new views move its rows.
CREATE FUNCTION songs_label_views_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE label_song_views v SET views = coalesce(n.vidsvc_views, -1)
  FROM new_rows n JOIN old_rows o ON o.id = n.id
  WHERE v.song_id = n.id AND coalesce(n.vidsvc_views, -1) <> coalesce(o.vidsvc_views, -1);
  RETURN NULL;
END $$;
CREATE TRIGGER songs_label_views_update AFTER UPDATE ON songs
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION songs_label_views_trigger();

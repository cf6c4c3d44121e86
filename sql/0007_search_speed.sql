-- Search speed (docs/search.md "Measured"): what /v1/search reads instead of scanning.
--
-- 1. One- and two-character queries match names that START with them (an autocomplete's first
--    keystrokes): a btree range over the folded name in byte order ("C"), so that counting and
--    ranking thousands of matches reads one index range instead of rechecking every row that has
--    a word starting with that letter.
CREATE INDEX songs_search_title_prefix ON songs (search_title COLLATE "C") INCLUDE (id, vidsvc_views, published_at)
  WHERE deleted_at IS NULL AND published_at IS NOT NULL;
CREATE INDEX albums_search_title_prefix ON albums (search_title COLLATE "C") WHERE published_at IS NOT NULL;
CREATE INDEX artists_search_name_prefix ON artists (search_name COLLATE "C");
CREATE INDEX artists_search_full_name_prefix ON artists (search_full_name COLLATE "C");
CREATE INDEX members_search_name_prefix ON members (search_name COLLATE "C")
  WHERE username IS NOT NULL AND NOT is_banned;
CREATE INDEX members_search_username_prefix ON members (search_username COLLATE "C")
  WHERE username IS NOT NULL AND NOT is_banned;

-- 2. Artists whose every live credit and live album credit is still scheduled (published_at in
--    the future): with sql/0006's kept artist_counts, an artist is visible (public_artists) when
--    it has a live credit or live album credit and is not listed here. Same rule as the artists
--    count of public_catalogue_counts; a few rows, read once per search instead of probing the
--    credits of every candidate.
CREATE VIEW scheduled_only_artists AS
  SELECT sch.artist_id
  FROM (
    SELECT x.artist_id, sum(x.credits) AS credits, sum(x.album_credits) AS album_credits
    FROM (
      SELECT c.artist_id, 1 AS credits, 0 AS album_credits
      FROM scheduled_song_links_now s CROSS JOIN LATERAL unnest(s.artist_ids) AS c(artist_id)
      UNION ALL
      SELECT aa.artist_id, 0, 1
      FROM scheduled_albums al CROSS JOIN LATERAL (SELECT aa.artist_id FROM album_artists aa WHERE aa.album_id = al.id OFFSET 0) aa
    ) x
    GROUP BY x.artist_id) sch
  JOIN artist_counts ac ON ac.artist_id = sch.artist_id
  WHERE ac.live_credits <= sch.credits AND ac.live_album_credits <= sch.album_credits;

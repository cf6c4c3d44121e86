-- An artist's best-known song (/v1/artists/namesake-hints, src/Artists/Repo.ts bestSongSql) is
-- found, for an artist of s public songs while s² is below the catalogue's, by probing each of its
-- songs for its views: a heap fetch a song (the 20 most credited artists with namesakes at 1M
-- songs: 7,581 probes, ~40 ms of a page). Their views, dates and ids from this index alone
-- (index-only: the title is read for the best song only): ~32 ms. vidsvc_views is indexed
-- already (songs_public_popular_idx), so its updates were not heap-only before either.

SET LOCAL statement_timeout = 0;
SET LOCAL maintenance_work_mem = '128MB';

CREATE INDEX songs_views_by_id_idx ON songs (id) INCLUDE (vidsvc_views, released_at);

ANALYZE songs;

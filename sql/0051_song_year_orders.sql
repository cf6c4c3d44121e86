-- A year alone in popular or title order (/v1/songs?year=2015&sort=title) collected the year's
-- public songs (~21k at 1M songs) and sorted them for every page: 50-100 ms at offset 3,000 and
-- `limit=80`. In release order a year is already a range of songs_public_released_idx. These
-- indexes hold each year's songs in the other two orders (the catalogue's sort keys, sql/0001 and
-- 0002, after the year), so such a page is a walk of one index range from its nearer end, as the
-- release order is (src/Domain/SongBrowse.ts). `published_at` is included for the public rule.

SET LOCAL statement_timeout = 0;
SET LOCAL maintenance_work_mem = '128MB';

CREATE INDEX songs_year_popular_idx ON songs (extract(year FROM released_at), coalesce(vidsvc_views, -1), id)
  INCLUDE (published_at) WHERE deleted_at IS NULL AND published_at IS NOT NULL;
CREATE INDEX songs_year_title_idx ON songs (extract(year FROM released_at), lower(title), id)
  INCLUDE (published_at) WHERE deleted_at IS NULL AND published_at IS NOT NULL;

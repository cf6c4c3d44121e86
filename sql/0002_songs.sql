-- Indexes for the song, album and curated-list endpoints (docs/query-plans.md shows the plans).

-- /v1/songs?sort=popular: all-time video views, most first; songs without a video last.
CREATE INDEX songs_public_popular_idx ON songs ((coalesce(vidsvc_views, -1)) DESC, id DESC)
  WHERE deleted_at IS NULL AND published_at IS NOT NULL;

-- /v1/albums?sort=released|title: albums without a date sort as the oldest.
CREATE INDEX albums_public_released_key_idx ON albums ((coalesce(released_at, DATE '0001-01-01')) DESC, id DESC)
  WHERE published_at IS NOT NULL;
CREATE INDEX albums_public_title_idx ON albums (lower(title), id) WHERE published_at IS NOT NULL;

-- Indexes for the song, album and curated-list endpoints (docs/query-plans.md shows the plans).

-- /v1/songs?sort=popular: all-time video views, most first; songs without a video last.
CREATE INDEX songs_public_popular_idx ON songs ((coalesce(vidsvc_views, -1)) DESC, id DESC)
  WHERE deleted_at IS NULL AND published_at IS NOT NULL;

-- /v1/albums at deep offsets walked its sort's index reading every skipped album's row for the
-- public rule (`published_at <= now()`): offset 60,000 of 125k albums at 1M songs read ~60k rows
-- (~55 ms). These indexes carry what the walk tests (published_at, album_type, and the column
-- under the sort's expression, which PostgreSQL needs to read an expression index alone), so the
-- walk is index-only and only the page's rows are read (src/Domain/SteeredPage.ts `deferred`).
-- They replace sql/0002's indexes of the same keys. Index-only needs the visibility map kept
-- (autovacuum; a server without it: VACUUM albums after bulk writes, docs/operations.md).
CREATE INDEX albums_public_released_walk_idx ON albums ((coalesce(released_at, DATE '0001-01-01')) DESC, id DESC)
  INCLUDE (released_at, published_at, album_type) WHERE published_at IS NOT NULL;
CREATE INDEX albums_public_title_walk_idx ON albums (lower(title), id)
  INCLUDE (title, published_at, album_type) WHERE published_at IS NOT NULL;
DROP INDEX albums_public_released_key_idx;
DROP INDEX albums_public_title_idx;

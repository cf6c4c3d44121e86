-- The change feed's cursors are sealed (src/Changes/CursorSeal.ts, docs/changes.md) under one secret
-- kept here, so that every replica of the service seals and opens them alike: 32 bytes from two
-- random UUIDs (244 random bits, from PostgreSQL's strong random source).
ALTER TABLE change_feed_origin ADD COLUMN cursor_key bytea NOT NULL
  DEFAULT decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex');
ALTER TABLE change_feed_origin ALTER COLUMN cursor_key DROP DEFAULT;

-- The visibility rules, each written once (docs/query-plans.md, "Live and public").
-- Every view, kept count and trigger from here on calls these instead of spelling the
-- columns out. They are plain SQL expressions, so PostgreSQL inlines them: a partial index
-- or a WHERE clause that calls one plans exactly as the written-out condition.
--
-- live:   counts now or once its time comes (published, or scheduled, and not deleted). Kept
--         counts and their triggers use it: a trigger cannot see the clock pass published_at.
-- public: shown now (live and published_at has passed). Views and reads use it.

CREATE FUNCTION song_is_live(published_at timestamptz, deleted_at timestamptz) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN published_at IS NOT NULL AND deleted_at IS NULL;

CREATE FUNCTION song_is_public(published_at timestamptz, deleted_at timestamptz) RETURNS boolean
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN published_at <= now() AND deleted_at IS NULL;

CREATE FUNCTION album_is_live(published_at timestamptz) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN published_at IS NOT NULL;

CREATE FUNCTION album_is_public(published_at timestamptz) RETURNS boolean
  LANGUAGE sql STABLE PARALLEL SAFE
  RETURN published_at <= now();

CREATE FUNCTION member_is_public(username text, is_banned boolean) RETURNS boolean
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN username IS NOT NULL AND NOT is_banned;

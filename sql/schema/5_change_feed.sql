-- The change feed's log (docs/changes.md).

CREATE TABLE change_log (
  position bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  xid xid8 DEFAULT pg_current_xact_id() NOT NULL,
  kind text NOT NULL CHECK (kind IN ('songs', 'albums', 'curated_lists', 'artists', 'genres', 'labels', 'users')),
  row_key text NOT NULL,
  may_remove boolean NOT NULL,
  at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
  due_at timestamp with time zone,
  PRIMARY KEY ("position")
);
CREATE INDEX change_log_immediate_idx ON change_log (xid, "position") WHERE (due_at IS NULL);
CREATE INDEX change_log_due_idx ON change_log (due_at, xid, "position") WHERE (due_at IS NOT NULL);

-- When the feed began: a reader without a cursor starts from the backfill below and from this time.
CREATE TABLE change_feed_origin (
  only_row boolean DEFAULT true PRIMARY KEY CHECK (only_row),
  started_at timestamp with time zone NOT NULL
);
INSERT INTO change_feed_origin (started_at) VALUES (clock_timestamp());

-- Known to be empty (rather than assumed ten pages long) until the first ANALYZE after a load.
ANALYZE change_log;

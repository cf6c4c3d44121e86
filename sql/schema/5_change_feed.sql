-- The change feed's log (docs/changes.md).

CREATE TABLE change_log (
  position bigint GENERATED ALWAYS AS IDENTITY NOT NULL,
  xid xid8 DEFAULT pg_current_xact_id() NOT NULL,
  kind text NOT NULL CHECK (kind IN ('songs', 'albums', 'curated_lists', 'artists', 'genres', 'labels', 'users')),
  row_key text NOT NULL,
  at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
  PRIMARY KEY ("position")
);
CREATE INDEX change_log_order_idx ON change_log (xid, "position");

-- Due touches of scheduled rows, keyed by content and tagged with the row that causes them
-- (`source`, 'songs:12'): a write of that row deletes its touches still ahead and writes them anew.
-- xid: the writing transaction, so that a reader can serve a touch its due stream passed while the
-- writer was still running (a hot standby cannot wait for the primary's writers): the late stream.
CREATE TABLE change_due (
  due_at timestamp with time zone NOT NULL,
  kind text NOT NULL CHECK (kind IN ('songs', 'albums', 'curated_lists', 'artists', 'genres', 'labels', 'users')),
  row_key text NOT NULL,
  source text NOT NULL,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id()
);
CREATE INDEX change_due_order_idx ON change_due (due_at, kind, row_key);
CREATE INDEX change_due_source_idx ON change_due (source, due_at);
CREATE INDEX change_due_xid_idx ON change_due (xid, due_at, kind, row_key);

-- Due touches the running transaction deleted (a schedule moved or withdrawn), kept until it
-- commits: one whose time came meanwhile gets an immediate touch then (feed_withdrawn_at_commit).
-- Empty outside a transaction.
CREATE TABLE change_withdrawn (
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  due_at timestamp with time zone NOT NULL,
  kind text NOT NULL,
  row_key text NOT NULL,
  source text NOT NULL
);
CREATE INDEX change_withdrawn_xid_idx ON change_withdrawn (xid);

-- When the feed began (a reader without a cursor starts from the backfill and from this time), and
-- the secret its cursors are sealed under (src/Changes/CursorSeal.ts), kept here so that every
-- replica seals and opens them alike: 32 bytes from two random UUIDs (244 random bits, from
-- PostgreSQL's strong random source).
CREATE TABLE change_feed_origin (
  only_row boolean DEFAULT true PRIMARY KEY CHECK (only_row),
  started_at timestamp with time zone NOT NULL,
  cursor_key bytea NOT NULL
);
INSERT INTO change_feed_origin (started_at, cursor_key)
VALUES (clock_timestamp(), decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));

-- Known to be empty (rather than assumed ten pages long) until the first ANALYZE after a load.
ANALYZE change_log, change_due;

-- A due touch names the transaction that wrote it, so that a reader can tell one whose writer was
-- still running when the reader's horizon passed its time (docs/changes.md, "Scheduled rows"):
-- on a hot standby the primary's running transactions are not in pg_stat_activity, so the horizon
-- cannot wait for them, and such a touch is served afterwards by the late stream, in xid order.
ALTER TABLE change_due ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX change_due_xid_idx ON change_due (xid, due_at, kind, row_key);

-- Indexes no statement of the service reads any more (docs/query-plans.md, "Indexes nothing
-- reads"): search reads search_entries (sql/0015) and the member pages sql/0017's *_handle_idx.
-- Every non-HOT update of their tables rewrote them for nothing.
DROP INDEX songs_search_title_prefix;
DROP INDEX albums_search_title_prefix;
DROP INDEX artists_search_name_prefix;
DROP INDEX artists_search_full_name_prefix;
DROP INDEX members_search_name_prefix;
DROP INDEX members_search_username_prefix;
DROP INDEX albums_search_title_trgm;
DROP INDEX curated_lists_search_title_trgm;
DROP INDEX genres_search_title_trgm;
DROP INDEX members_public_joined_idx;
DROP INDEX members_public_name_idx;

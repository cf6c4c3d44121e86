-- The search table: every searchable name's tails with the kept popularity and public_from
-- (docs/search.md), and the kept one- and two-character name grams of artists and members.

-- One search hit of a kind's page: the row, its score and popularity, and its handle for ties.
CREATE TYPE search_kind_hit AS (id integer, score numeric, popularity bigint, handle text);

CREATE TABLE search_entries (
  kind smallint NOT NULL,
  id integer NOT NULL,
  tail text COLLATE "C" NOT NULL,
  whole boolean NOT NULL,
  popularity bigint NOT NULL,
  public_from timestamp with time zone,
  handle text,
  inner_tail text COLLATE "C" GENERATED ALWAYS AS (CASE WHEN whole THEN search_inner_words(tail) END) STORED
);
CREATE INDEX search_entries_tail_idx ON search_entries (kind, tail) INCLUDE (id, whole, popularity, public_from, handle);
CREATE INDEX search_entries_id_idx ON search_entries (kind, id);
CREATE INDEX search_entries_head1_idx ON search_entries (kind, "left"(tail, 1), popularity DESC, handle, id) INCLUDE (public_from) WHERE whole;
CREATE INDEX search_entries_head2_idx ON search_entries (kind, whole, "left"(tail, 2), popularity DESC, handle, id) INCLUDE (tail, public_from);
CREATE INDEX search_entries_songs_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE (whole AND (kind = 1));
CREATE INDEX search_entries_artists_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE (whole AND (kind = 2));
CREATE INDEX search_entries_albums_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE (whole AND (kind = 3));
CREATE INDEX search_entries_curated_lists_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE (whole AND (kind = 4));
CREATE INDEX search_entries_labels_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE (whole AND (kind = 5));
CREATE INDEX search_entries_genres_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE (whole AND (kind = 6));
CREATE INDEX search_entries_users_trgm ON search_entries USING gin (tail gin_trgm_ops) WHERE (whole AND (kind = 7));
CREATE INDEX search_entries_popular_idx ON search_entries (kind, popularity DESC, handle, id) INCLUDE (public_from) WHERE whole;
CREATE INDEX search_entries_songs_inner_trgm ON search_entries USING gin (search_inner_joined(inner_tail) gin_trgm_ops) WHERE (whole AND (kind = 1));
CREATE INDEX search_entries_artists_inner_trgm ON search_entries USING gin (search_inner_joined(inner_tail) gin_trgm_ops) WHERE (whole AND (kind = 2));
CREATE INDEX search_entries_albums_inner_trgm ON search_entries USING gin (search_inner_joined(inner_tail) gin_trgm_ops) WHERE (whole AND (kind = 3));
CREATE INDEX search_entries_curated_lists_inner_trgm ON search_entries USING gin (search_inner_joined(inner_tail) gin_trgm_ops) WHERE (whole AND (kind = 4));
CREATE INDEX search_entries_labels_inner_trgm ON search_entries USING gin (search_inner_joined(inner_tail) gin_trgm_ops) WHERE (whole AND (kind = 5));
CREATE INDEX search_entries_genres_inner_trgm ON search_entries USING gin (search_inner_joined(inner_tail) gin_trgm_ops) WHERE (whole AND (kind = 6));
CREATE INDEX search_entries_users_inner_trgm ON search_entries USING gin (search_inner_joined(inner_tail) gin_trgm_ops) WHERE (whole AND (kind = 7));

CREATE TABLE artist_name_grams (
  gram text COLLATE "C" NOT NULL,
  artist_id integer NOT NULL,
  PRIMARY KEY (gram, artist_id)
);

CREATE TABLE artist_name_gram_counts (
  gram text COLLATE "C" PRIMARY KEY,
  artists integer NOT NULL
);

CREATE TABLE member_name_grams (
  gram text COLLATE "C" NOT NULL,
  member_id integer NOT NULL,
  PRIMARY KEY (gram, member_id)
);

CREATE TABLE member_name_gram_counts (
  gram text COLLATE "C" PRIMARY KEY,
  members integer NOT NULL
);

-- Known to be empty (rather than assumed ten pages long) until the first ANALYZE after a load.
ANALYZE search_entries, artist_name_grams, artist_name_gram_counts, member_name_grams, member_name_gram_counts;

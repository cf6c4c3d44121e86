-- The kept counts, orders and lists (docs/data-model.md maps each to its sources, triggers and
-- recount; the triggers and recounts are in sql/definitions/3_counts.sql and 4_orders.sql).

CREATE TABLE member_contribution_counts (
  member_id integer PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
  live integer DEFAULT 0 NOT NULL
);

CREATE TABLE label_counts (
  label_id integer PRIMARY KEY REFERENCES labels(id) ON DELETE CASCADE,
  live_songs integer DEFAULT 0 NOT NULL,
  live_albums integer DEFAULT 0 NOT NULL
);

CREATE TABLE genre_counts (
  genre_id integer PRIMARY KEY REFERENCES genres(id) ON DELETE CASCADE,
  live_songs integer DEFAULT 0 NOT NULL
);

CREATE TABLE catalogue_counts (
  only_row boolean DEFAULT true PRIMARY KEY CHECK (only_row),
  live_songs bigint DEFAULT 0 NOT NULL,
  live_credits bigint DEFAULT 0 NOT NULL,
  live_artists bigint DEFAULT 0 NOT NULL,
  live_contributors bigint DEFAULT 0 NOT NULL
);
INSERT INTO catalogue_counts DEFAULT VALUES;

CREATE TABLE artist_counts (
  artist_id integer PRIMARY KEY REFERENCES artists(id) ON DELETE CASCADE,
  live_credits integer DEFAULT 0 NOT NULL,
  live_album_credits integer DEFAULT 0 NOT NULL
);
CREATE INDEX artist_counts_albums_only_idx ON artist_counts (artist_id) WHERE ((live_credits = 0) AND (live_album_credits > 0));

CREATE TABLE song_date_counts (
  released_at date PRIMARY KEY,
  live_songs integer DEFAULT 0 NOT NULL
);

-- The live songs that were scheduled (published_at in the future) when last written, with their
-- links, one small row each: what the public counts subtract is read from one short index range
-- here instead of probing the large link tables once per scheduled song (random reads: ~250 ms
-- with a cold cache on the 100k demo, ~1k scheduled songs). Rows whose published_at has passed
-- are ignored by the readers (published_at > now()) and removed at the next write.
CREATE TABLE scheduled_song_links (
  song_id integer PRIMARY KEY,
  published_at timestamp with time zone NOT NULL,
  released_at date NOT NULL,
  artist_ids integer[] NOT NULL,
  member_ids integer[] NOT NULL,
  genre_ids integer[] NOT NULL,
  label_ids integer[] NOT NULL
);
CREATE INDEX scheduled_song_links_published_idx ON scheduled_song_links (published_at);
CREATE INDEX scheduled_song_links_label_ids_idx ON scheduled_song_links USING gin (label_ids);
CREATE INDEX scheduled_song_links_genre_ids_idx ON scheduled_song_links USING gin (genre_ids);

CREATE TABLE album_type_counts (
  album_type text PRIMARY KEY,
  live_albums integer DEFAULT 0 NOT NULL
);

CREATE TABLE artist_song_counts (
  artist_id integer PRIMARY KEY REFERENCES artists(id) ON DELETE CASCADE,
  settled_songs integer DEFAULT 0 NOT NULL,
  name_key text NOT NULL,
  search_name text,
  search_full_name text
);
CREATE INDEX artist_song_counts_none_idx ON artist_song_counts (artist_id) WHERE (settled_songs = 0);
CREATE INDEX artist_song_counts_name_idx ON artist_song_counts (name_key, artist_id) INCLUDE (search_name, search_full_name) WHERE (settled_songs > 0);
CREATE INDEX artist_song_counts_rank_idx ON artist_song_counts (((- settled_songs)), artist_id) INCLUDE (settled_songs, search_name, search_full_name);
CREATE INDEX artist_song_counts_search_name_trgm ON artist_song_counts USING gin (search_name gin_trgm_ops) WHERE (settled_songs > 0);
CREATE INDEX artist_song_counts_search_full_name_trgm ON artist_song_counts USING gin (search_full_name gin_trgm_ops) WHERE (settled_songs > 0);

-- How many artists have settled songs (the list's total without reading every row).
CREATE TABLE artist_song_totals (
  only_row boolean DEFAULT true PRIMARY KEY CHECK (only_row),
  with_settled bigint DEFAULT 0 NOT NULL
);
INSERT INTO artist_song_totals DEFAULT VALUES;

CREATE TABLE member_settled_contributions (
  member_id integer PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
  settled integer DEFAULT 0 NOT NULL
);

-- How many members are public (a handle, not banned): /v1/users' total without filters, which
-- counted ~91k rows at 1M songs on each request.
CREATE TABLE public_member_total (
  only_row boolean DEFAULT true PRIMARY KEY CHECK (only_row),
  members bigint DEFAULT 0 NOT NULL,
  with_settled bigint DEFAULT 0 NOT NULL
);
INSERT INTO public_member_total (members, with_settled) VALUES (0, 0);

CREATE TABLE artist_role_song_counts (
  artist_id integer NOT NULL REFERENCES artists(id) ON DELETE CASCADE,
  role_id integer NOT NULL REFERENCES roles(id) ON DELETE CASCADE,
  settled_songs integer DEFAULT 0 NOT NULL,
  PRIMARY KEY (artist_id, role_id)
);

CREATE TABLE artist_tag_song_counts (
  artist_id integer NOT NULL REFERENCES artists(id) ON DELETE CASCADE,
  tag text NOT NULL,
  settled_songs integer DEFAULT 0 NOT NULL,
  PRIMARY KEY (artist_id, tag)
);

-- Every public member (member_is_public) with its handle and settled contribution
-- count: "most contributions first, then handle" is one index range, cursors included. The due
-- contributions are merged in by the reader.
CREATE TABLE member_contribution_ranks (
  member_id integer PRIMARY KEY REFERENCES members(id) ON DELETE CASCADE,
  handle text NOT NULL,
  settled integer NOT NULL,
  kind text,
  search_name text,
  search_username text
);
CREATE INDEX member_contribution_ranks_idx ON member_contribution_ranks (settled, handle) INCLUDE (member_id, kind, search_name, search_username);
CREATE INDEX member_contribution_ranks_handle_idx ON member_contribution_ranks (handle);

-- Settled songs per label and genre, keeps them per artist: live songs
-- (song_is_live) not listed in scheduled_song_links. Public = settled + due (listed, time passed).
CREATE TABLE label_song_counts (
  label_id integer PRIMARY KEY REFERENCES labels(id) ON DELETE CASCADE,
  settled_songs integer DEFAULT 0 NOT NULL
);

CREATE TABLE genre_song_counts (
  genre_id integer PRIMARY KEY REFERENCES genres(id) ON DELETE CASCADE,
  settled_songs integer DEFAULT 0 NOT NULL
);

-- The labelled albums that were scheduled (album_is_live, not album_is_public) when last
-- written, as scheduled_song_links lists songs: one small row each, so that the labels' public
-- album counts subtract a short read of this table instead of fetching every scheduled album from
-- the wide albums table (~3.7k albums, ~1.7k pages at 1M songs). Rows whose time has passed are
-- ignored by the readers and removed at the next write.
CREATE TABLE scheduled_label_albums (
  album_id integer PRIMARY KEY,
  label_id integer NOT NULL,
  published_at timestamp with time zone NOT NULL
);
CREATE INDEX scheduled_label_albums_label_idx ON scheduled_label_albums (label_id, published_at);

CREATE TABLE song_facet_counts (
  genre_id integer NOT NULL,
  label_id integer NOT NULL,
  year integer NOT NULL,
  live_songs integer DEFAULT 0 NOT NULL,
  PRIMARY KEY (genre_id, label_id, year)
);

-- released: released_at, id (songs_public_released_idx's key)
CREATE TABLE song_released_buckets (
  sort_key date NOT NULL,
  song_id integer NOT NULL,
  settled_songs integer DEFAULT 0 NOT NULL,
  PRIMARY KEY (sort_key, song_id)
);
INSERT INTO song_released_buckets (sort_key, song_id, settled_songs) VALUES ('-infinity', -2147483648, 0);

-- popular: coalesce(vidsvc_views, -1), id (songs_public_popular_idx's key)
CREATE TABLE song_popular_buckets (
  sort_key bigint NOT NULL,
  song_id integer NOT NULL,
  settled_songs integer DEFAULT 0 NOT NULL,
  PRIMARY KEY (sort_key, song_id)
);
INSERT INTO song_popular_buckets (sort_key, song_id, settled_songs) VALUES (-9223372036854775808, -2147483648, 0);

-- title: lower(title), id (songs_public_title_idx's key, the same collation)
CREATE TABLE song_title_buckets (
  sort_key text NOT NULL,
  song_id integer NOT NULL,
  settled_songs integer DEFAULT 0 NOT NULL,
  PRIMARY KEY (sort_key, song_id)
);
INSERT INTO song_title_buckets (sort_key, song_id, settled_songs) VALUES ('', -2147483648, 0);

CREATE TABLE artist_album_links (
  artist_id integer NOT NULL REFERENCES artists(id) ON DELETE CASCADE,
  album_id integer NOT NULL REFERENCES albums(id) ON DELETE CASCADE,
  released_key text NOT NULL,
  published_at timestamp with time zone NOT NULL,
  PRIMARY KEY (artist_id, album_id)
);
CREATE INDEX artist_album_links_order_idx ON artist_album_links (artist_id, released_key DESC, album_id DESC) INCLUDE (published_at);
CREATE INDEX artist_album_links_published_idx ON artist_album_links (artist_id, published_at);
CREATE INDEX artist_album_links_album_idx ON artist_album_links (album_id);

CREATE TABLE artist_album_counts (
  artist_id integer PRIMARY KEY REFERENCES artists(id) ON DELETE CASCADE,
  live_albums integer DEFAULT 0 NOT NULL
);

-- Public members of each kind (fan, artist, group): /v1/users?type=...'s exact total without
-- counting every member of the kind on each request (~15 ms for 85k fans at 1M songs), as
-- public_member_total does for all kinds.
CREATE TABLE public_member_kind_counts (
  kind text PRIMARY KEY,
  members bigint DEFAULT 0 NOT NULL
);

-- Every genre's and label's songs in each order of the song lists, with what the public rule
-- needs, so that a page of one owner's songs at any offset is an index-only range of its owner
-- (src/Queries/SongSorts.ts `ownSongSort`). Before, a genre's or label's deep page joined every
-- skipped link to its song for the public rule (genre=pop at offset 130,000 of 263k: 0.47 s at
-- 1M songs), and a genre's popular and title orders and a label's title order walked the whole
-- catalogue's index with a link probe a row (offset 10,000: 0.14-0.49 s).
--
-- A row for every link (song_genres: owner 'g', song_labels: 'l'), whatever the song's state:
-- `public_from` is the song's published_at while it is live, so the song is public
-- exactly when song_is_public(public_from, NULL) (the indexes hold no row without it).
-- The sort keys are those of the catalogue's sorts: released_at; coalesce(vidsvc_views, -1);
-- lower(title). No triggers of its own and no change
-- feed: a views refresh moves these rows only. Index-only needs the visibility map kept
-- (autovacuum; a server without it: VACUUM owner_song_orders after bulk writes, docs/operations.md).
CREATE TABLE owner_song_orders (
  owner "char" NOT NULL,
  owner_id integer NOT NULL,
  song_id integer NOT NULL,
  released_at date NOT NULL,
  views bigint NOT NULL,
  title_key text NOT NULL,
  public_from timestamp with time zone,
  per_day integer,
  PRIMARY KEY (song_id, owner, owner_id)
);
CREATE INDEX owner_song_orders_released_idx ON owner_song_orders (owner, owner_id, released_at, song_id) INCLUDE (public_from) WHERE (public_from IS NOT NULL);
CREATE INDEX owner_song_orders_popular_idx ON owner_song_orders (owner, owner_id, views, song_id) INCLUDE (public_from, released_at) WHERE (public_from IS NOT NULL);
CREATE INDEX owner_song_orders_title_idx ON owner_song_orders (owner, owner_id, title_key, song_id) INCLUDE (public_from, released_at) WHERE (public_from IS NOT NULL);
-- A genre's songs in the order of similar songs (src/Songs/Similar.ts): the first public entries
-- of the range are a group's candidates, read index-only.
CREATE INDEX owner_song_orders_genre_trending_idx ON owner_song_orders (owner_id, per_day DESC NULLS LAST, song_id DESC) INCLUDE (public_from) WHERE owner = 'g' AND public_from IS NOT NULL;

-- Every contribution in its member's order (newest first: action_at, id) with when its song is
-- public, so that a page of /v1/users/{username}/contributions at any offset is an index-only
-- range of the member's entries, walked from the nearer end (src/Users/Repo.ts). Before, the walk
-- read every skipped contribution and probed its song for the public rule from the start: the
-- busiest member at 1M songs (78,651 contributions) took 158 ms at offset 20,000 and ~0.5 s near
-- the end.
--
-- A row for every contribution, whatever its song's state: `public_from`'s
-- (song_order_values: the song's published_at while it is live), so the contribution is listed
-- exactly when song_is_public(public_from, NULL). Its own table with no triggers or feed of its
-- own,'s. Index-only needs the visibility map kept (autovacuum; without it, VACUUM
-- member_contribution_orders after bulk writes, docs/operations.md).
CREATE TABLE member_contribution_orders (
  id integer PRIMARY KEY,
  member_id integer NOT NULL,
  action_at timestamp with time zone NOT NULL,
  song_id integer NOT NULL,
  public_from timestamp with time zone
);
CREATE INDEX member_contribution_orders_walk_idx ON member_contribution_orders (member_id, action_at, id) INCLUDE (public_from) WHERE (public_from IS NOT NULL);
CREATE INDEX member_contribution_orders_song_idx ON member_contribution_orders (song_id);

-- Every artist's songs newest first, with what the public rule and the role filter need, so that
-- a page of /v1/artists/{id}/songs in any role at any offset is an index-only range of the
-- artist's entries walked from the nearer end (src/Artists/Repo.ts). Before, a page walked the
-- catalogue's release index with a credit test per entry, or collected the artist's songs and
-- sorted them: the most credited artists at 1M songs (27k-47k songs) took 65-130 ms in the middle
-- of their songs and up to 250 ms for the last page.
--
-- A row per artist and song they are credited on (any role), whatever the song's state:
-- `released_at` and `public_from` as (song_order_values), and whether one of the
-- artist's credits on the song has the tag `performer` or `writer` (the `role` filter). No
-- triggers or feed of its own. Index-only needs the visibility map kept (autovacuum; without it,
-- VACUUM artist_song_orders after bulk writes, docs/operations.md).
CREATE TABLE artist_song_orders (
  song_id integer NOT NULL,
  artist_id integer NOT NULL,
  released_at date NOT NULL,
  public_from timestamp with time zone,
  performer boolean NOT NULL,
  writer boolean NOT NULL,
  per_day integer,
  PRIMARY KEY (song_id, artist_id)
);
CREATE INDEX artist_song_orders_walk_idx ON artist_song_orders (artist_id, released_at, song_id) INCLUDE (public_from, performer, writer) WHERE (public_from IS NOT NULL);
-- A performer's songs, and a writer's with those they also perform apart (a singer-songwriter's
-- written songs performed by him are one range, skipped whole when he performs the song asked
-- about), in the order of similar songs: `per_day` is the song's vidsvc_views_per_day.
CREATE INDEX artist_song_orders_performed_idx ON artist_song_orders (artist_id, per_day DESC NULLS LAST, song_id DESC) INCLUDE (public_from) WHERE performer AND public_from IS NOT NULL;
CREATE INDEX artist_song_orders_written_idx ON artist_song_orders (artist_id, performer, per_day DESC NULLS LAST, song_id DESC) INCLUDE (public_from) WHERE writer AND public_from IS NOT NULL;

-- Search (docs/search.md): one row per searchable row with its words by field, the rows' postings
-- in the order of the ranking, the words the catalogue holds with their deletion variants (typos)
-- and Tamil phonetic keys,
-- and the kept one- and two-character name grams of artists and members.

-- One term of a query: the query word's number, a word it matches, the edits between them,
-- whether the word is read as a prefix (the last word typed), and whether it is another spelling
-- of the query word (docs/search.md, "Other spellings").
CREATE TYPE search_term AS (grp smallint, word text, edits smallint, prefix boolean, form boolean);

-- kind: the type's place in the order of /v1/search's types (1 songs ... 7 users).
-- Fields: title_words the title or name; other_words the performers with their honorifics
-- (songs), the honorific (artists), the former name (labels), the handle (users); album_words the
-- titles of the song's live albums, which count once album_from has passed. title_text: the title's
-- words in order (search_phrase), for the title that begins with the query as typed; title_key: the
-- same words each as its Tamil phonetic key (search_phrase_key), for a title that begins with it in
-- another script.
CREATE TABLE search_docs (
  kind smallint NOT NULL,
  id integer NOT NULL,
  title_words text[] NOT NULL,
  other_words text[] NOT NULL,
  album_words text[] NOT NULL,
  album_from timestamp with time zone,
  title_text text COLLATE "C" NOT NULL,
  title_key text COLLATE "C" NOT NULL,
  popularity bigint NOT NULL,
  public_from timestamp with time zone,
  handle text,
  lexemes tsvector NOT NULL GENERATED ALWAYS AS (search_lexemes(kind, title_words, other_words, album_words)) STORED,
  PRIMARY KEY (kind, id)
);
CREATE INDEX search_docs_lexemes_idx ON search_docs USING gin (lexemes);
CREATE INDEX search_docs_title_idx ON search_docs (kind, title_text) INCLUDE (popularity);

-- One row per word and field of a search row; `begins` when the title begins with the word, `whole`
-- when the word is the whole title.
CREATE TABLE search_postings (
  kind smallint NOT NULL,
  word text COLLATE "C" NOT NULL,
  field smallint NOT NULL,
  begins boolean NOT NULL,
  whole boolean NOT NULL,
  popularity bigint NOT NULL,
  handle text,
  id integer NOT NULL,
  public_from timestamp with time zone
);
CREATE INDEX search_postings_rank_idx ON search_postings (kind, word, field, begins DESC, whole DESC, popularity DESC, handle, id) INCLUDE (public_from);
CREATE INDEX search_postings_row_idx ON search_postings (kind, id);

-- Every word a search row has held (never removed: a word no row holds any more matches nothing).
CREATE TABLE search_words (word text COLLATE "C" PRIMARY KEY);

-- The strings each known word becomes with letters deleted (search_typo_reach of them).
CREATE TABLE search_word_variants (
  variant text COLLATE "C" NOT NULL,
  word text COLLATE "C" NOT NULL,
  deletions smallint NOT NULL,
  PRIMARY KEY (variant, word)
);

-- The Tamil phonetic key (search_tamil_key) of every known word in Latin letters or Tamil script:
-- a query word finds the words of the other script with its key.
CREATE TABLE search_word_keys (
  key text COLLATE "C" NOT NULL,
  word text COLLATE "C" NOT NULL,
  PRIMARY KEY (key, word)
);

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
ANALYZE search_docs, search_postings, search_words, search_word_variants, search_word_keys, artist_name_grams, artist_name_gram_counts, member_name_grams, member_name_gram_counts;

-- Search (docs/search.md), read top-down, each part built from the ones above it:
-- - a name's words in order, and their other spellings (Malay short forms, Han readings, a Tamil key);
-- - the search tables (sql/schema/4_search.sql): their rows written from the catalogue by
--   search_sources, kept by row and count triggers, refilled whole by refill_search (the seed);
-- - a query: its terms, and each kind's ranked page for /v1/search;
-- - the kept one- and two-character name grams that answer the lists' short name filters
--   (refilled by refill_artist_name_grams and refill_member_name_grams).
-- refill: refill_search, refill_artist_name_grams, refill_member_name_grams
-- refill empties first: search_docs, search_postings

-- ---- A name's words in order ------------------------------------------------------------------

-- A folded name's words in order, each Han, kana or hangul character a word: the text the query's
-- words as typed are compared with (the title beginning with the query).
CREATE OR REPLACE FUNCTION search_phrase(folded text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN coalesce(btrim(regexp_replace(search_spaced(folded), ' +', ' ', 'g')), '');

-- How many words a title has in order (search_phrase), a repeated word each time: the query
-- covers the title when it found as many ("夜海远" covers 夜海远, not 夜海远夜夜). One expression: inlined.
CREATE OR REPLACE FUNCTION search_title_size(title_text text) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN cardinality(string_to_array(title_text, ' '));

-- ---- Other spellings (docs/search.md, "Other spellings"): Malay short forms, Han characters by
-- pinyin, Tamil by a phonetic key. A query word matches them as a form: no edit, ranked below the word as typed.

-- The common texting forms of Malay words: a short form and a word it stands for (both ways).
CREATE OR REPLACE FUNCTION search_short_forms() RETURNS TABLE(short text, word text) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  VALUES ('x', 'tak'), ('x', 'tidak'), ('tak', 'tidak'), ('xkan', 'takkan'), ('xde', 'takde'), ('xde', 'tiada'),
    ('takde', 'tiada'), ('yg', 'yang'), ('utk', 'untuk'), ('dgn', 'dengan'), ('ngan', 'dengan'), ('sy', 'saya'),
    ('ak', 'aku'), ('aq', 'aku'), ('ko', 'kau'), ('ko', 'engkau'), ('kau', 'engkau'), ('lg', 'lagi'),
    ('jgn', 'jangan'), ('tp', 'tapi'), ('sgt', 'sangat'), ('dlm', 'dalam'), ('pd', 'pada'), ('kpd', 'kepada'),
    ('org', 'orang'), ('blh', 'boleh'), ('mcm', 'macam'), ('sbb', 'sebab'), ('bkn', 'bukan'),
    ('skrg', 'sekarang'), ('tu', 'itu'), ('ni', 'ini'), ('je', 'sahaja'), ('je', 'saja'), ('saja', 'sahaja'),
    ('nk', 'nak'), ('nk', 'hendak'), ('nak', 'hendak'), ('dh', 'dah'), ('dah', 'sudah'), ('dr', 'dari'),
    ('drpd', 'daripada'), ('blm', 'belum'), ('kt', 'kat'), ('kat', 'dekat'), ('mmg', 'memang'), ('hr', 'hari'),
    ('thn', 'tahun'), ('kwn', 'kawan'), ('ckp', 'cakap'), ('tgk', 'tengok'), ('tau', 'tahu'), ('byk', 'banyak'),
    ('bnyk', 'banyak'), ('sume', 'semua'), ('smua', 'semua'), ('sll', 'selalu'), ('slalu', 'selalu'),
    ('sbg', 'sebagai'), ('trs', 'terus'), ('knp', 'kenapa'), ('npe', 'kenapa'), ('sape', 'siapa'),
    ('mne', 'mana'), ('bg', 'bagi'), ('jd', 'jadi'), ('gak', 'juga'), ('jugak', 'juga'), ('kn', 'kan'),
    ('sj', 'saja'), ('bt', 'buat'), ('wat', 'buat'), ('lps', 'lepas'), ('hny', 'hanya'), ('cntik', 'cantik')
$$;

-- A word search holds in another spelling: a Han character's reading, readings joined, marked by a
-- leading '~' (which no query word holds: folding makes it a space).
CREATE OR REPLACE FUNCTION search_is_form(word text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN word ^@ '~';

-- The pinyin of a folded name's Han characters, each a form: each character's readings, and the
-- readings of each run of two to four characters in a row joined (with each character's two
-- commonest readings), so "yue liang", "yueliang" and, typing, "yue li" find 月亮.
CREATE OR REPLACE FUNCTION search_han_forms(folded text) RETURNS text[] LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  RETURN ARRAY(
    WITH RECURSIVE r AS MATERIALIZED (
      SELECT u.at, h.reading, h.rank FROM unnest(string_to_array(search_phrase(folded), ' ')) WITH ORDINALITY u(w, at)
      JOIN search_han_readings h ON h.han = u.w),
    joined(first, last, form) AS (
      SELECT r.at, r.at, r.reading FROM r WHERE r.rank <= 2
      UNION ALL
      SELECT j.first, r.at, j.form || r.reading FROM joined j JOIN r ON r.at = j.last + 1 AND r.rank <= 2
      WHERE j.last - j.first < 3)
    SELECT '~' || r.reading FROM r
    UNION
    SELECT '~' || j.form FROM joined j WHERE j.last > j.first);
END $$;

-- The forms of a Han title (search_han_forms) that begin it: its first character's readings and the
-- joined readings of runs from it, each with whether it covers the whole title (a title of one word
-- in pinyin: "aide" begins and covers 爱的). `phrase`: the title's words in order (search_phrase).
CREATE OR REPLACE FUNCTION search_han_leading_forms(phrase text) RETURNS TABLE(form text, whole boolean) LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  words integer := cardinality(string_to_array(phrase, ' '));
BEGIN
  RETURN QUERY
    WITH RECURSIVE r AS MATERIALIZED (
      SELECT u.at, h.reading, h.rank FROM unnest((string_to_array(phrase, ' '))[1:4]) WITH ORDINALITY u(w, at)
      JOIN search_han_readings h ON h.han = u.w),
    joined(last, form) AS (
      SELECT r.at, r.reading FROM r WHERE r.at = 1 AND r.rank <= 2
      UNION ALL
      SELECT r.at, j.form || r.reading FROM joined j JOIN r ON r.at = j.last + 1 AND r.rank <= 2)
    SELECT '~' || x.form, bool_or(x.last = words) FROM (
      SELECT r.at AS last, r.reading AS form FROM r WHERE r.at = 1
      UNION ALL
      SELECT j.last, j.form FROM joined j WHERE j.last > 1) x
    GROUP BY x.form;
END $$;

-- A Tamil word's letters in Latin, one way of many (the phonetic key folds the others): each
-- consonant with its vowel sign, or its inherent a unless a virama (்) ends it; ற்ற as tr, as it is
-- said, and ன்ற as nr (typed nr or ndr).
CREATE OR REPLACE FUNCTION search_tamil_latin(word text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN (
    SELECT replace(replace(replace(string_agg(coalesce(m.latin, c.ch), '' ORDER BY c.at), '@#', ''), '@', 'a'), '#', '')
    FROM regexp_split_to_table(replace(replace(word, 'ற்ற', 'ட்ர'), 'ன்ற', 'ன்ர'), '') WITH ORDINALITY c(ch, at)
    LEFT JOIN (VALUES
      ('அ', 'a'), ('ஆ', 'a'), ('இ', 'i'), ('ஈ', 'i'), ('உ', 'u'), ('ஊ', 'u'), ('எ', 'e'), ('ஏ', 'e'), ('ஐ', 'ai'),
      ('ஒ', 'o'), ('ஓ', 'o'), ('ஔ', 'au'), ('ஃ', ''),
      ('க', 'k@'), ('ங', 'n@'), ('ச', 'c@'), ('ஞ', 'n@'), ('ட', 't@'), ('ண', 'n@'), ('த', 't@'), ('ந', 'n@'),
      ('ப', 'p@'), ('ம', 'm@'), ('ய', 'y@'), ('ர', 'r@'), ('ல', 'l@'), ('வ', 'v@'), ('ழ', 'zh@'), ('ள', 'l@'),
      ('ற', 'r@'), ('ன', 'n@'), ('ஜ', 'j@'), ('ஷ', 'sh@'), ('ஸ', 's@'), ('ஹ', 'h@'), ('ஶ', 'sh@'),
      ('ா', '#a'), ('ி', '#i'), ('ீ', '#i'), ('ு', '#u'), ('ூ', '#u'), ('ெ', '#e'), ('ே', '#e'), ('ை', '#ai'),
      ('ொ', '#o'), ('ோ', '#o'), ('ௌ', '#au'), ('்', '#')) m(tamil, latin) ON m.tamil = c.ch);
END $$;

-- The phonetic key of a word in Latin letters, as Tamil is spelled in them: zh as l; an h after
-- k g t d p b s c dropped (th, dh, ch...); ae as e, ee as i, oo as u, ndr as nr; g h q as k, d as t, b f as p,
-- c j x as s, z as l, w as v; then any letter repeated once (vowel length, doubled consonants).
CREATE OR REPLACE FUNCTION search_latin_key(word text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN regexp_replace(translate(
    regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(regexp_replace(word,
      'zh', 'l', 'g'), '([kgtdpbsc])h', '\1', 'g'), 'ae', 'e', 'g'), 'ee', 'i', 'g'), 'oo', 'u', 'g'), 'ndr', 'nr', 'g'),
    'ghqdbfcjxzw', 'kkktppssslv'), '(.)\1+', '\1', 'g');

-- A word's Tamil phonetic key: of its Latin letters, or of its Tamil letters read in Latin; NULL for
-- a word in neither (digits, another script).
CREATE OR REPLACE FUNCTION search_tamil_key(word text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN word ~ '^[a-z]+$' THEN search_latin_key(word)
              WHEN word ~ '^[\u0b80-\u0bff]+$' THEN search_latin_key(search_tamil_latin(word)) END;

-- A phrase's words (search_phrase) each as its Tamil phonetic key, a word with none as it is: the
-- text a Tamil title and its Latin spelling, or a Latin title and its Tamil spelling, share.
-- A loop of simple expressions, not a query: every search row written computes it (a quarter of
-- the time of the same as one SELECT).
CREATE OR REPLACE FUNCTION search_phrase_key(phrase text) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  w text;
  keys text[] := '{}';
BEGIN
  FOREACH w IN ARRAY string_to_array(phrase, ' ') LOOP
    keys := keys || coalesce(search_tamil_key(w), w);
  END LOOP;
  RETURN array_to_string(keys, ' ');
END $$;

-- The words search keeps of a folded name (search_split), then their forms (the pinyin of its Han
-- characters): a field's words come before its forms.
CREATE OR REPLACE FUNCTION search_words_of(folded text) RETURNS text[] LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
BEGIN
  IF folded ~ '[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f]' THEN
    RETURN search_split(folded) || ARRAY(SELECT f FROM unnest(search_han_forms(folded)) f ORDER BY f);
  END IF;
  RETURN search_split(folded);
END $$;

-- ---- The search tables: their rows from the catalogue, kept by row and count triggers ---------

-- Every searchable row's names by field, from the catalogue (live rows only; docs/search.md).
CREATE OR REPLACE VIEW search_sources AS
  SELECT search_kind('songs') AS kind, s.id, search_words_of(s.search_title) AS title_words,
         ARRAY(SELECT DISTINCT w FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
               JOIN artists a ON a.id = c.artist_id
               CROSS JOIN LATERAL unnest(search_words_of(a.search_full_name)) w
               WHERE c.song_id = s.id ORDER BY w) AS other_words,
         coalesce(al.words, '{}') AS album_words, al.public_from AS album_from, search_phrase(s.search_title) AS title_text,
         coalesce(s.vidsvc_views, 0)::bigint AS popularity, s.published_at AS public_from, NULL::text AS handle
  FROM songs s
  LEFT JOIN LATERAL (
    SELECT ARRAY(SELECT DISTINCT w FROM unnest(array_agg(x.search_title)) t CROSS JOIN LATERAL unnest(search_words_of(t)) w ORDER BY w) AS words,
           max(x.published_at) AS public_from
    FROM album_tracks tr JOIN albums x ON x.id = tr.album_id
    WHERE tr.song_id = s.id AND album_is_live(x.published_at)
    HAVING count(*) > 0) al ON true
  WHERE song_is_live(s.published_at, s.deleted_at)
  UNION ALL
  SELECT search_kind('artists'), a.id, search_words_of(a.search_name), search_words_of(fold_name(a.prefix_title)), '{}', NULL, search_phrase(a.search_name),
         coalesce((SELECT ac.live_credits FROM artist_counts ac WHERE ac.artist_id = a.id), 0)::bigint,
         CASE WHEN (SELECT c.settled_songs FROM artist_song_counts c WHERE c.artist_id = a.id) > 0
              THEN '-infinity'::timestamptz END,
         NULL
  FROM artists a
  UNION ALL
  SELECT search_kind('albums'), al.id, search_words_of(al.search_title), '{}', '{}', NULL, search_phrase(al.search_title),
         (SELECT count(*) FROM album_tracks t JOIN songs ts ON ts.id = t.song_id
          WHERE t.album_id = al.id AND song_is_live(ts.published_at, ts.deleted_at)),
         al.published_at, NULL
  FROM albums al WHERE album_is_live(al.published_at)
  UNION ALL
  SELECT search_kind('curated_lists'), l.id, search_words_of(l.search_title), '{}', '{}', NULL, search_phrase(l.search_title),
         CASE WHEN l.content_type = 'songs'
           THEN (SELECT count(*) FROM curated_list_songs e JOIN songs es ON es.id = e.song_id
                 WHERE e.list_id = l.id AND song_is_live(es.published_at, es.deleted_at))
           ELSE (SELECT count(*) FROM curated_list_albums e JOIN albums ea ON ea.id = e.album_id
                 WHERE e.list_id = l.id AND album_is_live(ea.published_at))
         END,
         l.published_at, NULL
  FROM curated_lists l WHERE curated_list_is_live(l.published_at)
  UNION ALL
  SELECT search_kind('labels'), lb.id, search_words_of(lb.search_name), search_words_of(lb.search_former_name), '{}', NULL, search_phrase(lb.search_name),
         coalesce((SELECT lc.live_songs FROM label_counts lc WHERE lc.label_id = lb.id), 0)::bigint,
         '-infinity'::timestamptz, NULL
  FROM labels lb
  UNION ALL
  SELECT search_kind('genres'), g.id, search_words_of(g.search_title), '{}', '{}', NULL, search_phrase(g.search_title),
         coalesce((SELECT gc.live_songs FROM genre_counts gc WHERE gc.genre_id = g.id), 0)::bigint,
         '-infinity'::timestamptz, NULL
  FROM genres g
  UNION ALL
  SELECT search_kind('users'), m.id, search_words_of(m.search_name), search_words_of(m.search_username), '{}', NULL, search_phrase(m.search_name),
         coalesce((SELECT mc.live FROM member_contribution_counts mc WHERE mc.member_id = m.id), 0)::bigint,
         '-infinity'::timestamptz, lower(m.username)
  FROM members m WHERE member_is_public(m.username, m.is_banned);

-- A row's postings: one per word and field; an album's words count from album_from. The title is
-- one word when its second word is none or a form (search_words_of); it begins with a word that is
-- its first, and with a form that reads its first characters (search_han_leading_forms), which
-- counts as the whole title when it reads them all.
DROP FUNCTION IF EXISTS search_doc_postings(smallint, integer, text[], text[], text[], timestamp with time zone, bigint, timestamp with time zone, text);
CREATE OR REPLACE FUNCTION search_doc_postings(kind smallint, id integer, title_words text[], other_words text[], album_words text[], album_from timestamp with time zone, title_text text, popularity bigint, public_from timestamp with time zone, handle text) RETURNS SETOF search_postings LANGUAGE sql STABLE AS $$
  SELECT kind, w, 1::smallint,
         t.one_word OR CASE WHEN search_is_form(w) THEN w = ANY (h.leading) ELSE title_text ^@ (w || ' ') END,
         t.one_word OR (search_is_form(w) AND w = ANY (h.covering)),
         popularity, handle, id, public_from
  FROM (SELECT coalesce(search_is_form(title_words[2]), true) AS one_word,
               coalesce(search_is_form(title_words[cardinality(title_words)]), false) AS has_forms) t
  CROSS JOIN LATERAL (SELECT coalesce(array_agg(l.form), '{}') AS leading, coalesce(array_agg(l.form) FILTER (WHERE l.whole), '{}') AS covering
                      FROM search_han_leading_forms(title_text) l WHERE t.has_forms) h
  CROSS JOIN unnest(title_words) w
  UNION ALL
  SELECT kind, w, 2::smallint, false, false, popularity, handle, id, public_from FROM unnest(other_words) w
  UNION ALL
  SELECT kind, w, 3::smallint, false, false, popularity, handle, id, greatest(public_from, album_from) FROM unnest(album_words) w
$$;

-- Every string a word becomes with up to `most` letters deleted, with the fewest deletions that make it.
CREATE OR REPLACE FUNCTION search_word_deletions(word text, most integer) RETURNS TABLE(variant text, deletions smallint) LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  WITH RECURSIVE d(variant, deletions) AS (
    SELECT word, 0
    UNION
    SELECT left(d.variant, i - 1) || substr(d.variant, i + 1), d.deletions + 1
    FROM d CROSS JOIN LATERAL generate_series(1, length(d.variant)) i
    WHERE d.deletions < most AND length(d.variant) > 1)
  SELECT d.variant, min(d.deletions)::smallint FROM d GROUP BY d.variant
$$;

-- How far a word reaches for typos: the deletions kept of a known word and tried of a query word.
-- Two words one edit apart are both 3+ letters long, two edits apart both 6+ (search_typo_allowance).
-- A number has no typos: a digit off is another number.
CREATE OR REPLACE FUNCTION search_typo_reach(word text) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN word !~ '[^[:digit:]]' THEN 0 WHEN length(word) >= 6 THEN 2 WHEN length(word) >= 3 THEN 1 ELSE 0 END;

-- The edits allowed between a query word and a known word, by the longer of the two (the word
-- typed or the word meant): one for 4-7 letters, two for 8 or more.
CREATE OR REPLACE FUNCTION search_typo_allowance(longer integer) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN CASE WHEN longer >= 8 THEN 2 WHEN longer >= 4 THEN 1 ELSE 0 END;

-- Optimal string alignment distance (Damerau: a swap of two neighbours is one edit), or most + 1 when further.
CREATE OR REPLACE FUNCTION search_typo_distance(a text, b text, most integer) RETURNS integer LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  la integer := length(a);
  lb integer := length(b);
  before integer[];
  prev integer[];
  cur integer[];
  cost integer;
  best integer;
BEGIN
  IF abs(la - lb) > most THEN RETURN most + 1; END IF;
  prev := array_fill(0, ARRAY[lb + 1], ARRAY[0]);
  FOR j IN 0..lb LOOP prev[j] := j; END LOOP;
  FOR i IN 1..la LOOP
    cur := array_fill(0, ARRAY[lb + 1], ARRAY[0]);
    cur[0] := i;
    best := i;
    FOR j IN 1..lb LOOP
      cost := CASE WHEN substr(a, i, 1) = substr(b, j, 1) THEN 0 ELSE 1 END;
      cur[j] := least(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      IF i > 1 AND j > 1 AND substr(a, i, 1) = substr(b, j - 1, 1) AND substr(a, i - 1, 1) = substr(b, j, 1) THEN
        cur[j] := least(cur[j], before[j - 2] + 1);
      END IF;
      best := least(best, cur[j]);
    END LOOP;
    IF best > most THEN RETURN most + 1; END IF;
    before := prev;
    prev := cur;
  END LOOP;
  RETURN least(prev[lb], most + 1);
END $$;

-- Rewrites some rows' search rows and postings, and adds the words not known yet with their variants.
-- Planned for each call's ids (force_custom_plan): a generic plan of search_sources guessed ten ids
-- and could walk a partial index of songs testing each row against the array (seconds for an
-- import of 11,000 songs); planned for the ids, each arm reads its primary key.
CREATE OR REPLACE FUNCTION refresh_search_docs(doc_kind smallint, ids integer[]) RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_custom_plan
  AS $$
BEGIN
  DELETE FROM search_docs WHERE kind = doc_kind AND id = ANY(ids);
  DELETE FROM search_postings WHERE kind = doc_kind AND id = ANY(ids);
  WITH came AS (
    INSERT INTO search_docs (kind, id, title_words, other_words, album_words, album_from, title_text, title_key, popularity, public_from, handle)
    SELECT s.kind, s.id, s.title_words, s.other_words, s.album_words, s.album_from, s.title_text, search_phrase_key(s.title_text), s.popularity, s.public_from, s.handle
    FROM search_sources s WHERE s.kind = doc_kind AND s.id = ANY(ids)
    RETURNING kind, id, title_words, other_words, album_words, album_from, title_text, popularity, public_from, handle),
  posted AS (
    INSERT INTO search_postings
    SELECT p.* FROM came d
    CROSS JOIN LATERAL search_doc_postings(d.kind, d.id, d.title_words, d.other_words, d.album_words, d.album_from, d.title_text, d.popularity, d.public_from, d.handle) p
    RETURNING word),
  known AS (
    INSERT INTO search_words (word) SELECT DISTINCT p.word FROM posted p WHERE NOT search_is_form(p.word)
    ON CONFLICT DO NOTHING RETURNING word),
  keyed AS (
    INSERT INTO search_word_keys (key, word) SELECT search_tamil_key(k.word), k.word FROM known k WHERE search_tamil_key(k.word) IS NOT NULL
    ON CONFLICT DO NOTHING)
  INSERT INTO search_word_variants (variant, word, deletions)
  SELECT v.variant, k.word, v.deletions FROM known k CROSS JOIN LATERAL search_word_deletions(k.word, search_typo_reach(k.word)) v
  ON CONFLICT DO NOTHING;
END $$;

-- Refreshes the popularity and public_from of some rows of one kind, in their rows and postings.
-- The source is read by key too (`s.id = ANY (ids)`, which each arm of search_sources takes to its
-- primary key): named on search_docs only, the generic plan would read every row of the kind.
CREATE OR REPLACE FUNCTION refresh_search_popularity(doc_kind smallint, ids integer[]) RETURNS void LANGUAGE plpgsql
  SET plan_cache_mode = force_generic_plan
  AS $$
BEGIN
  WITH moved AS (
    UPDATE search_docs d SET popularity = s.popularity, public_from = s.public_from
    FROM search_sources s
    WHERE d.kind = doc_kind AND d.id = ANY(ids) AND s.kind = doc_kind AND s.id = ANY(ids) AND s.id = d.id
      AND (d.popularity, d.public_from) IS DISTINCT FROM (s.popularity, s.public_from)
    RETURNING d.id, d.popularity, d.public_from, d.album_from)
  UPDATE search_postings p
  SET popularity = m.popularity,
      public_from = CASE WHEN p.field = 3 THEN greatest(m.public_from, m.album_from) ELSE m.public_from END
  FROM moved m WHERE p.kind = doc_kind AND p.id = m.id;
END $$;

CREATE OR REPLACE FUNCTION search_docs_rows_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM refresh_search_docs(search_kind(TG_ARGV[0]), ARRAY(SELECT n.id FROM new_rows n));
  ELSE
    PERFORM refresh_search_docs(search_kind(TG_ARGV[0]), ARRAY(SELECT o.id FROM old_rows o));
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER albums_search_delete AFTER DELETE ON albums REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_docs_rows_trigger('albums');
CREATE OR REPLACE TRIGGER albums_search_insert AFTER INSERT ON albums REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_docs_rows_trigger('albums');
CREATE OR REPLACE TRIGGER artists_search_delete AFTER DELETE ON artists REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_docs_rows_trigger('artists');
CREATE OR REPLACE TRIGGER artists_search_insert AFTER INSERT ON artists REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_docs_rows_trigger('artists');
CREATE OR REPLACE TRIGGER curated_lists_search_delete AFTER DELETE ON curated_lists REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_docs_rows_trigger('curated_lists');
CREATE OR REPLACE TRIGGER curated_lists_search_insert AFTER INSERT ON curated_lists REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_docs_rows_trigger('curated_lists');
CREATE OR REPLACE TRIGGER genres_search_delete AFTER DELETE ON genres REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_docs_rows_trigger('genres');
CREATE OR REPLACE TRIGGER genres_search_insert AFTER INSERT ON genres REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_docs_rows_trigger('genres');
CREATE OR REPLACE TRIGGER labels_search_delete AFTER DELETE ON labels REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_docs_rows_trigger('labels');
CREATE OR REPLACE TRIGGER labels_search_insert AFTER INSERT ON labels REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_docs_rows_trigger('labels');
CREATE OR REPLACE TRIGGER members_search_delete AFTER DELETE ON members REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_docs_rows_trigger('users');
CREATE OR REPLACE TRIGGER members_search_insert AFTER INSERT ON members REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_docs_rows_trigger('users');
CREATE OR REPLACE TRIGGER songs_search_delete AFTER DELETE ON songs REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_docs_rows_trigger('songs');
CREATE OR REPLACE TRIGGER songs_search_insert AFTER INSERT ON songs REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_docs_rows_trigger('songs');

-- Triggers. Searchable rows: inserts and deletes per statement (an import writes many rows at
-- once), updates per row (only a name, visibility or popularity column moves them; PostgreSQL
-- allows no column list with transition tables). The seed switches them off and calls
-- refill_search once. TG_ARGV[0] is the type.
CREATE OR REPLACE FUNCTION search_docs_refresh_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  PERFORM refresh_search_docs(search_kind(TG_ARGV[0]), ARRAY[OLD.id, NEW.id]);
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER albums_search_update AFTER UPDATE OF id, title, published_at ON albums FOR EACH ROW EXECUTE FUNCTION search_docs_refresh_trigger('albums');
CREATE OR REPLACE TRIGGER artists_search_update AFTER UPDATE OF id, name, prefix_title ON artists FOR EACH ROW EXECUTE FUNCTION search_docs_refresh_trigger('artists');
CREATE OR REPLACE TRIGGER curated_lists_search_update AFTER UPDATE OF id, title, published_at, content_type ON curated_lists FOR EACH ROW EXECUTE FUNCTION search_docs_refresh_trigger('curated_lists');
CREATE OR REPLACE TRIGGER genres_search_update AFTER UPDATE OF id, title ON genres FOR EACH ROW EXECUTE FUNCTION search_docs_refresh_trigger('genres');
CREATE OR REPLACE TRIGGER labels_search_update AFTER UPDATE OF id, name, formerly_known_as ON labels FOR EACH ROW EXECUTE FUNCTION search_docs_refresh_trigger('labels');
CREATE OR REPLACE TRIGGER members_search_update AFTER UPDATE OF id, name, username, is_banned ON members FOR EACH ROW EXECUTE FUNCTION search_docs_refresh_trigger('users');
CREATE OR REPLACE TRIGGER songs_search_update AFTER UPDATE OF id, title, published_at, deleted_at ON songs FOR EACH ROW EXECUTE FUNCTION search_docs_refresh_trigger('songs');

-- A song's row holds its performers' names and its album's titles: credits and album tracks
-- (per statement, an import writes many), an artist's names and an album's title or publication
-- rewrite the songs they name.
CREATE OR REPLACE FUNCTION search_song_links_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM refresh_search_docs(search_kind('songs'), ARRAY(SELECT DISTINCT n.song_id FROM new_rows n));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM refresh_search_docs(search_kind('songs'), ARRAY(SELECT DISTINCT o.song_id FROM old_rows o));
  ELSE
    PERFORM refresh_search_docs(search_kind('songs'), ARRAY(SELECT n.song_id FROM new_rows n UNION SELECT o.song_id FROM old_rows o));
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER credits_search_delete AFTER DELETE ON credits REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_song_links_trigger();
CREATE OR REPLACE TRIGGER credits_search_insert AFTER INSERT ON credits REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_song_links_trigger();
CREATE OR REPLACE TRIGGER credits_search_update AFTER UPDATE ON credits REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_song_links_trigger();
CREATE OR REPLACE TRIGGER album_tracks_search_delete AFTER DELETE ON album_tracks REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_song_links_trigger();
CREATE OR REPLACE TRIGGER album_tracks_search_insert AFTER INSERT ON album_tracks REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_song_links_trigger();
CREATE OR REPLACE TRIGGER album_tracks_search_update AFTER UPDATE ON album_tracks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_song_links_trigger();

CREATE OR REPLACE FUNCTION search_song_names_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  IF TG_TABLE_NAME = 'artists' THEN
    PERFORM refresh_search_docs(search_kind('songs'), ARRAY(SELECT c.song_id FROM credits c WHERE c.artist_id = NEW.id));
  ELSE
    PERFORM refresh_search_docs(search_kind('songs'), ARRAY(SELECT t.song_id FROM album_tracks t WHERE t.album_id = NEW.id));
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER artists_search_song AFTER UPDATE OF name, prefix_title ON artists FOR EACH ROW EXECUTE FUNCTION search_song_names_trigger();
CREATE OR REPLACE TRIGGER albums_search_song AFTER UPDATE OF title, published_at ON albums FOR EACH ROW EXECUTE FUNCTION search_song_names_trigger();

-- Popularity: a song's views; album and list popularity: their tracks and entries, and those rows
-- becoming live or not.
CREATE OR REPLACE FUNCTION search_links_popularity_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
BEGIN
  IF TG_TABLE_NAME = 'album_tracks' THEN
    PERFORM refresh_search_popularity(search_kind('albums'), ARRAY[(to_jsonb(OLD)->>'album_id')::int, (to_jsonb(NEW)->>'album_id')::int]);
  ELSIF TG_TABLE_NAME IN ('curated_list_songs', 'curated_list_albums') THEN
    PERFORM refresh_search_popularity(search_kind('curated_lists'), ARRAY[(to_jsonb(OLD)->>'list_id')::int, (to_jsonb(NEW)->>'list_id')::int]);
  ELSIF TG_TABLE_NAME = 'songs' AND TG_NAME = 'songs_search_views' THEN
    PERFORM refresh_search_popularity(search_kind('songs'), ARRAY[NEW.id]);
  ELSIF TG_TABLE_NAME = 'songs' THEN
    PERFORM refresh_search_popularity(search_kind('albums'), ARRAY(SELECT t.album_id FROM album_tracks t WHERE t.song_id = NEW.id));
    PERFORM refresh_search_popularity(search_kind('curated_lists'), ARRAY(SELECT e.list_id FROM curated_list_songs e WHERE e.song_id = NEW.id));
  ELSIF TG_TABLE_NAME = 'albums' THEN
    PERFORM refresh_search_popularity(search_kind('curated_lists'), ARRAY(SELECT e.list_id FROM curated_list_albums e WHERE e.album_id = NEW.id));
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER album_tracks_search_popularity AFTER INSERT OR DELETE OR UPDATE ON album_tracks FOR EACH ROW EXECUTE FUNCTION search_links_popularity_trigger();
CREATE OR REPLACE TRIGGER albums_search_popularity AFTER UPDATE OF published_at ON albums FOR EACH ROW WHEN ((album_is_live(old.published_at) <> album_is_live(new.published_at))) EXECUTE FUNCTION search_links_popularity_trigger();
CREATE OR REPLACE TRIGGER curated_list_albums_search_popularity AFTER INSERT OR DELETE OR UPDATE ON curated_list_albums FOR EACH ROW EXECUTE FUNCTION search_links_popularity_trigger();
CREATE OR REPLACE TRIGGER curated_list_songs_search_popularity AFTER INSERT OR DELETE OR UPDATE ON curated_list_songs FOR EACH ROW EXECUTE FUNCTION search_links_popularity_trigger();
CREATE OR REPLACE TRIGGER songs_search_popularity AFTER UPDATE OF published_at, deleted_at ON songs FOR EACH ROW WHEN ((song_is_live(old.published_at, old.deleted_at) <> song_is_live(new.published_at, new.deleted_at))) EXECUTE FUNCTION search_links_popularity_trigger();
CREATE OR REPLACE TRIGGER songs_search_views AFTER UPDATE OF vidsvc_views ON songs FOR EACH ROW WHEN (old.vidsvc_views IS DISTINCT FROM new.vidsvc_views) EXECUTE FUNCTION search_links_popularity_trigger();

-- Kept counts (statement triggers: the recounts rewrite whole tables): TG_ARGV[0] is the type,
-- TG_ARGV[1] the count table's id column.
CREATE OR REPLACE FUNCTION search_counts_popularity_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  ids integer[];
BEGIN
  EXECUTE format('SELECT array_agg(%I) FROM %I', TG_ARGV[1], CASE WHEN TG_OP = 'DELETE' THEN 'old_rows' ELSE 'new_rows' END) INTO ids;
  PERFORM refresh_search_popularity(search_kind(TG_ARGV[0]), ids);
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER artist_counts_search_popularity_delete AFTER DELETE ON artist_counts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('artists', 'artist_id');
CREATE OR REPLACE TRIGGER artist_counts_search_popularity_insert AFTER INSERT ON artist_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('artists', 'artist_id');
CREATE OR REPLACE TRIGGER artist_counts_search_popularity_update AFTER UPDATE ON artist_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('artists', 'artist_id');
CREATE OR REPLACE TRIGGER artist_song_counts_search_visible_delete AFTER DELETE ON artist_song_counts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('artists', 'artist_id');
CREATE OR REPLACE TRIGGER artist_song_counts_search_visible_insert AFTER INSERT ON artist_song_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('artists', 'artist_id');
CREATE OR REPLACE TRIGGER artist_song_counts_search_visible_update AFTER UPDATE ON artist_song_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('artists', 'artist_id');
CREATE OR REPLACE TRIGGER genre_counts_search_popularity_delete AFTER DELETE ON genre_counts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('genres', 'genre_id');
CREATE OR REPLACE TRIGGER genre_counts_search_popularity_insert AFTER INSERT ON genre_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('genres', 'genre_id');
CREATE OR REPLACE TRIGGER genre_counts_search_popularity_update AFTER UPDATE ON genre_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('genres', 'genre_id');
CREATE OR REPLACE TRIGGER label_counts_search_popularity_delete AFTER DELETE ON label_counts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('labels', 'label_id');
CREATE OR REPLACE TRIGGER label_counts_search_popularity_insert AFTER INSERT ON label_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('labels', 'label_id');
CREATE OR REPLACE TRIGGER label_counts_search_popularity_update AFTER UPDATE ON label_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('labels', 'label_id');
CREATE OR REPLACE TRIGGER member_contribution_counts_search_popularity_delete AFTER DELETE ON member_contribution_counts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('users', 'member_id');
CREATE OR REPLACE TRIGGER member_contribution_counts_search_popularity_insert AFTER INSERT ON member_contribution_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('users', 'member_id');
CREATE OR REPLACE TRIGGER member_contribution_counts_search_popularity_update AFTER UPDATE ON member_contribution_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION search_counts_popularity_trigger('users', 'member_id');

-- Refills the search tables from scratch: the rows, their postings, the words and their
-- deletion variants; indexes dropped first and built again after (faster than row by row).
CREATE OR REPLACE FUNCTION refill_search() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  definitions text[];
  statement text;
BEGIN
  SELECT array_agg(pg_get_indexdef(x.indexrelid)) INTO definitions
  FROM pg_index x WHERE x.indrelid IN ('search_docs'::regclass, 'search_postings'::regclass, 'search_word_variants'::regclass) AND NOT x.indisprimary;
  FOR statement IN SELECT format('DROP INDEX %s', x.indexrelid::regclass) FROM pg_index x
                   WHERE x.indrelid IN ('search_docs'::regclass, 'search_postings'::regclass, 'search_word_variants'::regclass) AND NOT x.indisprimary LOOP
    EXECUTE statement;
  END LOOP;
  TRUNCATE search_docs, search_postings, search_words, search_word_variants, search_word_keys;
  INSERT INTO search_docs (kind, id, title_words, other_words, album_words, album_from, title_text, title_key, popularity, public_from, handle)
  SELECT kind, id, title_words, other_words, album_words, album_from, title_text, search_phrase_key(title_text), popularity, public_from, handle FROM search_sources;
  INSERT INTO search_postings SELECT p.* FROM search_docs d CROSS JOIN LATERAL search_doc_postings(d.kind, d.id, d.title_words, d.other_words, d.album_words, d.album_from, d.title_text, d.popularity, d.public_from, d.handle) p;
  INSERT INTO search_words SELECT DISTINCT word FROM search_postings WHERE NOT search_is_form(word);
  INSERT INTO search_word_keys (key, word) SELECT k.key, w.word FROM search_words w CROSS JOIN LATERAL search_tamil_key(w.word) k(key) WHERE k.key IS NOT NULL;
  INSERT INTO search_word_variants (variant, word, deletions)
  SELECT v.variant, w.word, v.deletions FROM search_words w CROSS JOIN LATERAL search_word_deletions(w.word, search_typo_reach(w.word)) v;
  FOREACH statement IN ARRAY coalesce(definitions, '{}') LOOP
    EXECUTE statement;
  END LOOP;
  ANALYZE search_docs, search_postings, search_words, search_word_variants, search_word_keys;
END $$;

-- ---- A query: its terms, and each kind's page --------------------------------------------

-- The query's words in the order typed, each once.
CREATE OR REPLACE FUNCTION search_query_words(q text) RETURNS text[] LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
BEGIN
  RETURN ARRAY(
    SELECT u.w FROM unnest(string_to_array(search_spaced(fold_name(q)), ' ')) WITH ORDINALITY u(w, i)
    WHERE u.w <> '' GROUP BY u.w ORDER BY min(u.i));
END $$;

-- The query's words as typed, repeats kept, up to the first word past the first `most` distinct
-- ones: the text a title begins with, and how many words a title covered has ("kanne kanne nee").
CREATE OR REPLACE FUNCTION search_query_phrase(q text, most integer) RETURNS text LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  distinct_words text[] := search_query_words(q);
BEGIN
  RETURN coalesce((
    WITH typed AS (SELECT u.w, u.at FROM unnest(string_to_array(search_spaced(fold_name(q)), ' ')) WITH ORDINALITY u(w, at) WHERE u.w <> '')
    SELECT string_agg(t.w, ' ' ORDER BY t.at) FROM typed t
    WHERE t.w = ANY (distinct_words[1:most])
      AND t.at < coalesce((SELECT min(c.at) FROM typed c WHERE c.w = distinct_words[most + 1]), 9223372036854775807)), '');
END $$;

-- What each query word matches (docs/search.md, "What a query costs"): the first `most` words,
-- each itself (the last word typed also as a prefix), its other spellings (`form`: no edit, ranked
-- below the word as typed) and the known words a typo away. Words that
-- cannot have typos (search_typo_reach 0) and words longer than `longest` look none up; the others'
-- deletion variants are read from the index in one probe of all of them (variant = ANY).
DROP FUNCTION IF EXISTS search_query_terms(text);
CREATE OR REPLACE FUNCTION search_query_terms(q text, most integer, longest integer) RETURNS search_term[] LANGUAGE plpgsql STABLE AS $$
DECLARE
  typed text[] := search_query_words(q);
BEGIN
  RETURN (
  WITH words AS MATERIALIZED (
    SELECT u.w, u.i::smallint AS grp, u.i = cardinality(typed) AS last,
           CASE WHEN length(u.w) <= longest THEN search_typo_reach(u.w) ELSE 0 END AS reach
    FROM unnest(typed[1:most]) WITH ORDINALITY u(w, i)),
  tried AS MATERIALIZED (
    SELECT w.grp, w.w, w.reach, d.variant, d.deletions
    FROM words w CROSS JOIN LATERAL search_word_deletions(w.w, w.reach) d
    WHERE w.reach > 0),
  known AS MATERIALIZED (
    SELECT v.variant, v.word, v.deletions FROM search_word_variants v
    WHERE v.variant = ANY (ARRAY(SELECT DISTINCT t.variant FROM tried t))),
  partners AS (
    -- one word the other with letters deleted is that many edits away (their lengths differ by as
    -- much); other pairs are measured
    SELECT p.grp, p.word, coalesce(p.deleted, search_typo_distance(p.w, p.word, 2)) AS edits, greatest(length(p.w), length(p.word)) AS longer
    FROM (SELECT t.grp, t.w, k.word, min(t.deletions + k.deletions) FILTER (WHERE t.deletions = 0 OR k.deletions = 0) AS deleted
          FROM tried t JOIN known k ON k.variant = t.variant AND k.deletions <= t.reach
          WHERE k.word <> t.w
          GROUP BY t.grp, t.w, k.word) p),
  forms AS (
    -- other spellings (docs/search.md, "Other spellings"): a Malay word's short forms
    -- and the words a short form stands for
    SELECT w.grp, f.word AS form, false AS prefix FROM words w JOIN search_short_forms() f ON f.short = w.w
    UNION
    SELECT w.grp, f.short, false FROM words w JOIN search_short_forms() f ON f.word = w.w
    UNION
    -- Han characters by pinyin: a reading or readings joined (the last word typed as a prefix)
    SELECT w.grp, '~' || w.w, w.last FROM words w WHERE w.w ~ '^[a-z]+$' AND length(w.w) <= longest
    UNION
    -- a word of the other script, Latin or Tamil, with the same phonetic key (a few at most)
    SELECT w.grp, k.word, false FROM words w
    CROSS JOIN LATERAL (
      SELECT k.word FROM search_word_keys k
      WHERE k.key = search_tamil_key(w.w) AND (k.word ~ '^[a-z]') <> (w.w ~ '^[a-z]') AND length(w.w) <= longest
      ORDER BY k.word LIMIT 20) k)
  SELECT coalesce(array_agg(ROW(t.grp, t.word, t.edits, t.prefix, t.form)::search_term ORDER BY t.grp, t.form, t.edits, t.word), '{}')
  FROM (
    -- a word that is both a typo partner and a form is a form
    SELECT DISTINCT ON (t.grp, t.word) t.grp, t.word, t.edits::smallint AS edits, t.prefix, t.form FROM (
      SELECT w.grp, w.w AS word, 0 AS edits, w.last AS prefix, false AS form, 0 AS rank FROM words w
      UNION ALL
      SELECT f.grp, f.form, 0, f.prefix, true, 1 FROM forms f
      UNION ALL
      SELECT p.grp, p.word, p.edits, false, false, 2 FROM partners p WHERE p.edits <= search_typo_allowance(p.longer)) t
    ORDER BY t.grp, t.word, t.rank, t.prefix DESC
  ) t);
END $$;

-- The terms one kind can match: the query's words, and the forms and typo partners some row of the kind holds
-- (the words of every kind are one vocabulary, and a partner no row of the kind holds only widens the
-- index's work).
CREATE OR REPLACE FUNCTION search_kind_terms(k smallint, terms search_term[]) RETURNS search_term[] LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (
  SELECT coalesce(array_agg(ROW(t.grp, t.word, t.edits, t.prefix, t.form)::search_term ORDER BY t.grp, t.form, t.edits, t.word), '{}')
  FROM unnest(terms) t
  WHERE (t.edits = 0 AND NOT t.form) OR EXISTS (SELECT 1 FROM search_postings p WHERE p.kind = k AND p.word = t.word)
    OR (t.prefix AND EXISTS (SELECT 1 FROM search_postings p WHERE p.kind = k AND p.word > t.word AND p.word < t.word || U&'\+10FFFF')));
END $$;

-- A hit's score (docs/search.md): its place in the ranking's order as a number, 1 for every word
-- found exactly in the title (or name), as typed, the last as a whole word, the title beginning
-- with the query as typed and covered. Words found, then fewer edits, then words in the title, then
-- in the other names, then fewer words found only in another spelling, then the title beginning
-- with the query, then the last word whole (in any field: after the title's beginning, so that a
-- whole word in a performer's or album's name never puts a title that begins with the query below),
-- then covered.
DROP FUNCTION IF EXISTS search_score(integer, integer, integer, integer, integer, boolean, boolean);
DROP FUNCTION IF EXISTS search_score(integer, integer, integer, integer, integer, boolean, boolean, boolean);
CREATE OR REPLACE FUNCTION search_score(words integer, matched integer, edits integer, in_title integer, in_other integer, covered boolean, begins boolean, whole boolean, forms integer) RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN (((((((matched::bigint * 100 + (99 - least(edits, 99))) * 100 + in_title) * 100 + in_other) * 100 + (99 - least(forms, 99))) * 2 + begins::int) * 2 + whole::int) * 2 + covered::int)::double precision
       / (((((((words::bigint * 100 + 99) * 100 + words) * 100) * 100 + 99) * 2 + 1) * 2 + 1) * 2 + 1);

-- Whether a title begins with the query in the order typed (docs/search.md, ranking step 5): with
-- its words as typed or with one word's typo partner or short form in its place (`phrases`), with
-- every word in the other script of Tamil (`phrase_key` against the title's key), or a Han title
-- with the pinyin typed (`joined`). One expression: inlined.
CREATE OR REPLACE FUNCTION search_title_begins(title_text text, title_key text, phrases text[], phrase_key text, joined boolean) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN title_text ^@ ANY(phrases) OR title_key ^@ phrase_key OR coalesce(joined, false);

-- One kind's page of a search (docs/search.md): its best `take` rows with their scores, and the
-- kind's total (exact below `bound`, else `bound`). `typed`: the query's words as typed
-- (search_query_phrase).
DROP FUNCTION IF EXISTS search_kind_page(smallint, search_term[], integer, integer);
CREATE OR REPLACE FUNCTION search_kind_page(k smallint, terms search_term[], typed text, take integer, bound integer)
  RETURNS TABLE(id integer, score double precision, popularity bigint, handle text, total integer)
  LANGUAGE plpgsql STABLE
  SET plan_cache_mode = force_generic_plan
  AS $$
DECLARE
  -- rows ranked one by one at most (past it, the page is read from postings)
  rankable CONSTANT integer := 300;
  -- postings walked at most for a page's rows holding every word
  walkable CONSTANT integer := 3000;
  -- words asked of the index at most (docs/search.md, "What a query costs"): the index's work grows
  -- with the posting lists it merges, a row's test with its words
  askable CONSTANT integer := 3;
  -- words of a query at most for which rows missing one are looked for (each word one index pass)
  guessable CONSTANT integer := 6;
  n integer := coalesce((SELECT max(t.grp) FROM unnest(terms) t), 0);
  g_own tsquery[]; g_album tsquery[]; g_title tsquery[]; g_other tsquery[]; g_exact tsquery[]; g_one tsquery[]; g_top tsquery[]; g_whole tsquery[]; g_form tsquery[]; g_form_title tsquery[];
  q_all tsquery;
  q_own tsquery;
  -- rows missing one word: all words but one, and what the index is asked of them
  q_part tsquery;
  q_part_index tsquery;
  -- every word exactly in the title (the top of the ranking: all words, no edits, all in the title)
  q_top tsquery;
  -- every word exactly, in any field
  q_exact tsquery;
  -- what the index is asked: the `askable` words of by_rarity; the others are tested on the rows found
  q_index tsquery;
  -- the query's words as typed, repeats kept, for the titles that begin with them
  q_phrase text := typed;
  -- how many words a title covered holds at most, and how many times each query word was typed
  typed_size integer := greatest(cardinality(string_to_array(typed, ' ')), n);
  times integer[] := ARRAY(
    SELECT greatest((SELECT count(*) FROM unnest(string_to_array(typed, ' ')) x(w) WHERE x.w = t.word), 1)::integer
    FROM unnest(terms) t WHERE t.edits = 0 AND NOT t.form ORDER BY t.grp);
  -- the same with one word's typo partner or short form in its place (a name begins with the words
  -- typed, one mistyped)
  q_phrases text[] := ARRAY(
    SELECT string_agg(CASE WHEN e.grp = s.grp THEN s.word ELSE e.word END, ' ' ORDER BY x.at)
    FROM (SELECT 0::smallint AS grp, NULL::text AS word
          UNION ALL SELECT t.grp, t.word FROM unnest(terms) t WHERE (t.edits > 0 OR t.form) AND NOT search_is_form(t.word)) s
    CROSS JOIN unnest(string_to_array(typed, ' ')) WITH ORDINALITY x(w, at)
    JOIN unnest(terms) e ON e.edits = 0 AND NOT e.form AND e.word = x.w
    GROUP BY s.grp, s.word);
  -- the words as typed each as its Tamil phonetic key (a title that begins with them in the other script)
  q_key text := search_phrase_key(typed);
  -- the last word found as a whole word of the title (or name), not only as the beginning of a longer one
  q_whole tsquery;
  -- the query's words joined as a Han title's pinyin (search_han_forms): its characters in the
  -- order typed, as a title beginning with the words typed
  q_joined tsquery := CASE WHEN typed ~ '^[a-z ]+$' THEN quote_literal(k || 't~' || replace(typed, ' ', '')) || CASE WHEN n = (SELECT max(t.grp) FROM unnest(terms) t WHERE t.prefix) THEN ':*' ELSE '' END END::tsquery;
  -- the words the index may be asked, the likeliest rarest first: whole words before the word being
  -- typed, longer before shorter; never a last word typed in part shorter than 3 characters (its
  -- prefix would read the lists of every word it begins)
  by_rarity integer[] := ARRAY(
    SELECT t.grp FROM unnest(terms) t WHERE t.edits = 0 AND NOT t.form AND NOT (t.prefix AND length(t.word) < 3)
    ORDER BY t.prefix, length(t.word) DESC, t.grp);
  candidates integer[];
  ordered integer[];
  tops integer;
  found integer;
  counted integer;
  rarest text;
BEGIN
  IF n = 0 THEN RETURN; END IF;
  -- per query word, the OR of its terms' lexemes: in the title and other names, the album, the
  -- title, the other names; exact terms in any field; terms one edit away in any field
  SELECT array_agg(x.own ORDER BY x.grp), array_agg(x.album ORDER BY x.grp), array_agg(x.title ORDER BY x.grp),
         array_agg(x.other ORDER BY x.grp), array_agg(x.exact ORDER BY x.grp), array_agg(x.one ORDER BY x.grp), array_agg(x.top ORDER BY x.grp),
         array_agg(x.whole ORDER BY x.grp), array_agg(x.form ORDER BY x.grp), array_agg(x.form_title ORDER BY x.grp)
    INTO g_own, g_album, g_title, g_other, g_exact, g_one, g_top, g_whole, g_form, g_form_title
  FROM (
    SELECT t.grp,
           string_agg(l.lexeme, ' | ') FILTER (WHERE l.field <> 'a')::tsquery AS own,
           string_agg(l.lexeme, ' | ') FILTER (WHERE l.field = 'a')::tsquery AS album,
           string_agg(l.lexeme, ' | ') FILTER (WHERE l.field = 't')::tsquery AS title,
           string_agg(l.lexeme, ' | ') FILTER (WHERE l.field = 'o')::tsquery AS other,
           string_agg(l.lexeme, ' | ') FILTER (WHERE t.edits = 0 AND NOT t.form)::tsquery AS exact,
           string_agg(l.lexeme, ' | ') FILTER (WHERE t.edits = 1)::tsquery AS one,
           string_agg(l.lexeme, ' | ') FILTER (WHERE t.edits = 0 AND NOT t.form AND l.field = 't')::tsquery AS top,
           string_agg(l.lexeme, ' | ') FILTER (WHERE t.form)::tsquery AS form,
           string_agg(l.lexeme, ' | ') FILTER (WHERE t.form AND l.field = 't')::tsquery AS form_title,
           string_agg(l.whole, ' | ') FILTER (WHERE l.field = 't')::tsquery AS whole
    FROM unnest(terms) t
    CROSS JOIN LATERAL (
      SELECT f.field, quote_literal(k || f.field || t.word) || CASE WHEN t.prefix THEN ':*' ELSE '' END AS lexeme,
             quote_literal(k || f.field || t.word) AS whole
      FROM unnest('{t,o,a}'::text[]) f(field)) l
    GROUP BY t.grp) x;
  q_whole := g_whole[n];
  FOR i IN 1..n LOOP
    q_all := CASE WHEN i = 1 THEN g_own[i] || g_album[i] ELSE q_all && (g_own[i] || g_album[i]) END;
    q_own := CASE WHEN i = 1 THEN g_own[i] ELSE q_own && g_own[i] END;
    q_top := CASE WHEN i = 1 THEN g_top[i] ELSE q_top && g_top[i] END;
    q_exact := CASE WHEN i = 1 THEN g_exact[i] ELSE q_exact && g_exact[i] END;
    IF i = ANY (by_rarity[1:askable]) THEN
      q_index := CASE WHEN q_index IS NULL THEN g_own[i] || g_album[i] ELSE q_index && (g_own[i] || g_album[i]) END;
    END IF;
  END LOOP;

  IF n = 1 THEN
    -- one word: each matching word's best postings, in the order of the ranking
    RETURN QUERY
    WITH words AS (
      SELECT t.word, t.edits, t.form, true AS whole_word FROM unnest(terms) t
      UNION
      -- the kind's words the last word begins, in order (a walk of the postings' index word by word)
      SELECT w.word, t.edits, t.form, false FROM unnest(terms) t
      CROSS JOIN LATERAL (
        WITH RECURSIVE known(word) AS (
          SELECT t.word COLLATE "C"
          UNION ALL
          SELECT (SELECT min(p.word) FROM search_postings p WHERE p.kind = k AND p.word > known.word AND p.word < t.word || U&'\+10FFFF')
          FROM known WHERE known.word IS NOT NULL)
        SELECT known.word FROM known WHERE known.word > t.word LIMIT 200) w
      WHERE t.prefix),
    best AS (
      -- a row's best posting: each scored on its own (a row may hold the word typed in part and a typo of it)
      SELECT p.id, max(search_score(1, 1, w.edits, (p.field = 1)::int, (p.field = 2)::int, p.whole, p.begins, w.whole_word, w.form::int)) AS score,
             max(p.popularity) AS popularity, min(p.handle) AS handle
      FROM words w CROSS JOIN LATERAL (
        SELECT p.id, p.field, p.begins, p.whole, p.popularity, p.handle FROM search_postings p
        WHERE p.kind = k AND p.word = w.word AND search_entry_visible(k, p.id, p.public_from)
        ORDER BY p.field, p.begins DESC, p.whole DESC, p.popularity DESC, p.handle, p.id LIMIT take) p
      GROUP BY p.id),
    matches AS (
      SELECT DISTINCT p.id FROM (
        SELECT p.id FROM words w CROSS JOIN LATERAL (
          SELECT p.id FROM search_postings p
          WHERE p.kind = k AND p.word = w.word AND search_entry_visible(k, p.id, p.public_from) LIMIT bound * 3) p
        LIMIT bound * 3) p)
    SELECT b.id, b.score, b.popularity, b.handle,
           least((SELECT count(*) FROM matches), bound)::integer
    FROM best b
    ORDER BY 2 DESC, b.popularity DESC, b.handle, b.id LIMIT take;
    RETURN;
  END IF;

  -- one pass over the rows holding every word (up to the bound): counted, and in an order close to
  -- the ranking's: the rows holding every word exactly in the title first (in their order: beginning
  -- with the query, covered, popularity), then those holding every word exactly
  SELECT array_agg(r.id ORDER BY r.top DESC, r.exact DESC, r.begins DESC, r.whole DESC, r.covered DESC, r.popularity DESC, r.handle, r.id),
         count(*) FILTER (WHERE r.top), count(*)
    INTO ordered, tops, found
  FROM (
    SELECT d.id, d.popularity, d.handle, d.lexemes @@ q_top AS top, d.lexemes @@ q_exact AS exact, d.lexemes @@ q_whole AS whole,
           search_title_begins(d.title_text, d.title_key, q_phrases, q_key, d.lexemes @@ q_joined) AS begins, search_title_size(d.title_text) <= typed_size AS covered
    FROM search_docs d
    WHERE d.lexemes @@ q_index AND ts_match_vq(d.lexemes, q_all) AND search_entry_visible(k, d.id, d.public_from)
      AND (d.album_from <= now() OR d.lexemes @@ q_own)
    LIMIT bound) r;
  counted := found;
  IF tops >= take AND found < bound THEN
    -- every row is known, and the page is the first rows holding every word in the title
    RETURN QUERY
    SELECT d.id, search_score(n, n, 0, n, 0, search_title_size(d.title_text) <= typed_size, search_title_begins(d.title_text, d.title_key, q_phrases, q_key, d.lexemes @@ q_joined), d.lexemes @@ q_whole, 0),
           d.popularity, d.handle, counted
    FROM unnest(ordered[1:take]) WITH ORDINALITY o(id, at) JOIN search_docs d ON d.kind = k AND d.id = o.id
    ORDER BY o.at;
    RETURN;
  END IF;
  candidates := ordered;
  IF found > rankable THEN
    -- too many to rank one by one: the first of the pass, and when the pass stopped at the bound,
    -- the rows it may have missed, from the postings of the query's rarest word (fewest, counted as
    -- far as a walk goes; not the last, a prefix) and from the titles
    candidates := ordered[1:CASE WHEN tops >= take THEN least(tops, rankable) ELSE rankable END];
    IF found = bound THEN
      SELECT r.word INTO rarest
      FROM (SELECT t.word FROM unnest(terms) t WHERE t.edits = 0 AND NOT t.form AND NOT t.prefix
            ORDER BY (SELECT count(*) FROM (SELECT 1 FROM search_postings p
                                            WHERE p.kind = k AND p.word = t.word AND p.field = 1 LIMIT walkable) c), t.grp
            LIMIT 1) r;
    END IF;
    IF found = bound AND tops > 0 THEN
      -- the pass stopped at the bound: the most popular rows holding every word in the title
      candidates := candidates || ARRAY(
        SELECT p.id FROM (SELECT p.id, p.begins, p.whole, p.popularity, p.handle FROM search_postings p
                          WHERE p.kind = k AND p.word = rarest AND p.field = 1
                          ORDER BY p.begins DESC, p.whole DESC, p.popularity DESC, p.handle, p.id LIMIT walkable) p
        JOIN search_docs d ON d.kind = k AND d.id = p.id
        WHERE d.lexemes @@ q_top AND search_entry_visible(k, d.id, d.public_from)
        ORDER BY p.begins DESC, p.whole DESC, p.popularity DESC, p.handle, p.id LIMIT take);
    END IF;
    IF found = bound THEN
      -- and the most popular titles that are the query as typed (one word mistyped), that begin
      -- with it (the first titles of the range), and (up to four words) of just its words in
      -- another order
      candidates := candidates || ARRAY(
        SELECT t.id FROM unnest(q_phrases) f
        CROSS JOIN LATERAL (
          (SELECT t.id FROM search_docs t
           WHERE t.kind = k AND t.title_text = f AND search_entry_visible(k, t.id, t.public_from)
           ORDER BY t.popularity DESC LIMIT take)
          UNION ALL
          (SELECT t.id FROM (SELECT t.id, t.popularity, t.public_from FROM search_docs t
                             WHERE t.kind = k AND t.title_text > f AND t.title_text < f || U&'\+10FFFF'
                             ORDER BY t.title_text LIMIT walkable) t
           WHERE search_entry_visible(k, t.id, t.public_from)
           ORDER BY t.popularity DESC LIMIT take)) t)
        || ARRAY(
        SELECT t.id FROM search_docs t
        WHERE n <= 4 AND t.kind = k AND search_entry_visible(k, t.id, t.public_from) AND t.title_text = ANY(ARRAY(
          WITH RECURSIVE orders(phrase, used) AS (
            SELECT ''::text, '{}'::smallint[]
            UNION ALL
            SELECT ltrim(o.phrase || ' ' || e.word), o.used || e.grp
            FROM orders o JOIN unnest(terms) e ON e.edits = 0 AND NOT e.form AND NOT e.grp = ANY(o.used))
          SELECT o.phrase FROM orders o WHERE cardinality(o.used) = n AND o.phrase <> q_phrase))
        ORDER BY t.popularity DESC LIMIT take);
    END IF;
    IF found = bound AND tops < take THEN
      -- fewer than a page in the title: the rows of the rarest word's terms in their postings' order
      candidates := candidates || ARRAY(
        SELECT p.id FROM unnest(terms) t
        CROSS JOIN LATERAL (
          SELECT p.id FROM (SELECT p.id, p.field, p.begins, p.whole, p.popularity, p.handle FROM search_postings p WHERE p.kind = k AND p.word = t.word
                            ORDER BY p.field, p.begins DESC, p.whole DESC, p.popularity DESC, p.handle, p.id LIMIT walkable) p
          JOIN search_docs d ON d.kind = k AND d.id = p.id
          WHERE d.lexemes @@ q_all AND search_entry_visible(k, d.id, d.public_from) AND (d.album_from <= now() OR d.lexemes @@ q_own)
          ORDER BY p.field, p.begins DESC, p.whole DESC, p.popularity DESC, p.handle, p.id LIMIT take) p
        WHERE t.grp = (SELECT e.grp FROM unnest(terms) e WHERE e.word = rarest AND e.edits = 0 AND NOT e.form LIMIT 1));
    END IF;
    SELECT array_agg(DISTINCT d.id) INTO candidates
    FROM unnest(candidates) c(id) JOIN search_docs d ON d.kind = k AND d.id = c.id
    WHERE d.lexemes @@ q_all AND search_entry_visible(k, d.id, d.public_from) AND (d.album_from <= now() OR d.lexemes @@ q_own);
  ELSIF found = 0 AND n BETWEEN 3 AND guessable THEN
    -- no row holds every word of three to `guessable`: the rows missing one of them
    FOR j IN 1..n LOOP
      q_part := NULL;
      q_part_index := NULL;
      FOR i IN 1..n LOOP
        IF i <> j THEN
          q_part := CASE WHEN q_part IS NULL THEN g_own[i] || g_album[i] ELSE q_part && (g_own[i] || g_album[i]) END;
        END IF;
        IF i = ANY ((array_remove(by_rarity, j))[1:askable]) THEN
          q_part_index := CASE WHEN q_part_index IS NULL THEN g_own[i] || g_album[i] ELSE q_part_index && (g_own[i] || g_album[i]) END;
        END IF;
      END LOOP;
      candidates := candidates || ARRAY(
        SELECT d.id FROM search_docs d
        WHERE d.lexemes @@ q_part_index AND ts_match_vq(d.lexemes, q_part) AND search_entry_visible(k, d.id, d.public_from)
          AND NOT d.id = ANY(coalesce(candidates, '{}'))
        LIMIT rankable);
    END LOOP;
    counted := least(coalesce(cardinality(candidates), 0), bound);
  END IF;

  RETURN QUERY
  SELECT r.id, search_score(n, r.matched, r.edits, r.in_title, r.in_other, r.typed_in_title >= r.title_size, search_title_begins(r.title_text, r.title_key, q_phrases, q_key, r.joined), r.whole, r.forms),
         r.popularity, r.handle, counted
  FROM (
    SELECT d.id, d.popularity, d.handle, search_title_size(d.title_text) AS title_size, d.title_text, d.title_key, bool_or(d.lexemes @@ q_whole) AS whole, coalesce(bool_or(d.lexemes @@ q_joined), false) AS joined,
           count(*) FILTER (WHERE x.m)::integer AS matched,
           coalesce(sum(times[i]) FILTER (WHERE x.m AND d.lexemes @@ x.title), 0)::integer AS typed_in_title,
           sum(CASE WHEN NOT x.m OR d.lexemes @@ g_exact[i] OR coalesce(d.lexemes @@ g_form[i], false) THEN 0
                    WHEN coalesce(d.lexemes @@ g_one[i], false) THEN 1 ELSE 2 END)::integer AS edits,
           count(*) FILTER (WHERE x.m AND NOT d.lexemes @@ g_exact[i] AND coalesce(d.lexemes @@ g_form[i], false))::integer AS forms,
           count(*) FILTER (WHERE x.m AND d.lexemes @@ x.title)::integer AS in_title,
           count(*) FILTER (WHERE x.m AND NOT d.lexemes @@ x.title AND coalesce(d.lexemes @@ g_other[i], false))::integer AS in_other
    FROM search_docs d
    CROSS JOIN generate_series(1, n) i
    -- found (in the title or other names, or a public album), and in the title with the exact word
    -- when it is found exactly, else with another spelling when it is found in one (no edit: where
    -- that is counts, not where a typo partner is)
    CROSS JOIN LATERAL (SELECT d.lexemes @@ g_own[i] OR (d.album_from <= now() AND d.lexemes @@ g_album[i]) AS m,
                               CASE WHEN d.lexemes @@ g_exact[i] THEN g_top[i]
                                    WHEN coalesce(d.lexemes @@ g_form[i], false) THEN g_form_title[i]
                                    ELSE g_title[i] END AS title) x
    WHERE d.kind = k AND d.id = ANY(candidates)
    GROUP BY d.kind, d.id) r
  WHERE r.matched >= n - 1
  ORDER BY 2 DESC, r.popularity DESC, r.handle, r.id LIMIT take;
END $$;

-- ---- Name filters of lists: folded names, kept grams of one and two characters -------------

-- An artist's folded names contain the folded query `q`; NULL: every artist; '' none, as
-- src/Queries/NameFilter.ts (every name contains the empty text). One expression: inlined.
CREATE OR REPLACE FUNCTION folded_names_contain(q text, search_name text, search_full_name text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT q IS NULL OR (q <> '' AND (strpos(search_name, q) > 0 OR strpos(search_full_name, q) > 0))
$$;

-- Every distinct text of one or two characters in either name (NULL names have none).
CREATE OR REPLACE FUNCTION name_grams(search_name text, search_full_name text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(array_agg(DISTINCT substr(n, i, w)), '{}')
  FROM unnest(ARRAY[search_name, search_full_name]) n
  CROSS JOIN generate_series(1, 2) w
  CROSS JOIN generate_series(1, char_length(n) - w + 1) i
$$;

-- Both tables written anew from the kept names, for a statement that moves many of them (a
-- recount, the seed's bulk load): in key order, ~25 s at 1M songs, where moving 245k artists pair
-- by pair took minutes.
CREATE OR REPLACE FUNCTION refill_artist_name_grams() RETURNS void LANGUAGE sql AS $$
  TRUNCATE artist_name_grams, artist_name_gram_counts;
  INSERT INTO artist_name_grams (gram, artist_id)
  SELECT g.gram, ac.artist_id FROM artist_song_counts ac CROSS JOIN unnest(name_grams(ac.search_name, ac.search_full_name)) g(gram)
  WHERE ac.settled_songs > 0
  ORDER BY 1, 2;
  INSERT INTO artist_name_gram_counts (gram, artists) SELECT gram, count(*) FROM artist_name_grams GROUP BY gram;
$$;

-- Both tables written anew from the public members, in key order (the seed's last step, TRUNCATE,
-- and a statement moving more than 10,000 members).
CREATE OR REPLACE FUNCTION refill_member_name_grams() RETURNS void LANGUAGE sql AS $$
  TRUNCATE member_name_grams, member_name_gram_counts;
  INSERT INTO member_name_grams (gram, member_id)
  SELECT g.gram, m.id FROM members m CROSS JOIN unnest(name_grams(m.search_name, m.search_username)) g(gram)
  WHERE member_is_public(m.username, m.is_banned)
  ORDER BY 1, 2;
  INSERT INTO member_name_gram_counts (gram, members) SELECT gram, count(*) FROM member_name_grams GROUP BY gram;
$$;

-- Which owner's grams: 'artist' or 'member'.
CREATE OR REPLACE FUNCTION refill_name_grams(owner text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF owner = 'artist' THEN
    PERFORM refill_artist_name_grams();
  ELSE
    PERFORM refill_member_name_grams();
  END IF;
END $$;

-- One owner's kept grams ('artist': artist_name_grams by artist_id, counted in
-- artist_name_gram_counts.artists; 'member': member_name_grams by member_id, member_name_gram_counts.members):
-- the owners (id, folded name, other folded name) leaving the kept names and joining them, their
-- grams' pairs moved, and the counts by the pairs actually moved (a rename keeps the grams both
-- names have).
CREATE OR REPLACE FUNCTION move_name_grams(owner text, gone_ids integer[], gone_names text[], gone_others text[], came_ids integer[], came_names text[], came_others text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format($move$
    WITH gone AS (
      SELECT u.id, g.gram FROM unnest($1, $2, $3) u(id, n, f) CROSS JOIN unnest(name_grams(u.n, u.f)) g(gram)),
    came AS (
      SELECT u.id, g.gram FROM unnest($4, $5, $6) u(id, n, f) CROSS JOIN unnest(name_grams(u.n, u.f)) g(gram)),
    dropped AS (
      DELETE FROM %1$I t USING (SELECT * FROM gone EXCEPT SELECT * FROM came) x
      WHERE t.gram = x.gram AND t.%2$I = x.id
      RETURNING t.gram, -1 AS moved),
    added AS (
      INSERT INTO %1$I (gram, %2$I)
      SELECT x.gram, x.id FROM (SELECT * FROM came EXCEPT SELECT * FROM gone) x
      RETURNING gram, 1 AS moved)
    INSERT INTO %3$I AS c (gram, %4$I)
    SELECT m.gram, sum(m.moved) FROM (SELECT * FROM dropped UNION ALL SELECT * FROM added) m GROUP BY m.gram
    ON CONFLICT (gram) DO UPDATE SET %4$I = c.%4$I + excluded.%4$I$move$,
    owner || '_name_grams', owner || '_id', owner || '_name_gram_counts', owner || 's')
  USING gone_ids, gone_names, gone_others, came_ids, came_names, came_others;
END $$;

-- Statement triggers on the rows whose names are kept. TG_ARGV: the owner (move_name_grams), the
-- rows' id column, their other name's column, and whether a row `%1$s` has its names kept. Only the
-- rows whose kept names changed move (kept or not, or renamed); past 10,000 the tables are refilled.
CREATE OR REPLACE FUNCTION name_grams_trigger() RETURNS trigger LANGUAGE plpgsql
  SET jit = off
  AS $$
DECLARE
  id_column CONSTANT text := TG_ARGV[1];
  other_column CONSTANT text := TG_ARGV[2];
  side text;
  ids integer[]; names text[]; others text[];
  gone_ids integer[]; gone_names text[]; gone_others text[];
  came_ids integer[]; came_names text[]; came_others text[];
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    PERFORM refill_name_grams(TG_ARGV[0]);
    RETURN NULL;
  END IF;
  FOREACH side IN ARRAY ARRAY['old_rows', 'new_rows'] LOOP
    CONTINUE WHEN (side = 'old_rows' AND TG_OP = 'INSERT') OR (side = 'new_rows' AND TG_OP = 'DELETE');
    -- the side's kept rows, but for an update those the other side keeps under the same names
    EXECUTE format('SELECT array_agg(r.%1$I), array_agg(r.search_name), array_agg(r.%2$I) FROM %3$I r WHERE %4$s',
                   id_column, other_column, side, format(TG_ARGV[3], 'r'))
      || CASE WHEN TG_OP = 'UPDATE' THEN format(
           ' AND NOT EXISTS (SELECT 1 FROM %1$I s WHERE s.%2$I = r.%2$I AND %3$s AND (s.search_name, s.%4$I) IS NOT DISTINCT FROM (r.search_name, r.%4$I))',
           CASE side WHEN 'old_rows' THEN 'new_rows' ELSE 'old_rows' END, id_column, format(TG_ARGV[3], 's'), other_column)
         ELSE '' END
      INTO ids, names, others;
    IF side = 'old_rows' THEN
      gone_ids := ids; gone_names := names; gone_others := others;
    ELSE
      came_ids := ids; came_names := names; came_others := others;
    END IF;
  END LOOP;
  IF coalesce(cardinality(gone_ids), 0) + coalesce(cardinality(came_ids), 0) > 10000 THEN
    PERFORM refill_name_grams(TG_ARGV[0]);
  ELSIF gone_ids IS NOT NULL OR came_ids IS NOT NULL THEN
    PERFORM move_name_grams(TG_ARGV[0], gone_ids, gone_names, gone_others, came_ids, came_names, came_others);
  END IF;
  RETURN NULL;
END $$;
CREATE OR REPLACE TRIGGER artist_song_counts_name_grams_delete AFTER DELETE ON artist_song_counts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION name_grams_trigger('artist', 'artist_id', 'search_full_name', '%1$s.settled_songs > 0');
CREATE OR REPLACE TRIGGER artist_song_counts_name_grams_insert AFTER INSERT ON artist_song_counts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION name_grams_trigger('artist', 'artist_id', 'search_full_name', '%1$s.settled_songs > 0');
CREATE OR REPLACE TRIGGER artist_song_counts_name_grams_truncate AFTER TRUNCATE ON artist_song_counts FOR EACH STATEMENT EXECUTE FUNCTION name_grams_trigger('artist', 'artist_id', 'search_full_name', '%1$s.settled_songs > 0');
CREATE OR REPLACE TRIGGER artist_song_counts_name_grams_update AFTER UPDATE ON artist_song_counts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION name_grams_trigger('artist', 'artist_id', 'search_full_name', '%1$s.settled_songs > 0');
CREATE OR REPLACE TRIGGER members_name_grams_delete AFTER DELETE ON members REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION name_grams_trigger('member', 'id', 'search_username', 'member_is_public(%1$s.username, %1$s.is_banned)');
CREATE OR REPLACE TRIGGER members_name_grams_insert AFTER INSERT ON members REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION name_grams_trigger('member', 'id', 'search_username', 'member_is_public(%1$s.username, %1$s.is_banned)');
CREATE OR REPLACE TRIGGER members_name_grams_truncate AFTER TRUNCATE ON members FOR EACH STATEMENT EXECUTE FUNCTION name_grams_trigger('member', 'id', 'search_username', 'member_is_public(%1$s.username, %1$s.is_banned)');
CREATE OR REPLACE TRIGGER members_name_grams_update AFTER UPDATE ON members REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION name_grams_trigger('member', 'id', 'search_username', 'member_is_public(%1$s.username, %1$s.is_banned)');

-- The artists with a settled song whose folded names contain the folded `q`: by its kept gram
-- for one or two characters, by the trigram indexes above for more (the query folded
-- once: an init plan each).
CREATE OR REPLACE FUNCTION artist_kept_name_matches(q text) RETURNS TABLE(artist_id integer) LANGUAGE sql STABLE AS $$
  SELECT g.artist_id FROM artist_name_grams g
  WHERE g.gram = (SELECT fold_name(q)) AND char_length((SELECT fold_name(q))) BETWEEN 1 AND 2
  UNION ALL
  SELECT ac.artist_id FROM artist_song_counts ac
  WHERE ac.settled_songs > 0 AND char_length((SELECT fold_name(q))) > 2
    AND (ac.search_name LIKE '%' || (SELECT fold_name(q)) || '%' OR ac.search_full_name LIKE '%' || (SELECT fold_name(q)) || '%')
$$;

CREATE OR REPLACE FUNCTION artist_kept_name_count(q text, up_to bigint) RETURNS integer LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN (
  SELECT CASE
      WHEN f.folded = '' THEN 0
      WHEN char_length(f.folded) <= 2 THEN coalesce((SELECT c.artists FROM artist_name_gram_counts c WHERE c.gram = f.folded), 0)
      ELSE (SELECT count(*) FROM (SELECT 1 FROM artist_kept_name_matches(q) LIMIT up_to) m)::integer
    END
  FROM (SELECT fold_name(q) AS folded) f);
END $$;

-- A q's facts for the artists list: its kept matches when few enough to collect (probe_cost: what
-- collecting one match costs in entries walked, MATCH_PROBE_IN_WALKED_ENTRIES in src/Artists/Repo.ts),
-- else counted as far as the choice needs; and the kept artists.
CREATE OR REPLACE FUNCTION artist_name_query(q text, probe_cost integer) RETURNS TABLE(kept_matches integer, kept_artists integer) LANGUAGE sql STABLE AS $$
  SELECT CASE WHEN char_length(f.folded) > 2 AND probe_cost * b.fewest::bigint * b.fewest <= t.with_settled THEN b.fewest
              ELSE artist_kept_name_count(q, t.with_settled / 30 + 1) END,
    t.with_settled::integer
  FROM artist_song_totals t
  CROSS JOIN (SELECT fold_name(q) AS folded) f
  CROSS JOIN LATERAL (
    SELECT min(coalesce(c.artists, 0)) AS fewest
    FROM generate_series(1, char_length(f.folded) - 1) i
    LEFT JOIN artist_name_gram_counts c ON c.gram = substr(f.folded, i, 2)) b
$$;

-- The public members whose folded name or username contains the folded `q`, by the kept grams: as
-- (member's handle) for src/Queries/SteeredPage.ts's key sets, and how many (NULL when the folded q
-- is not a gram: empty, or folded to more than two characters).
-- (each handle a probe by primary key: a join was planned as a hash over every member, 10 ms at 1M)
CREATE OR REPLACE FUNCTION short_member_query_handles(q text) RETURNS TABLE(handle text) LANGUAGE sql STABLE AS $$
  SELECT (SELECT lower(m.username) FROM members m WHERE m.id = g.member_id) FROM member_name_grams g WHERE g.gram = fold_name(q)
$$;

CREATE OR REPLACE FUNCTION short_member_query_count(q text) RETURNS integer LANGUAGE plpgsql STABLE AS $$
#variable_conflict use_column
BEGIN
  RETURN (
  SELECT CASE WHEN char_length(f) BETWEEN 1 AND 2
    THEN coalesce((SELECT c.members FROM member_name_gram_counts c WHERE c.gram = f), 0) END
  FROM fold_name(q) f);
END $$;

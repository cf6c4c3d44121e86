/**
 * `bun run bench --sweep [--songs N] [--database NAME] [--requests R]`
 *
 * Every public endpoint family, one client, response cache off: each family's paths (popular
 * and rare ids, every sort, keyword filters, deep offsets) are requested in turn, R requests a
 * family after one warm-up pass, and p50/p95/p99 per family go into the "Sweep" section of
 * test/bench/RESULTS.md for that catalogue size. See test/bench/README.md.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { loadavg } from "node:os"
import { resolve } from "node:path"
import { ensureCatalogue, migrateExisting, queryColumn, serverVersion } from "./catalogue.js"
import { freePort, type ServerProcess, startServer } from "./processes.js"

const HERE = import.meta.dir

export interface SweepOptions {
  readonly songs: number
  /** an existing catalogue to use as it is (migrated, never seeded), e.g. catalogue_1m */
  readonly database: string | undefined
  readonly requests: number
  /** just these families (by name): printed, RESULTS.md untouched */
  readonly families?: ReadonlyArray<string> | undefined
}

interface Family {
  readonly name: string
  readonly paths: ReadonlyArray<string>
}

/** The families' paths, and the largest groups of the catalogue among them (named in RESULTS.md). */
export interface SweepPaths {
  readonly families: ReadonlyArray<Family>
  readonly largest: ReadonlyArray<string>
}

interface FamilyResult {
  readonly name: string
  readonly paths: number
  readonly p50: number
  readonly p95: number
  readonly p99: number
  readonly max: number
  readonly statuses: string
}

/** The catalogue database of a size: `catalogue_bench` (100k, the load bench's) or `catalogue_bench_<N>`. */
export const sweepDatabaseName = (songs: number) => songs === 100_000 ? "catalogue_bench" : `catalogue_bench_${songs}`

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

const enc = encodeURIComponent

/** One and two letters as a list's `q`: no trigram to find them by; common ones and one matching nothing. */
const SHORT_QUERIES = ["a", "e", "an", "ku", "zq"]

/**
 * The families and their paths, drawn from the catalogue itself (deterministic: ordered queries).
 * Every family whose cost could grow with a group's size (similar songs, an artist's songs and
 * albums, namesake hints, genre and label lists, search) gets paths over the catalogue's largest
 * groups beside typical ones.
 */
export const sweepPaths = async (url: string): Promise<SweepPaths> => {
  const column = (text: string) => queryColumn(url, text)
  const popularSongs = await column("SELECT id AS v FROM public_songs ORDER BY vidsvc_views DESC NULLS LAST, id LIMIT 5")
  const rareSongs = await column("SELECT id AS v FROM public_songs ORDER BY vidsvc_views NULLS FIRST, id LIMIT 5")
  const someSongs = await column("SELECT id AS v FROM public_songs WHERE id % 997 = 1 ORDER BY id LIMIT 10")
  // the most credited artists (a prolific writer who rarely performs among them), and the most
  // prolific performers and writers by kept public songs
  const prolificNamesakes = await column(`SELECT a.id AS v FROM artist_song_counts c JOIN public_artists a ON a.id = c.artist_id
    WHERE EXISTS (SELECT 1 FROM public_artists o WHERE fold_name(o.name) = fold_name(a.name) AND o.id <> a.id)
    ORDER BY c.settled_songs DESC, a.id LIMIT 20`)
  const prolificArtists = await column(`SELECT v FROM (
      (SELECT artist_id AS v FROM artist_counts ORDER BY live_credits DESC, artist_id LIMIT 5)
      UNION (SELECT artist_id FROM artist_tag_song_counts WHERE tag = 'performer' ORDER BY settled_songs DESC, artist_id LIMIT 2)
      UNION (SELECT artist_id FROM artist_tag_song_counts WHERE tag = 'writer' ORDER BY settled_songs DESC, artist_id LIMIT 2)) x
    ORDER BY v`)
  const [mostCredited, mostCreditedSongs] = (await column(
    "SELECT artist_id || ',' || settled_songs AS v FROM artist_song_counts ORDER BY settled_songs DESC, artist_id LIMIT 1"))[0]!
    .split(",").map(Number) as [number, number]
  const rareArtists = await column(
    "SELECT artist_id AS v FROM artist_counts WHERE live_credits BETWEEN 1 AND 2 ORDER BY artist_id LIMIT 5")
  // the largest groups a song belongs to: the most popular songs of the most credited performers
  // and writers (their songs' similar songs walk the largest artists' songs), of the biggest genre
  const performerCounts = await column(
    "SELECT artist_id || ',' || settled_songs AS v FROM artist_tag_song_counts WHERE tag = 'performer' ORDER BY settled_songs DESC, artist_id LIMIT 5")
  const writerCounts = await column(
    "SELECT artist_id || ',' || settled_songs AS v FROM artist_tag_song_counts WHERE tag = 'writer' ORDER BY settled_songs DESC, artist_id LIMIT 3")
  const topSongsOf = (artists: ReadonlyArray<string>, tag: string, each: number) =>
    artists.length === 0 ? Promise.resolve([]) : column(`SELECT x.id AS v FROM unnest('{${artists.map((a) => a.split(",")[0]).join(",")}}'::int[]) AS a(id)
      CROSS JOIN LATERAL (SELECT s.id FROM credits c JOIN roles r ON r.id = c.role_id AND r.tag = '${tag}'
        JOIN public_songs s ON s.id = c.song_id WHERE c.artist_id = a.id
        ORDER BY s.vidsvc_views_per_day DESC NULLS LAST, s.id DESC LIMIT ${each}) x`)
  const biggestPerformersSongs = await topSongsOf(performerCounts, "performer", 3)
  const biggestWritersSongs = await topSongsOf(writerCounts, "writer", 2)
  // and both at once: the most watched songs of one of the 5 most credited performers written by
  // one of the 5 most credited writers (the slowest: two large groups, the later one
  // excluding the earlier's songs)
  const biggestPairsSongs = await column(`SELECT v FROM (
      SELECT DISTINCT s.id AS v, s.vidsvc_views_per_day AS d FROM credits p JOIN roles pr ON pr.id = p.role_id AND pr.tag = 'performer'
      JOIN credits w ON w.song_id = p.song_id JOIN roles wr ON wr.id = w.role_id AND wr.tag = 'writer' JOIN public_songs s ON s.id = p.song_id
      WHERE p.artist_id IN (SELECT artist_id FROM artist_tag_song_counts WHERE tag = 'performer' ORDER BY settled_songs DESC, artist_id LIMIT 5)
        AND w.artist_id IN (SELECT artist_id FROM artist_tag_song_counts WHERE tag = 'writer' ORDER BY settled_songs DESC, artist_id LIMIT 5)) x
    ORDER BY d DESC NULLS LAST, v DESC LIMIT 6`)
  const albumArtists = await column(
    "SELECT artist_id || ',' || live_albums AS v FROM artist_album_counts ORDER BY live_albums DESC, artist_id LIMIT 3")
  const albums = await column("SELECT id AS v FROM public_albums WHERE id % 101 = 1 ORDER BY id LIMIT 10")
  const lists = await column("SELECT id AS v FROM public_curated_lists ORDER BY id LIMIT 5")
  const bigLists = await column(`SELECT l.id AS v FROM public_curated_lists l
    ORDER BY (SELECT count(*) FROM curated_list_songs e WHERE e.list_id = l.id)
           + (SELECT count(*) FROM curated_list_albums e WHERE e.list_id = l.id) DESC, l.id LIMIT 3`)
  const bigLabels = await column("SELECT label_id AS v FROM label_counts ORDER BY live_songs DESC, label_id LIMIT 5")
  const smallLabels = await column("SELECT label_id AS v FROM label_counts WHERE live_songs > 0 ORDER BY live_songs, label_id LIMIT 5")
  const midLabels = await column("SELECT label_id AS v FROM label_counts ORDER BY abs(live_songs - 3000), label_id LIMIT 2")
  const genres = await column("SELECT slug AS v FROM genres ORDER BY id")
  const [bigGenre, bigGenreSongs] = (await column(
    "SELECT g.slug || ',' || c.live_songs AS v FROM genres g JOIN genre_counts c ON c.genre_id = g.id ORDER BY c.live_songs DESC, g.id LIMIT 1"))[0]!.split(",")
  const bigLabelSongs = Number((await column("SELECT max(live_songs) AS v FROM label_counts"))[0])
  const bigGenreSongIds = await column(`SELECT s.id AS v FROM song_genres g JOIN public_songs s ON s.id = g.song_id
    WHERE g.genre_id = (SELECT id FROM genres WHERE slug = '${bigGenre}') ORDER BY s.id LIMIT 2`)
  // the title word the most songs share (search's largest set of matches)
  const [commonWord, commonWordSongs] = (await column(`SELECT w || ',' || n AS v FROM (
      SELECT split_part(search_title, ' ', 1) AS w, count(*) AS n FROM public_songs
      WHERE length(split_part(search_title, ' ', 1)) >= 3 GROUP BY 1) x ORDER BY n DESC, w LIMIT 1`))[0]!.split(",")
  // one owner's long list (a genre's, a label's songs; a member's contributions) at every depth:
  // the middle (the farthest from both ends) and near the end
  const ownerOffsets = (rows: number) => [String(Math.floor(rows / 2)), String(Math.max(rows - 40, 0))]
  const smallGenres = await column(
    "SELECT g.slug AS v FROM genres g JOIN genre_counts c ON c.genre_id = g.id ORDER BY c.live_songs, g.id LIMIT 2")
  const activeUsers = await column(`SELECT m.username AS v FROM public_members m JOIN member_contribution_counts c ON c.member_id = m.id
    ORDER BY c.live DESC, m.id LIMIT 5`)
  const busiestContributions = Number((await column(`SELECT count(*) AS v FROM contributions c JOIN public_songs s ON s.id = c.song_id
    WHERE c.member_id = (SELECT m.id FROM public_members m WHERE m.username = '${activeUsers[0]!.replace(/'/g, "''")}')`))[0])
  const quietUsers = await column("SELECT username AS v FROM public_members WHERE id % 499 = 1 ORDER BY id LIMIT 5")
  const lovers = await column("SELECT m.username AS v FROM public_members m WHERE EXISTS (SELECT 1 FROM loves l WHERE l.member_id = m.id) ORDER BY m.id LIMIT 5")
  const artistWords = await column(
    "SELECT split_part(name, ' ', 1) AS v FROM artists WHERE id % 4999 = 7 AND length(split_part(name, ' ', 1)) >= 4 ORDER BY id LIMIT 6")
  const nameFragments = await column("SELECT substr(search_name, 2, 4) AS v FROM members WHERE id % 9973 = 3 ORDER BY id LIMIT 4")
  const titles = await column("SELECT title AS v FROM public_songs WHERE id % 9973 = 5 ORDER BY id LIMIT 6")
  const names = await column("SELECT name AS v FROM artists WHERE id % 7919 = 11 ORDER BY id LIMIT 6")
  const years = ["1998", "2015", "2023"]
  const publicSongCount = Number((await column("SELECT count(*) AS v FROM public_songs"))[0])
  // every offset depth up to the largest the API takes: past the end, the middle, near the end
  const songOffsets = ["0", "2000", "10000", "100000", String(Math.floor(publicSongCount / 2)), String(publicSongCount - 20), "2147483647"]
  const rareGenres = await column("SELECT g.slug AS v FROM genres g JOIN genre_counts c ON c.genre_id = g.id ORDER BY c.live_songs, g.id LIMIT 2")
  // performers who are prolific in another role (any-role count high, performer credits few)
  const writerPerformedSongs = await column(`SELECT min(c.song_id) AS v FROM artist_song_counts ac
    JOIN credits c ON c.artist_id = ac.artist_id JOIN roles r ON r.id = c.role_id AND r.tag = 'performer'
    JOIN public_songs s ON s.id = c.song_id
    WHERE ac.artist_id IN (SELECT artist_id FROM artist_song_counts ORDER BY settled_songs DESC, artist_id LIMIT 40)
    GROUP BY ac.artist_id HAVING count(*) < 50 ORDER BY ac.artist_id LIMIT 4`)
  const rareGenreSongs = await column(`SELECT min(s.id) AS v FROM public_songs s JOIN song_genres g ON g.song_id = s.id
    WHERE g.genre_id IN (SELECT genre_id FROM genre_counts ORDER BY live_songs, genre_id LIMIT 3)
      AND NOT EXISTS (SELECT 1 FROM song_genres o JOIN genre_counts oc ON oc.genre_id = o.genre_id
                      WHERE o.song_id = s.id AND oc.live_songs > 20000)
    GROUP BY g.genre_id ORDER BY 1`)
  const muchEditedSongs = await column(
    "SELECT song_id AS v FROM contributions GROUP BY song_id ORDER BY count(*) DESC, song_id LIMIT 3")
  // one wrong letter in the middle of a name (the typo fallback)
  const typo = (text: string) => {
    const at = Math.floor(text.length / 2)
    return text.slice(0, at) + (text[at] === "a" ? "e" : "a") + text.slice(at + 1)
  }
  const searchQueries = [
    ...titles, // whole titles: long, multi-word
    ...names,
    ...titles.map((t) => t.slice(0, 4)), // prefixes
    ...titles.map((t) => t.split(" ").slice(0, 2).join(" ")), // the first two words
    ...names.filter((n) => n.length >= 8).slice(0, 4).map(typo),
    // one and two letters; common words (thousands of matches at 1M songs); a nonsense word
    "a", "si", "ku", "lov", "cinta", "lagu", "rindu", "love", "dato sri", "cinta yang", "xqzw", commonWord!
  ]
  const each = <A>(values: ReadonlyArray<A>, f: (value: A) => string) => values.map(f)
  const songSorts = ["released", "popular", "title"]
  const deepOffsets = ["0", "2000", "10000"]
  const visibleArtists = Number((await column("SELECT visible_artist_count() AS v"))[0])
  // and the middle and last pages of every visible artist
  const artistOffsets = [...deepOffsets, String(Math.floor(visibleArtists / 2)), String(visibleArtists - 20)]
  const [mostCreditedPerformer] = performerCounts[0]!.split(",")
  const largest = [
    `the most credited performers ${performerCounts.map((a) => a.replace(",", " (")).join(" songs), ")} songs) and writers ${
      writerCounts.map((a) => a.replace(",", " (")).join(" songs), ")} songs): the similar songs of their most watched songs and of the 6 most watched songs of both`,
    `the artists of the most credits and the two most credited performers and writers ${prolificArtists.join(", ")}: their songs in every role and their albums`,
    `the artist of the most songs in any role ${mostCredited} (${mostCreditedSongs} songs): his songs at the middle and near the end`,
    `the artists of the most albums ${albumArtists.map((a) => a.replace(",", " (")).join(" albums), ")} albums): their albums`,
    `the 20 most credited artists with namesakes: one page of namesake hints`,
    `the biggest genre \`${bigGenre}\` (${bigGenreSongs} songs) and label ${bigLabels[0]} (${bigLabelSongs} songs): their lists at every depth, two of its songs' similar songs`,
    `the busiest member \`${activeUsers[0]}\` (${busiestContributions} contributions)`,
    `search: the title word most songs start with, \`${commonWord}\` (${commonWordSongs} songs), and common words (\`cinta\`, \`lagu\`, \`love\`)`
  ]
  const families = [
    { name: "/v1/songs/{id}", paths: each([...popularSongs, ...rareSongs, ...someSongs], (id) => `/v1/songs/${id}`) },
    {
      name: "/v1/songs/{id}/similar",
      paths: each(
        [...popularSongs, ...rareSongs, ...someSongs, ...writerPerformedSongs, ...rareGenreSongs, ...biggestPerformersSongs, ...biggestWritersSongs, ...biggestPairsSongs, ...bigGenreSongIds],
        (id) => `/v1/songs/${id}/similar`
      )
    },
    {
      name: "/v1/songs/{id}/contributors",
      paths: each([...popularSongs, ...someSongs, ...muchEditedSongs], (id) => `/v1/songs/${id}/contributors`)
    },
    {
      name: "/v1/songs (sorts, offsets)",
      paths: songSorts.flatMap((sort) =>
        ["asc", "desc"].flatMap((order) => songOffsets.map((offset) => `/v1/songs?sort=${sort}&order=${order}&offset=${offset}`))
      )
    },
    {
      name: "/v1/songs (genre, label, year filters)",
      paths: [
        ...[...genres.slice(0, 4), ...rareGenres].map((g) => `/v1/songs?genre=${g}`),
        ...[...bigLabels.slice(0, 2), ...smallLabels.slice(0, 2)].map((l) => `/v1/songs?label=${l}`),
        ...years.map((y) => `/v1/songs?year=${y}`),
        `/v1/songs?year=2015&offset=5000`,
        `/v1/songs?year=2015&order=asc&offset=20000`,
        `/v1/songs?genre=${bigGenre}&sort=title&offset=${ownerOffsets(Number(bigGenreSongs))[0]}`,
        `/v1/songs?label=${bigLabels[0]}&sort=popular&order=asc&offset=${ownerOffsets(bigLabelSongs)[0]}`
      ]
    },
    {
      name: "/v1/songs (two and three filters)",
      paths: [
        ...[genres[0]!, genres[1]!, rareGenres[0]!].flatMap((g) => [
          ...years.map((y) => `/v1/songs?genre=${g}&year=${y}`),
          `/v1/songs?genre=${g}&label=${bigLabels[0]}`,
          `/v1/songs?genre=${g}&label=${smallLabels[0]}`,
          `/v1/songs?genre=${g}&label=${bigLabels[0]}&year=2015`,
          `/v1/songs?genre=${g}&label=${smallLabels[0]}&year=2015&sort=popular`
        ]),
        ...[bigLabels[0]!, bigLabels[1]!, smallLabels[0]!].flatMap((l) => years.map((y) => `/v1/songs?label=${l}&year=${y}&sort=title`)),
        `/v1/songs?genre=${genres[0]}&year=2015&offset=1000`,
        // deep in another order: the genre's songs of the year read by key (6k at 1M), then sorted
        `/v1/songs?genre=${genres[0]}&year=2015&sort=title&offset=3000`,
        `/v1/songs?genre=${genres[0]}&year=2023&sort=popular&order=asc&offset=100`,
        `/v1/songs?genre=${genres[0]}&label=${bigLabels[0]}&sort=popular&offset=400`
      ]
    },
    {
      name: "/v1/albums (sorts, types)",
      paths: ["released", "title"].flatMap((sort) =>
        ["", "&type=album", "&type=ep", "&type=single"].flatMap((type) =>
          ["0", "5000", "40000", "2147483647"].map((offset) => `/v1/albums?sort=${sort}${type}&offset=${offset}`)
        )
      ).concat(["/v1/albums?order=asc", "/v1/albums?sort=title&order=desc&offset=60000"])
    },
    { name: "/v1/albums/{id}", paths: each(albums, (id) => `/v1/albums/${id}`) },
    { name: "/v1/curated-lists", paths: ["/v1/curated-lists", "/v1/curated-lists?offset=40"] },
    { name: "/v1/curated-lists/{id}", paths: each([...lists, ...bigLists], (id) => `/v1/curated-lists/${id}`) },
    { name: "/v1/artists?sort=name", paths: artistOffsets.map((o) => `/v1/artists?sort=name&offset=${o}`) },
    { name: "/v1/artists?sort=songs", paths: artistOffsets.map((o) => `/v1/artists?sort=songs&offset=${o}`) },
    {
      name: "/v1/artists?q=",
      // words, and one and two letters (no trigram: the kept names), common and matching nothing
      paths: [...artistWords, ...SHORT_QUERIES].flatMap((w) => [`/v1/artists?q=${enc(w)}`, `/v1/artists?q=${enc(w)}&sort=songs`])
    },
    { name: "/v1/artists/{id}", paths: each([...prolificArtists, ...rareArtists], (id) => `/v1/artists/${id}`) },
    {
      name: "/v1/artists/{id}/songs",
      paths: [
        ...[...prolificArtists, ...rareArtists].flatMap((id) =>
          ["", "?role=performer", "?role=writer", "?offset=200"].map((query) => `/v1/artists/${id}/songs${query}`)
        ),
        ...ownerOffsets(mostCreditedSongs).map((o) => `/v1/artists/${mostCredited}/songs?offset=${o}`),
        `/v1/artists/${mostCreditedPerformer}/songs?role=performer&offset=2000`
      ]
    },
    {
      name: "/v1/artists/{id}/albums",
      paths: [
        ...each([...prolificArtists, ...rareArtists, ...albumArtists.map((a) => a.split(",")[0]!)], (id) => `/v1/artists/${id}/albums`),
        `/v1/artists/${albumArtists[0]!.split(",")[0]}/albums?offset=${Math.max(Number(albumArtists[0]!.split(",")[1]) - 20, 0)}`
      ]
    },
    {
      name: "/v1/artists/namesake-hints",
      paths: [
        `/v1/artists/namesake-hints?ids=${[...prolificArtists, ...rareArtists].join(",")}`,
        // a page of the most credited artists that have namesakes: each gets a hint
        `/v1/artists/namesake-hints?ids=${prolificNamesakes.join(",")}`
      ]
    },
    { name: "/v1/genres", paths: ["/v1/genres"] },
    { name: "/v1/genres/{slug}", paths: each([...genres.slice(0, 6), bigGenre!, ...smallGenres], (g) => `/v1/genres/${g}`) },
    {
      name: "/v1/genres/{slug}/songs",
      paths: [
        ...[...genres.slice(0, 4), bigGenre!, ...smallGenres].flatMap((g) => songSorts.map((sort) => `/v1/genres/${g}/songs?sort=${sort}`)),
        ...[genres[0], smallGenres[0]].map((g) => `/v1/genres/${g}/songs?offset=2000`),
        ...songSorts.flatMap((sort) => ownerOffsets(Number(bigGenreSongs)).map((o) => `/v1/genres/${bigGenre}/songs?sort=${sort}&offset=${o}`))
      ]
    },
    {
      name: "/v1/labels",
      paths: [
        "/v1/labels", "/v1/labels?order=asc", "/v1/labels?sort=name", "/v1/labels?sort=name&order=desc", "/v1/labels?sort=album_count",
        "/v1/labels?q=records", "/v1/labels?q=xqzw", ...SHORT_QUERIES.map((q) => `/v1/labels?q=${q}`), "/v1/labels?sort=name&q=music", "/v1/labels?offset=500",
        "/v1/labels?sort=album_count&offset=1900"
      ]
    },
    { name: "/v1/labels/{id}", paths: each([...bigLabels, ...smallLabels], (id) => `/v1/labels/${id}`) },
    {
      name: "/v1/labels/{id}/songs",
      paths: [
        ...[...bigLabels, ...midLabels, ...smallLabels].flatMap((id) => songSorts.map((sort) => `/v1/labels/${id}/songs?sort=${sort}`)),
        ...[bigLabels[0], midLabels[0]].map((id) => `/v1/labels/${id}/songs?offset=1000`),
        ...songSorts.flatMap((sort) => ownerOffsets(bigLabelSongs).map((o) => `/v1/labels/${bigLabels[0]}/songs?sort=${sort}&offset=${o}`))
      ]
    },
    {
      name: "/v1/users (contributions, joined)",
      paths: [
        "/v1/users", "/v1/users?order=asc", "/v1/users?sort=joined", "/v1/users?sort=joined&order=asc", "/v1/users?type=artists",
        "/v1/users?type=groups", "/v1/users?type=fans&offset=2000", ...nameFragments.slice(0, 2).map((q) => `/v1/users?q=${enc(q)}`),
        "/v1/users?offset=5000", "/v1/users?sort=joined&offset=5000"
      ]
    },
    {
      name: "/v1/users?sort=name (q)",
      paths: [
        "/v1/users?sort=name", "/v1/users?sort=name&order=desc", ...nameFragments.map((q) => `/v1/users?sort=name&q=${enc(q)}`),
        "/v1/users?sort=name&q=xqzw", "/v1/users?sort=name&type=artists", "/v1/users?sort=name&offset=5000",
        ...SHORT_QUERIES.map((q) => `/v1/users?sort=name&q=${q}`)
      ]
    },
    {
      name: "/v1/users/{u}/contributions",
      paths: [
        ...each([...activeUsers, ...quietUsers], (u) => `/v1/users/${enc(u)}/contributions`),
        ...ownerOffsets(busiestContributions).map((o) => `/v1/users/${enc(activeUsers[0]!)}/contributions?offset=${o}`)
      ]
    },
    { name: "/v1/users/{u}/loves", paths: each(lovers, (u) => `/v1/users/${enc(u)}/loves`) },
    { name: "/v1/search", paths: searchQueries.map((q) => `/v1/search?q=${enc(q)}`) },
    { name: "/v1/search?types=songs", paths: searchQueries.map((q) => `/v1/search?q=${enc(q)}&types=songs&limit=20`) },
    { name: "/v1/discovery", paths: ["/v1/discovery"] },
    { name: "/v1/stats", paths: ["/v1/stats"] },
    { name: "/v1 and /v1/health", paths: ["/v1", "/v1/health"] }
  ]
  return { families, largest }
}

const timeOne = async (url: string) => {
  const started = performance.now()
  const response = await fetch(url, { headers: { "accept-encoding": "identity" } })
  await response.arrayBuffer()
  return { ms: performance.now() - started, status: response.status }
}

const measure = async (baseUrl: string, family: Family, requests: number): Promise<FamilyResult> => {
  for (const path of family.paths) await timeOne(baseUrl + path)
  const times: Array<number> = []
  const statuses = new Map<number, number>()
  // every path at least once: a family's largest groups are often its last paths
  for (let i = 0; i < Math.max(requests, family.paths.length); i++) {
    const { ms, status } = await timeOne(baseUrl + family.paths[i % family.paths.length]!)
    times.push(ms)
    statuses.set(status, (statuses.get(status) ?? 0) + 1)
  }
  times.sort((a, b) => a - b)
  return {
    name: family.name,
    paths: family.paths.length,
    p50: percentile(times, 50),
    p95: percentile(times, 95),
    p99: percentile(times, 99),
    max: times[times.length - 1] ?? NaN,
    statuses: [...statuses].map(([status, n]) => `${n}x${status}`).join(" ")
  }
}

const ms = (value: number) => value.toFixed(1)

const renderSection = (songs: number, how: string, largest: ReadonlyArray<string>, results: ReadonlyArray<FamilyResult>, requests: number) => {
  const limit95 = songs >= 1_000_000 ? 50 : 25
  const rows = results.map((r) =>
    `| \`${r.name}\` | ${r.paths} | ${ms(r.p50)} | ${ms(r.p95)}${r.p95 > limit95 ? " **over**" : ""} | ${ms(r.p99)} | ${ms(r.max)} | ${r.statuses} |`)
  return [
    `## Sweep at ${songs.toLocaleString("en-US")} songs`,
    "",
    how,
    "",
    `One client, response cache off, ${requests} requests per family or one per path if more (cycling over its paths,`,
    `after one warm-up pass over them); milliseconds over HTTP on loopback. Target p95 <= ${limit95} ms${songs >= 1_000_000 ? ", p99 <= 100 ms" : ""}.`,
    "",
    "The largest groups of the catalogue among the paths (beside typical and rare ones):",
    "",
    ...largest.map((line) => `- ${line}`),
    "",
    "| family | paths | p50 | p95 | p99 | max | statuses |",
    "|---|---:|---:|---:|---:|---:|---|",
    ...rows
  ].join("\n")
}

/** Replaces (or appends) the section between `<!-- name -->` and `<!-- /name -->` in RESULTS.md, leaving the rest as it is. */
export const writeResultsSection = (name: string, section: string) => {
  const file = resolve(HERE, "RESULTS.md")
  const begin = `<!-- ${name} -->`
  const end = `<!-- /${name} -->`
  const current = existsSync(file) ? readFileSync(file, "utf8") : ""
  const block = `${begin}\n${section}\n${end}`
  const at = current.indexOf(begin)
  const next = at === -1
    ? `${current.trimEnd()}\n\n${block}\n`
    : current.slice(0, at) + block + current.slice(current.indexOf(end) + end.length)
  writeFileSync(file, next)
}

/**
 * The sweep, cluster, relevance, fairness and mirror sections of a RESULTS.md, and the notes of
 * figures written by hand (`<!-- note name -->`, from the commands that print them), so that the
 * load bench can keep them when it rewrites the file.
 */
export const sweepSections = (text: string): string =>
  [...text.matchAll(/<!-- (sweep \d+|cluster|relevance [\w-]+|fairness \d+|mirror \d+|note [\w-]+) -->[\s\S]*?<!-- \/\1 -->/g)].map((m) => m[0]).join("\n\n")

export const runSweep = async (serverUrl: string, options: SweepOptions, log: (line: string) => void) => {
  const started = performance.now()
  const servers: Array<ServerProcess> = []
  try {
    let url: string
    let how: string
    if (options.database !== undefined) {
      url = await migrateExisting(serverUrl, options.database, log)
      how = `Catalogue: the existing database \`${options.database}\`, migrated (made by \`bun run seed --songs ${options.songs}\`).`
    } else {
      const name = sweepDatabaseName(options.songs)
      const catalogue = await ensureCatalogue(serverUrl, name, options.songs, { quiet: false, log })
      url = catalogue.url
      how = `Catalogue: \`${name}\`, \`bun run seed --songs ${options.songs}\` (seed 1), ${catalogue.reused ? "reused" : "seeded for this run"}, migrated.`
    }
    const publicSongs = (await queryColumn(url, "SELECT count(*) AS v FROM public_songs"))[0]
    how += ` ${Number(publicSongs).toLocaleString("en-US")} public songs; PostgreSQL ${await serverVersion(url)}; ${new Date().toISOString().slice(0, 16)}Z.`
    const port = freePort()
    const service = await startServer("service", ["bun", "src/main.ts"], {
      DATABASE_URL: url,
      PORT: String(port),
      LOG_LEVEL: "warn",
      CACHE_TTL_SECONDS: "0",
      RATE_LIMIT_CAPACITY: "1000000000",
      RATE_LIMIT_MAX_IN_FLIGHT: "1000000"
    }, port)
    servers.push(service)
    const results: Array<FamilyResult> = []
    const { families: all, largest } = await sweepPaths(url)
    const families = options.families === undefined ? all : all.filter((family) => options.families!.includes(family.name))
    for (const family of families) {
      const result = await measure(service.baseUrl, family, options.requests)
      log(`${result.name.padEnd(40)} p50 ${ms(result.p50).padStart(7)}  p95 ${ms(result.p95).padStart(7)}  p99 ${ms(result.p99).padStart(7)}  ${result.statuses}`)
      results.push(result)
    }
    how += ` Load average at the end: ${loadavg()[0]!.toFixed(1)} (1 minute; 2 cores shared with other work).`
    if (options.families !== undefined) return
    writeResultsSection(`sweep ${options.songs}`, renderSection(options.songs, how, largest, results, options.requests))
    log(`wrote the ${options.songs}-song sweep to test/bench/RESULTS.md in ${((performance.now() - started) / 1000).toFixed(0)} s`)
  } finally {
    await Promise.all(servers.map((server) => server.stop()))
  }
}

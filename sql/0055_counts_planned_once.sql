-- Three more counts that list pages and details call, made cheap to call (as sql/0026 and 0054
-- did for others): LANGUAGE sql with subqueries is never inlined, so each call site was parsed
-- and planned at every execution of the calling statement. A year's songs
-- (public_songs_released_between: a year page calls it up to three times), an artist's albums
-- and an artist's songs in one role (the artist detail and its role lists): the three together
-- ~2.1-2.9 ms a statement at 100k songs, ~0.4-0.5 ms in PL/pgSQL, which keeps their plans for the
-- session. The same bodies.

CREATE OR REPLACE FUNCTION public_songs_released_between(from_date date, until_date date) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN (SELECT coalesce(sum(live_songs), 0) FROM song_date_counts
          WHERE released_at >= from_date AND released_at < until_date)
       - (SELECT count(*) FROM scheduled_song_links_now WHERE released_at >= from_date AND released_at < until_date);
END $$;
CREATE OR REPLACE FUNCTION public_artist_tag_song_count(artist integer, role_tag text) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN coalesce((SELECT k.settled_songs FROM artist_tag_song_counts k WHERE k.artist_id = artist AND k.tag = role_tag), 0)
       + (SELECT count(*) FROM scheduled_song_links l
          WHERE scheduled_link_is_due(l.published_at) AND artist = ANY (l.artist_ids)
            AND EXISTS (SELECT 1 FROM credits c JOIN roles r ON r.id = c.role_id
                        WHERE c.song_id = l.song_id AND c.artist_id = artist AND r.tag = role_tag OFFSET 0));
END $$;
CREATE OR REPLACE FUNCTION public_artist_album_count(artist integer) RETURNS bigint LANGUAGE plpgsql STABLE AS $$
BEGIN
  RETURN coalesce((SELECT k.live_albums FROM artist_album_counts k WHERE k.artist_id = artist), 0)
       - (SELECT count(*) FROM artist_album_links k WHERE k.artist_id = artist AND album_is_scheduled(k.published_at))
       + (SELECT count(*) FROM due_artist_albums(artist));
END $$;

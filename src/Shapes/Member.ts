/** The SQL that builds the member shapes (Schemas: src/Contract/Member.ts). */
import {
  ContributionDetails,
  ContributionEntry,
  ContributorProfile,
  CreditChange,
  LinkChange,
  SongContribution,
  SongContributors,
  UserRef
} from "../Contract/Member.js"
import { jsonArraySql } from "./JsonSql.js"
import { objectSql, shape } from "./Shape.js"
import { PLACEHOLDER, songSummaryOf } from "./Song.js"

/** Contributions on public songs of members row `m`, from kept counts. */
export const memberContributionCountSql = (m: string) =>
  `coalesce((SELECT mc.contribution_count FROM public_member_contributions mc WHERE mc.member_id = ${m}.id), 0)`

/** Contributor profile for a public members row `m`, with its contribution count as an SQL expression. */
export const contributorProfile = shape(ContributorProfile, (m: string, contributionCount: string) => ({
  username: `${m}.username`,
  name: `${m}.name`,
  avatar_url: `asset_url(${m}.avatar_key, '${PLACEHOLDER.avatar}')`,
  is_fan: `${m}.kind = 'fan'`,
  is_artist: `${m}.kind = 'artist'`,
  is_group: `${m}.kind = 'group'`,
  joined_at: `iso_time(${m}.joined_at)`,
  contribution_count: contributionCount
}), { from: "public_members m", args: ["m", memberContributionCountSql("m")] })

/** The member who made a contribution, or "Former member" when they are banned or have no handle. */
export const formerMember = shape(UserRef, () => ({
  username: "''",
  name: "'Former member'",
  avatar_url: `asset_url(NULL, '${PLACEHOLDER.avatar}')`
}), { args: [] }, "FormerMember")

/** UserRef for members row `m`. */
export const userRef = shape(UserRef, (m: string) => ({
  username: `${m}.username`,
  name: `${m}.name`,
  avatar_url: `asset_url(${m}.avatar_key, '${PLACEHOLDER.avatar}')`
}), { from: "public_members m", args: ["m"] })

/** UserRef for members row `m`, "Former member" when not public (banned or without a handle). */
export const userRefOrFormerSql = (m: string) => `CASE WHEN member_is_public(${m}.username, ${m}.is_banned)
  THEN ${userRef.json(m)}
  ELSE ${formerMember.json()} END`

/** The object elements of jsonb array `details->key` (none when it is not an array) as `element`, in order. */
const detailsArraySql = (details: string, key: string, element: string) => `(
      SELECT ${jsonArraySql(element, "n")}
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${details}->'${key}') = 'array'
                                     THEN ${details}->'${key}' ELSE '[]'::jsonb END) WITH ORDINALITY AS x(e, n)
      WHERE jsonb_typeof(e) = 'object')`

const creditChangeSql = objectSql(CreditChange, {
  artist_name: "coalesce(e->>'artist_name', '')",
  role_name: "coalesce(e->>'role_name', '')"
})

const flagSql = (details: string, key: string) => `coalesce(${details}->'${key}' = 'true'::jsonb, false)`

/**
 * `details` from the stored jsonb expression `details`: exactly these fields, whatever the
 * jsonb holds; absent or mistyped values get defaults ([] for the arrays, false for the flags,
 * "" for texts). 
 */
export const contributionDetails = shape(ContributionDetails, (details: string) => ({
  added_credits: detailsArraySql(details, "added_credits", creditChangeSql),
  removed_credits: detailsArraySql(details, "removed_credits", creditChangeSql),
  changed_genres: flagSql(details, "changed_genres"),
  changed_labels: flagSql(details, "changed_labels"),
  changed_lyrics: flagSql(details, "changed_lyrics"),
  changed_notes: flagSql(details, "changed_notes"),
  changed_title: flagSql(details, "changed_title"),
  changed_release_date: flagSql(details, "changed_release_date"),
  changed_artwork: flagSql(details, "changed_artwork"),
  links: detailsArraySql(
    details,
    "links",
    objectSql(LinkChange, { service: "coalesce(e->>'service', '')", change: "coalesce(e->>'change', '')" })
  )
}), { from: "contributions c", args: ["c.details"] })

/** Contribution entry for contributions row `c`; the song is a song summary. */
export const contributionEntry = shape(ContributionEntry, (c: string) => ({
  id: `${c}.id`,
  action: `${c}.action`,
  action_at: `iso_time(${c}.action_at)`,
  details: contributionDetails.json(`${c}.details`),
  song: songSummaryOf(`${c}.song_id`)
}), { from: "contributions c", args: ["c"] })

/** The adder of song `s`: the first `add`, else the first contributor. */
const adderSql = (s: string) => `(SELECT ${userRefOrFormerSql("m")} FROM contributions c JOIN members m ON m.id = c.member_id
       WHERE c.song_id = ${s}.id ORDER BY c.action = 'add' DESC, c.action_at, c.id LIMIT 1)`

/**
 * Song contributors of songs row `s`: the adder is the first `add` (else the first contributor),
 * the editor the latest `edit` (else the adder); the history is newest first.
 */
export const songContributors = shape(SongContributors, (s: string) => ({
  song_id: `${s}.id`,
  added_by: `coalesce(
      ${adderSql(s)},
      ${formerMember.json()})`,
  edited_by: `coalesce(
      (SELECT ${userRefOrFormerSql("m")} FROM contributions c JOIN members m ON m.id = c.member_id
       WHERE c.song_id = ${s}.id AND c.action = 'edit' ORDER BY c.action_at DESC, c.id DESC LIMIT 1),
      ${adderSql(s)},
      ${formerMember.json()})`,
  contributions: `(
      SELECT ${
    jsonArraySql(
      objectSql(SongContribution, { action: "c.action", action_at: "iso_time(c.action_at)", user: userRefOrFormerSql("m") }),
      "c.action_at DESC, c.id DESC"
    )
  }
      FROM contributions c JOIN members m ON m.id = c.member_id WHERE c.song_id = ${s}.id)`
}), { from: "public_songs s", args: ["s"] })


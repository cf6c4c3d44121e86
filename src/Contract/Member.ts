/**
 * The member shapes and the SQL that builds them: the contributor profile (/v1/users, search),
 * a member as history shows them, contributions and a song's contributors.
 */
import * as Schema from "effect/Schema"
import { jsonArraySql } from "../Shapes/JsonSql.js"
import { objectSql, shape } from "../Shapes/Shape.js"
import { PLACEHOLDER, SongSummary, songSummaryOf } from "./Song.js"

/** Contributor profile. Email, roles, ban state and the internal id are never part of it. */
export const ContributorProfile = Schema.Struct({
  username: Schema.String,
  name: Schema.String,
  avatar_url: Schema.String,
  is_fan: Schema.Boolean,
  is_artist: Schema.Boolean,
  is_group: Schema.Boolean,
  joined_at: Schema.String.annotate({ description: "RFC 3339 UTC with milliseconds." }),
  contribution_count: Schema.Int.annotate({ description: "Contributions on public songs." })
}).annotate({ identifier: "ContributorProfile" })

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

/** A member as history shows them; banned or handle-less members are "Former member". */
export const UserRef = Schema.Struct({
  username: Schema.String,
  name: Schema.String,
  avatar_url: Schema.String
}).annotate({ identifier: "UserRef" })

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

const CreditChange = Schema.Struct({ artist_name: Schema.String, role_name: Schema.String })
const LinkChange = Schema.Struct({ service: Schema.String, change: Schema.String })

/** Contribution entry `details`: every field always present; absent ones are [] or false. */
export const ContributionDetails = Schema.Struct({
  added_credits: Schema.Array(CreditChange),
  removed_credits: Schema.Array(CreditChange),
  changed_genres: Schema.Boolean,
  changed_labels: Schema.Boolean,
  changed_lyrics: Schema.Boolean,
  changed_notes: Schema.Boolean,
  changed_title: Schema.Boolean,
  changed_release_date: Schema.Boolean,
  changed_artwork: Schema.Boolean,
  links: Schema.Array(LinkChange)
}).annotate({ identifier: "ContributionDetails" })

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

/** Contribution entry. */
export const ContributionEntry = Schema.Struct({
  id: Schema.Int,
  action: Schema.String.annotate({ description: "`add` or `edit`." }),
  action_at: Schema.String.annotate({ description: "RFC 3339 UTC with milliseconds." }),
  details: ContributionDetails,
  song: SongSummary
}).annotate({ identifier: "ContributionEntry" })

/** Contribution entry for contributions row `c`; the song is a song summary. */
export const contributionEntry = shape(ContributionEntry, (c: string) => ({
  id: `${c}.id`,
  action: `${c}.action`,
  action_at: `iso_time(${c}.action_at)`,
  details: contributionDetails.json(`${c}.details`),
  song: songSummaryOf(`${c}.song_id`)
}), { from: "contributions c", args: ["c"] })

const SongContribution = Schema.Struct({ action: Schema.Literals(["add", "edit"]), action_at: Schema.String, user: UserRef })

/** Song contributors. */
export const SongContributors = Schema.Struct({
  song_id: Schema.Int,
  added_by: UserRef,
  edited_by: UserRef,
  contributions: Schema.Array(SongContribution).annotate({ description: "The song's add and edit history, newest first." })
}).annotate({ identifier: "SongContributors" })

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

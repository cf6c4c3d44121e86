/**
 * The member Schemas: the contributor profile (/v1/users, search), a member as history shows
 * them, contributions and a song's contributors; their SQL: src/Shapes/Member.ts.
 */
import * as Schema from "effect/Schema"
import { SongSummary } from "./Song.js"

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

/** A member as history shows them; banned or handle-less members are "Former member". */
export const UserRef = Schema.Struct({
  username: Schema.String,
  name: Schema.String,
  avatar_url: Schema.String
}).annotate({ identifier: "UserRef" })

export const CreditChange = Schema.Struct({ artist_name: Schema.String, role_name: Schema.String })
export const LinkChange = Schema.Struct({ service: Schema.String, change: Schema.String })

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

/** Contribution entry. */
export const ContributionEntry = Schema.Struct({
  id: Schema.Int,
  action: Schema.String.annotate({ description: "`add` or `edit`." }),
  action_at: Schema.String.annotate({ description: "RFC 3339 UTC with milliseconds." }),
  details: ContributionDetails,
  song: SongSummary
}).annotate({ identifier: "ContributionEntry" })

export const SongContribution = Schema.Struct({ action: Schema.Literals(["add", "edit"]), action_at: Schema.String, user: UserRef })

/** Song contributors. */
export const SongContributors = Schema.Struct({
  song_id: Schema.Int,
  added_by: UserRef,
  edited_by: UserRef,
  contributions: Schema.Array(SongContribution).annotate({ description: "The song's add and edit history, newest first." })
}).annotate({ identifier: "SongContributors" })

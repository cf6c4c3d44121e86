import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { ListEnvelope } from "../Domain/Envelope.js"
import { BadRequestError, NotFoundError } from "../Domain/Errors.js"
import { ChoiceParam, OrderParam, PageParams, TextParam } from "../Domain/Params.js"
import { SearchTextParam } from "../Domain/SearchText.js"
import { SongSummary } from "../Domain/Song.js"

/** Contributor profile. Email, roles, ban state and the internal id are never part of it. */
export const ContributorProfile = Schema.Struct({
  username: Schema.String,
  name: Schema.String,
  avatar_url: Schema.String,
  is_fan: Schema.Boolean,
  is_artist: Schema.Boolean,
  is_group: Schema.Boolean,
  joined_at: Schema.String.annotations({ description: "RFC 3339 UTC with milliseconds." }),
  contribution_count: Schema.Int.annotations({ description: "Contributions on public songs." })
}).annotations({ identifier: "ContributorProfile" })

const CreditChange = Schema.Struct({ artist_name: Schema.String, role_name: Schema.String })

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
  links: Schema.Array(Schema.Struct({ service: Schema.String, change: Schema.String }))
}).annotations({ identifier: "ContributionDetails" })

/** Contribution entry. */
export const ContributionEntry = Schema.Struct({
  id: Schema.Int,
  action: Schema.String.annotations({ description: "`add` or `edit`." }),
  action_at: Schema.String.annotations({ description: "RFC 3339 UTC with milliseconds." }),
  details: ContributionDetails,
  song: SongSummary
}).annotations({ identifier: "ContributionEntry" })

/** A public handle. A purely numeric value is an internal user id, never accepted (docs/api.md). */
export const UsernameParam = TextParam("username").pipe(
  Schema.filter((text) => !/^[0-9]+$/.test(text), {
    message: () => "user ids are not accepted; use the public username"
  })
).annotations({
  jsonSchema: {
    type: "string",
    minLength: 1,
    pattern: "[^0-9]",
    description: "The member's public username (case-insensitive). A value made only of digits is an internal " +
      "user id and is refused with bad_request."
  }
})

export const UsersListParams = Schema.Struct({
  q: Schema.optional(SearchTextParam),
  type: Schema.optional(ChoiceParam("type", "artists", "fans", "groups")),
  sort: Schema.optional(ChoiceParam("sort", "contributions", "joined", "name")),
  order: Schema.optional(OrderParam),
  ...PageParams
})

const byUsername = Schema.Struct({ username: UsernameParam })

export class UsersApi extends HttpApiGroup.make("Users")
  .add(
    HttpApiEndpoint.get("list", "/users")
      .setUrlParams(UsersListParams)
      .addSuccess(ListEnvelope(ContributorProfile, "ContributorProfileList"))
      .addError(BadRequestError)
      .annotate(OpenApi.Summary, "Public contributor profiles, most contributions first")
      .annotate(
        OpenApi.Description,
        "`q` matches names and usernames; `type` keeps artists, fans or groups; `sort` is `contributions` " +
          "(most first, default), `joined` (newest first) or `name` (A-Z), and `order` flips it. Members " +
          "without a username and banned members never appear."
      )
  )
  .add(
    HttpApiEndpoint.get("contributions", "/users/:username/contributions")
      .setPath(byUsername)
      .setUrlParams(Schema.Struct(PageParams))
      .addSuccess(ListEnvelope(ContributionEntry, "ContributionEntryList"))
      .addError(BadRequestError)
      .addError(NotFoundError)
      .annotate(OpenApi.Summary, "A member's contributions on public songs, newest first")
  )
  .add(
    HttpApiEndpoint.get("loves", "/users/:username/loves")
      .setPath(byUsername)
      .setUrlParams(Schema.Struct(PageParams))
      .addSuccess(ListEnvelope(SongSummary, "LovedSongList"))
      .addError(BadRequestError)
      .addError(NotFoundError)
      .annotate(OpenApi.Summary, "Public songs a member loves, most recently loved first")
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Users") {}

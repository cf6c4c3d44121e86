import * as HttpApiGroup from "effect/http-api/HttpApiGroup"
import * as OpenApi from "effect/http-api/OpenApi"
import * as Schema from "effect/Schema"
import { CheckedText, ChoiceParam, isDatabaseText, OrderParam, PageParams } from "../Contract/Params.js"
import { ContributionEntry, ContributorProfile } from "../Contract/Member.js"
import { SearchTextParam } from "../Contract/SearchText.js"
import { SongSummary } from "../Contract/Song.js"
import { listEndpoint, ownedListEndpoint } from "../Contract/Endpoints.js"

/** A public handle. A purely numeric value is an internal user id, never accepted (docs/api.md). */
export const UsernameParam = CheckedText(
  (text) =>
    !isDatabaseText(text)
      ? "username must be valid UTF-8 text without NUL characters."
      : /^[0-9]+$/.test(text)
      ? "user ids are not accepted; use the public username"
      : undefined,
  {
    type: "string",
    minLength: 1,
    pattern: "[^0-9]",
    description: "The member's public username (case-insensitive). A value made only of digits is an internal " +
      "user id and is refused with bad_request."
  }
)

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
    listEndpoint("list", "/users", UsersListParams, ContributorProfile, "ContributorProfileList", "Public contributor profiles, most contributions first")
      .annotate(
        OpenApi.Description,
        "`q` matches names and usernames; `type` keeps artists, fans or groups; `sort` is `contributions` " +
          "(most first, default), `joined` (newest first) or `name` (A-Z), and `order` flips it. Members " +
          "without a username and banned members never appear."
      )
  )
  .add(
    ownedListEndpoint("contributions", "/users/:username/contributions", { path: byUsername, query: Schema.Struct(PageParams) }, ContributionEntry, "ContributionEntryList", "A member's contributions on public songs, newest first")
  )
  .add(
    ownedListEndpoint("loves", "/users/:username/loves", { path: byUsername, query: Schema.Struct(PageParams) }, SongSummary, "LovedSongList", "Public songs a member loves, most recently loved first")
  )
  .prefix("/v1")
  .annotate(OpenApi.Title, "Users") {}

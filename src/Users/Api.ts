import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import { ListEnvelope } from "../Domain/Envelope.js"
import { BadRequestError, NotFoundError } from "../Domain/Errors.js"
import { ChoiceParam, OrderParam, PageParams, TextParam } from "../Domain/Params.js"
import { ContributionEntry, ContributorProfile } from "../Domain/Member.js"
import { SearchTextParam } from "../Domain/SearchText.js"
import { SongSummary } from "../Domain/Song.js"

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

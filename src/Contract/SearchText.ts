/**
 * Free-text matching over names (docs/search.md), shared by /v1/search and the `q` filter of lists.
 * Names are compared in their folded form (fold_name(): lower case, no diacritics, apostrophes
 * dropped, hyphens and punctuation as spaces), stored beside each name (fold_name, sql/schema/0_computed.sql)
 * with a GIN trigram index.
 */
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"
import { TextParam } from "./Params.js"

export const MAX_QUERY_LENGTH = 100

const QUERY_LENGTH_MESSAGE = `q must be 1 to ${MAX_QUERY_LENGTH} characters long after trimming spaces.`

const TEXT_DESCRIPTION = `Search text, 1 to ${MAX_QUERY_LENGTH} characters after trimming spaces; case, diacritics, ` +
  "apostrophes and hyphens do not matter."

/** `q`: 1 to 100 characters after trimming. Any text is allowed; it is only ever a parameter. `more` adds to its description. */
export const searchTextParam = (more = "") =>
  TextParam("q", {
    type: "string",
    minLength: 1,
    maxLength: MAX_QUERY_LENGTH,
    description: more === "" ? TEXT_DESCRIPTION : `${TEXT_DESCRIPTION} ${more}`
  }).pipe(
    Schema.decodeTo(
      Schema.String.check(
        Schema.makeFilter((text: string) => (text.length >= 1 && text.length <= MAX_QUERY_LENGTH) || QUERY_LENGTH_MESSAGE)
      ),
      { decode: SchemaGetter.transform((text: string) => text.trim()), encode: SchemaGetter.passthrough() }
    )
  )

/** `q` of the lists' name filters. */
export const SearchTextParam = searchTextParam()

/**
 * The four kinds of GET endpoint the API declares, each with the envelope and errors its kind
 * always has (docs/api.md, Errors), so a group's Api.ts states only what is its own: name,
 * path, parameters, the shape served and the summary.
 *
 *   resource   no parameters                 -> {data}
 *   detail     path parameters               -> {data} or not_found
 *   list       query parameters              -> {data: [...], meta} or bad_request
 *   ownedList  path and query parameters     -> {data: [...], meta}, bad_request or not_found
 */
import * as HttpApiEndpoint from "effect/http-api/HttpApiEndpoint"
import * as OpenApi from "effect/http-api/OpenApi"
import type * as Schema from "effect/Schema"
import { DetailEnvelope, ListEnvelope } from "./Envelope.js"
import { BadRequestError, NotFoundError } from "./Errors.js"

type Path = `/${string}`

export const resourceEndpoint = <const Name extends string, S extends Schema.Top>(
  name: Name,
  path: Path,
  item: S,
  responseName: string,
  summary: string
) => HttpApiEndpoint.get(name, path, { success: DetailEnvelope(item, responseName) }).annotate(OpenApi.Summary, summary)

export const detailEndpoint = <const Name extends string, P extends Schema.Top, S extends Schema.Top>(
  name: Name,
  path: Path,
  pathParams: P,
  item: S,
  responseName: string,
  summary: string,
  otherErrors: ReadonlyArray<typeof BadRequestError> = []
) =>
  HttpApiEndpoint.get(name, path, {
    params: pathParams,
    success: DetailEnvelope(item, responseName),
    error: [...otherErrors, NotFoundError]
  }).annotate(OpenApi.Summary, summary)

export const listEndpoint = <const Name extends string, Q extends Schema.Top, S extends Schema.Top>(
  name: Name,
  path: Path,
  queryParams: Q,
  item: S,
  listName: string,
  summary: string
) =>
  HttpApiEndpoint.get(name, path, {
    query: queryParams,
    success: ListEnvelope(item, listName),
    error: BadRequestError
  }).annotate(OpenApi.Summary, summary)

export const ownedListEndpoint = <const Name extends string, P extends Schema.Top, Q extends Schema.Top, S extends Schema.Top>(
  name: Name,
  path: Path,
  params: { readonly path: P; readonly query: Q },
  item: S,
  listName: string,
  summary: string
) =>
  HttpApiEndpoint.get(name, path, {
    params: params.path,
    query: params.query,
    success: ListEnvelope(item, listName),
    error: [BadRequestError, NotFoundError]
  }).annotate(OpenApi.Summary, summary)

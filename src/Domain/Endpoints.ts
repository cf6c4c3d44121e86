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
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as OpenApi from "@effect/platform/OpenApi"
import type * as Schema from "effect/Schema"
import { DetailEnvelope, ListEnvelope } from "./Envelope.js"
import { BadRequestError, NotFoundError } from "./Errors.js"

type Path = `/${string}`

export const resourceEndpoint = <const Name extends string, A, I, R>(
  name: Name,
  path: Path,
  item: Schema.Schema<A, I, R>,
  responseName: string,
  summary: string
) => HttpApiEndpoint.get(name, path).addSuccess(DetailEnvelope(item, responseName)).annotate(OpenApi.Summary, summary)

export const detailEndpoint = <const Name extends string, P extends Schema.Schema.Any, A, I, R>(
  name: Name,
  path: Path,
  pathParams: P & HttpApiEndpoint.HttpApiEndpoint.ValidatePath<P>,
  item: Schema.Schema<A, I, R>,
  responseName: string,
  summary: string
) =>
  HttpApiEndpoint.get(name, path)
    .setPath(pathParams)
    .addSuccess(DetailEnvelope(item, responseName))
    .addError(NotFoundError)
    .annotate(OpenApi.Summary, summary)

export const listEndpoint = <const Name extends string, Q extends Schema.Schema.Any, A, I, R>(
  name: Name,
  path: Path,
  queryParams: Q & HttpApiEndpoint.HttpApiEndpoint.ValidateUrlParams<Q>,
  item: Schema.Schema<A, I, R>,
  listName: string,
  summary: string
) =>
  HttpApiEndpoint.get(name, path)
    .setUrlParams(queryParams)
    .addSuccess(ListEnvelope(item, listName))
    .addError(BadRequestError)
    .annotate(OpenApi.Summary, summary)

export const ownedListEndpoint = <
  const Name extends string,
  P extends Schema.Schema.Any,
  Q extends Schema.Schema.Any,
  A,
  I,
  R
>(
  name: Name,
  path: Path,
  params: { readonly path: P & HttpApiEndpoint.HttpApiEndpoint.ValidatePath<P>; readonly query: Q & HttpApiEndpoint.HttpApiEndpoint.ValidateUrlParams<Q> },
  item: Schema.Schema<A, I, R>,
  listName: string,
  summary: string
) =>
  HttpApiEndpoint.get(name, path)
    .setPath(params.path)
    .setUrlParams(params.query)
    .addSuccess(ListEnvelope(item, listName))
    .addError(BadRequestError)
    .addError(NotFoundError)
    .annotate(OpenApi.Summary, summary)

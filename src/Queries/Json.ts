import * as HttpServerResponse from "effect/http/HttpServerResponse"

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8"

/**
 * A detail envelope around JSON that Postgres already built: the bytes go out as they came,
 * without a decode and re-encode in the service. The endpoint's success Schema still
 * documents the shape, and contract tests decode every live response with it.
 */
export const detailJson = (dataJson: string) =>
  HttpServerResponse.text(`{"data":${dataJson}}`, { contentType: JSON_CONTENT_TYPE })

/** A list envelope around a JSON array that Postgres built. */
export const listJson = (itemsJson: string, meta: unknown) =>
  HttpServerResponse.text(`{"data":${itemsJson},"meta":${JSON.stringify(meta)}}`, { contentType: JSON_CONTENT_TYPE })

/**
 * Carries a page's next cursor from its handler to the edge, which answers it as a `Link` to the
 * next page (src/Http/NextLink.ts); the edge writes every header itself, so this one is never sent.
 */
export const NEXT_CURSOR_HEADER = "x-catalogue-next-cursor"

/** A list envelope around a page: the items Postgres built and the page's meta; its next cursor for the edge. */
export const pageJson = (page: { readonly itemsJson: string; readonly meta: { readonly next_cursor: string } }) => {
  const response = listJson(page.itemsJson, page.meta)
  return page.meta.next_cursor === "" ? response : HttpServerResponse.setHeader(response, NEXT_CURSOR_HEADER, page.meta.next_cursor)
}

import { Schema } from "effect"

export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The body parsed as JSON (undefined when it is empty or not JSON). */
  readonly body: any
}

/** One HTTP request as a client makes it, with the body read and parsed. */
export const request = async (baseUrl: string, path: string, init: RequestInit = {}): Promise<Reply> => {
  const response = await fetch(baseUrl + path, { redirect: "manual", ...init })
  const text = await response.text()
  let body: unknown
  try {
    body = text === "" ? undefined : JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: response.status, headers: response.headers, text, body }
}

/** Decodes a live body with the contract's Schema, failing the test with the parse error. */
export const decodeWith = <A, I>(schema: Schema.Codec<A, I>, body: unknown): A =>
  Schema.decodeUnknownSync(schema, { onExcessProperty: "error" })(body)

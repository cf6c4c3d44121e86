import { expect } from "bun:test"
import { ErrorEnvelope } from "../../src/Contract/Errors.js"
import { decodeWith, type Reply, request } from "./http.js"

/** Every row of a list, walked page by page with `meta.next_cursor`; each page's offset is checked. */
export const walkByCursor = async (baseUrl: string, path: string, limit: number, headers: Record<string, string> = {}) => {
  const rows: Array<unknown> = []
  let cursor = ""
  const separator = path.includes("?") ? "&" : "?"
  for (let pages = 0; pages < 1000; pages++) {
    const reply = await request(baseUrl, `${path}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, { headers })
    expect(reply.status).toBe(200)
    expect(reply.body.meta.offset).toBe(rows.length)
    rows.push(...reply.body.data)
    cursor = reply.body.meta.next_cursor
    if (cursor === "") return rows
  }
  throw new Error(`the cursor of ${path} never ended`)
}

/** Every row of a list, walked page by page with `offset`. */
export const walkByOffset = async (baseUrl: string, path: string, limit: number) => {
  const rows: Array<unknown> = []
  const separator = path.includes("?") ? "&" : "?"
  for (let pages = 0; pages < 1000; pages++) {
    const reply = await request(baseUrl, `${path}${separator}limit=${limit}&offset=${rows.length}`)
    expect(reply.status).toBe(200)
    rows.push(...reply.body.data)
    if (reply.body.data.length < limit || rows.length >= reply.body.meta.total) return rows
  }
  throw new Error(`the offsets of ${path} never ended`)
}

export const expectBadRequest = (reply: Reply, mentions: string) => {
  expect(reply.status).toBe(400)
  expect(decodeWith(ErrorEnvelope, reply.body).error.code).toBe("bad_request")
  expect(reply.body.error.message).toContain(mentions)
}

export const expectNotFound = (reply: Reply) => {
  expect(reply.status).toBe(404)
  expect(decodeWith(ErrorEnvelope, reply.body).error.code).toBe("not_found")
}

/** The body never carries a canary row, an email, or a private member field. */
export const expectNothingPrivate = (reply: Reply) => {
  expect(reply.text).not.toMatch(/CANARY|canary_banned|@mail\.example/)
  expect(reply.text).not.toMatch(/"(email|roles|is_banned|member_id)"\s*:/)
}

/** A hidden row answers exactly like a missing one: not_found, and nothing of what it holds. */
export const expectHiddenNotFound = (reply: Reply) => {
  expectNotFound(reply)
  expectNothingPrivate(reply)
}

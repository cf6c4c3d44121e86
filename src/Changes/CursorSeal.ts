import { createCipheriv, createDecipheriv, createHmac } from "node:crypto"

/**
 * The change feed's cursors, sealed: AES-256-GCM under a key kept in the database (so every replica
 * seals alike), with the IV derived from the text (an HMAC of it), so one position always gives the
 * same cursor and a client that has caught up gets its own cursor back. A client cannot read the
 * positions, transaction ids or horizon inside, nor make a cursor the feed would accept.
 */
export interface CursorSeal {
  readonly seal: (text: string) => string
  /** The text sealed, or undefined for anything this seal did not make. */
  readonly open: (cursor: string) => string | undefined
}

const IV_BYTES = 12
const TAG_BYTES = 16

/** A seal from the database's secret (32 bytes or more); the cipher and IV keys are derived from it. */
export const makeCursorSeal = (secret: Uint8Array): CursorSeal => {
  const cipherKey = createHmac("sha256", secret).update("change-feed cursor: cipher").digest()
  const ivKey = createHmac("sha256", secret).update("change-feed cursor: iv").digest()
  return {
    seal: (text) => {
      const iv = createHmac("sha256", ivKey).update(text).digest().subarray(0, IV_BYTES)
      const cipher = createCipheriv("aes-256-gcm", cipherKey, iv)
      const body = Buffer.concat([cipher.update(text, "utf8"), cipher.final()])
      return Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url")
    },
    open: (cursor) => {
      if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined
      const bytes = Buffer.from(cursor, "base64url")
      if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined
      try {
        const decipher = createDecipheriv("aes-256-gcm", cipherKey, bytes.subarray(0, IV_BYTES))
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES))
        return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString("utf8")
      } catch {
        return undefined
      }
    }
  }
}

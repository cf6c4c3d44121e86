import * as jose from "jose"
import { createHmac } from "node:crypto"
import { TEST_ENV } from "./server.js"

/** The HS256 secret every test server trusts (TEST_ENV). */
export const TEST_SECRET = TEST_ENV.ADMIN_JWT_SECRET ?? ""

export const now = () => Math.floor(Date.now() / 1000)

export interface Claims {
  readonly [name: string]: unknown
}

/** Claims of a good staff token: 5 minutes, audience catalogue-api, role staff. */
export const staffClaims = (overrides: Claims = {}): Claims => ({
  sub: "editor-1",
  role: "staff",
  aud: "catalogue-api",
  iat: now(),
  exp: now() + 300,
  ...overrides
})

/** Drops claims whose override is undefined, so a test can remove `exp` or `iat`. */
const defined = (claims: Claims) => Object.fromEntries(Object.entries(claims).filter(([, value]) => value !== undefined))

/** An HS256 token signed with `secret` (the test secret by default). */
export const hs256 = (claims: Claims = staffClaims(), secret: string | Uint8Array = TEST_SECRET) =>
  new jose.SignJWT(defined(claims) as jose.JWTPayload)
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .sign(typeof secret === "string" ? new TextEncoder().encode(secret) : secret)

/** A fresh Ed25519 key pair, with the public key as SPKI PEM (ADMIN_JWT_PUBLIC_KEY) and as a JWK. */
export const ed25519KeyPair = async () => {
  const { privateKey, publicKey } = await jose.generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true })
  return {
    privateKey,
    publicKeyPem: await jose.exportSPKI(publicKey),
    publicJwk: { ...(await jose.exportJWK(publicKey)), alg: "EdDSA", kid: "test-key", use: "sig" }
  }
}

export const eddsa = (claims: Claims, privateKey: jose.CryptoKey, kid?: string) =>
  new jose.SignJWT(defined(claims) as jose.JWTPayload)
    .setProtectedHeader({ alg: "EdDSA", typ: "JWT", ...(kid === undefined ? {} : { kid }) })
    .sign(privateKey)

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

/** An unsigned token with any header: `alg: none` and friends. */
export const unsigned = (header: Claims, claims: Claims = staffClaims()) => `${b64(header)}.${b64(defined(claims))}.`

/** An HS256 token whose HMAC key is arbitrary bytes (e.g. a public key's PEM: algorithm confusion). */
export const hmacWithKey = (claims: Claims, key: string) => {
  const signingInput = `${b64({ alg: "HS256", typ: "JWT" })}.${b64(defined(claims))}`
  return `${signingInput}.${createHmac("sha256", key).update(signingInput).digest("base64url")}`
}

/** The same token with one character of its signature changed. */
export const tamper = (token: string) => {
  const last = token.at(-2) === "A" ? "B" : "A"
  return token.slice(0, -2) + last + token.slice(-1)
}

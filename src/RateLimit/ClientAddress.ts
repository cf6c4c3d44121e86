import { isIPv4, isIPv6 } from "node:net"

/**
 * The rate-limit key of a request: the socket's address, or - when `trustedHops` proxies
 * stand in front - the address that the outermost trusted proxy saw, read from
 * X-Forwarded-For right to left. Entries further left are the client's own words and never
 * count, so a spoofed header cannot choose a fresh bucket. IPv6 clients share a /64.
 */
export const clientKey = (
  socketAddress: string | undefined,
  forwardedFor: string | undefined,
  trustedHops: number
): string => {
  let address = socketAddress
  if (trustedHops > 0 && forwardedFor !== undefined) {
    const hops = forwardedFor.split(",").map((entry) => entry.trim())
    // hops[last] was added by the proxy next to us, hops[last - n + 1] by the n-th trusted proxy.
    const candidate = hops[Math.max(0, hops.length - trustedHops)]
    if (candidate !== undefined && normalizeAddress(candidate) !== undefined) address = candidate
  }
  return (address === undefined ? undefined : normalizeAddress(address)) ?? "unknown"
}

/** `ip4:a.b.c.d` or `ip6:xxxx:xxxx:xxxx:xxxx::/64`; undefined when the text is no address. */
export const normalizeAddress = (text: string): string | undefined => {
  let address = text.trim()
  if (address.startsWith("[")) address = address.slice(1, address.indexOf("]") === -1 ? undefined : address.indexOf("]"))
  const zone = address.indexOf("%")
  if (zone !== -1) address = address.slice(0, zone)
  if (isIPv4(address)) return `ip4:${address}`
  if (!isIPv6(address)) return undefined
  const groups = expandIPv6(address)
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0 && groups[5] === 0xffff) {
    // IPv4-mapped (::ffff:a.b.c.d): the same client as its IPv4 form
    const high = groups[6] ?? 0
    const low = groups[7] ?? 0
    return `ip4:${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`
  }
  return `ip6:${groups.slice(0, 4).map((group) => group.toString(16)).join(":")}::/64`
}

/** The eight 16-bit groups of a valid IPv6 address (embedded IPv4 tail included). */
const expandIPv6 = (address: string): Array<number> => {
  let text = address.toLowerCase()
  const ipv4Tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (ipv4Tail?.[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = ipv4Tail[1].split(".").map(Number)
    text = text.slice(0, -ipv4Tail[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = "", tail] = text.split("::")
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((group) => parseInt(group, 16)))
  const left = parse(head)
  const right = tail === undefined ? [] : parse(tail)
  const zeros = new Array<number>(8 - left.length - right.length).fill(0)
  return [...left, ...zeros, ...right]
}

/**
 * clientKey with the socket's address normalised once per address, not once per request
 * (IPv6 parsing showed in profiles); a forwarded header (when trusted) is read every time.
 */
export const makeClientKeys = (trustedHops: number) => {
  const socketKeys = new Map<string, string>()
  return (socketAddress: string | undefined, forwardedFor: string | undefined): string => {
    if (socketAddress === undefined || (forwardedFor !== undefined && trustedHops > 0)) {
      return clientKey(socketAddress, forwardedFor, trustedHops)
    }
    let key = socketKeys.get(socketAddress)
    if (key === undefined) {
      if (socketKeys.size >= 10_000) socketKeys.clear()
      key = clientKey(socketAddress, undefined, trustedHops)
      socketKeys.set(socketAddress, key)
    }
    return key
  }
}

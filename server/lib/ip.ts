import { isIPv4, isIPv6 } from 'node:net'
import proxyAddr from '@fastify/proxy-addr'
import { Address6 } from 'ip-address'

/** IPv6 prefix one subscriber is given (RFC 6177): per-address counters count it as one client. */
const IPV6_CLIENT_PREFIX = 64

/**
 * The key per-IP counters count a client under, as the route rate limiter does: an IPv4 address as
 * it is (IPv4-mapped IPv6 included), an IPv6 address as its /64, so rotating through the 2^64
 * addresses of one home network does not buy more attempts.
 */
export function clientNetwork(ip: string): string {
  if (!isIPv6(ip)) return ip.toLowerCase()
  const address = new Address6(ip)
  if (address.is4()) return address.to4().correctForm()
  return `${new Address6(`${ip}/${IPV6_CLIENT_PREFIX}`).startAddress().correctForm()}/${IPV6_CLIENT_PREFIX}`
}

/** Whether an address (the peer's, or one a proxy added to X-Forwarded-For) `hop` steps back is a trusted proxy. */
type TrustProxy = (address: string, hop: number) => boolean

/**
 * Fastify's `trustProxy` for TRUST_PROXY (ADR 033): a hop count, or proxy-addr's matcher for the
 * addresses, CIDRs and range names given. For the default, loopback, the two forms every request
 * brings (a dotted IPv4 address and `::1`) are decided without proxy-addr, which parses each
 * address it is asked about with ipaddr.js; every other form (IPv4-mapped IPv6, hex or octal IPv4,
 * other IPv6 spellings, zones, garbage) goes to proxy-addr, so the answers are the same.
 */
export function trustProxyFunction(trust: number | string[]): TrustProxy {
  if (typeof trust === 'number') return (_address, hop) => hop < trust
  const matcher = proxyAddr.compile(trust)
  return trust.length === 1 && trust[0] === 'loopback' ? trustLoopback(matcher) : matcher
}

/**
 * proxy-addr's `loopback` (127.0.0.0/8 and ::1/128), with `fallback` (proxy-addr's own matcher for
 * it) asked only about forms other than a dotted IPv4 address or `::1`. `isIPv4` accepts only
 * decimal octets without leading zeros, where "in 127.0.0.0/8" is "starts with `127.`".
 */
export function trustLoopback(fallback: TrustProxy): TrustProxy {
  return (address, hop) => {
    if (isIPv4(address)) return address.startsWith('127.')
    if (address === '::1') return true
    return fallback(address, hop)
  }
}

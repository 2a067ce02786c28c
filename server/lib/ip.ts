import { isIPv6 } from 'node:net'
import { Address6 } from 'ip-address'

/** IPv6 prefix one subscriber is given (RFC 6177): per-address counters count it as one client. */
export const IPV6_CLIENT_PREFIX = 64

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

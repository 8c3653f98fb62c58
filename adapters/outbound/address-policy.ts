/**
 * Which IP addresses outbound HTTP may reach (SPEC.md "Authentication", secrets paragraph:
 * the SSRF guard refuses link-local, private and metadata addresses).
 *
 * Rule: an address is allowed only when ipaddr.js classifies it as `unicast`, i.e. it is
 * in none of its special ranges. So loopback, private (RFC 1918), link-local (which holds
 * the 169.254.169.254 metadata service), unique-local IPv6 (fd00:ec2::254, the IPv6
 * metadata address), unspecified, broadcast, multicast, carrier-grade NAT, reserved,
 * documentation and benchmarking ranges are refused.
 *
 * IPv6 forms that carry an IPv4 address are judged by that address:
 * - IPv4-mapped `::ffff:a.b.c.d` (what a dual-stack socket connects to);
 * - NAT64 well-known prefix `64:ff9b::/96` (RFC 6052, the last 32 bits; DNS64 networks
 *   answer public names with it, so refusing the form outright would break them);
 * - 6to4 `2002::/16` (RFC 3056, bits 16-47).
 * Other embedding forms are refused whole: Teredo (`2001::/32`, the client address is
 * obfuscated), local-use NAT64 `64:ff9b:1::/48` (site-defined embedding), IPv4-translated
 * `::ffff:0:0/96` (RFC 6145) and the deprecated IPv4-compatible `::/96`.
 */
import ipaddr from 'ipaddr.js';

/** The verdict on one address: allowed, or refused with the ipaddr.js range that refused it. */
export type AddressVerdict = { allowed: true } | { allowed: false; range: string };

/** Why a request did not leave: the host it named and a sentence on why (no URL, header or body). */
export class OutboundRefusedError extends Error {
  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(`${host} ${reason}`);
    this.name = 'OutboundRefusedError';
  }
}

/**
 * Classifies an IP address literal (IPv4 dotted quad or IPv6 without brackets).
 * Anything that does not parse as an address is refused with range `invalid`.
 * @example classifyAddress('169.254.169.254') // { allowed: false, range: 'linkLocal' }
 */
export function classifyAddress(address: string): AddressVerdict {
  const text = hexTail(address);
  if (!ipaddr.isValid(text)) return { allowed: false, range: 'invalid' };
  const parsed = ipaddr.parse(text);
  if (parsed.kind() === 'ipv4') return verdict(parsed.range());
  const ipv6 = parsed as ipaddr.IPv6;
  const embedded = embeddedIPv4(ipv6);
  if (embedded) return verdict(embedded.range());
  const range = ipv6.range();
  // ::a.b.c.d (IPv4-compatible, deprecated by RFC 4291): ipaddr.js calls it unicast.
  if (
    range === 'unicast' &&
    ipv6
      .toByteArray()
      .slice(0, 12)
      .every((b) => b === 0)
  )
    return { allowed: false, range: 'ipv4Compatible' };
  return verdict(range);
}

/**
 * Writes an IPv6 address's dotted IPv4 tail as two hex groups ('::127.0.0.1' -> '::7f00:1'),
 * because ipaddr.js reads '::a.b.c.d' as the IPv4-mapped '::ffff:a.b.c.d', which is a
 * different address than the one a socket would connect to.
 */
function hexTail(address: string): string {
  const match = /^(.*:)(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  if (!match) return address;
  const octets = match.slice(2, 6).map(Number);
  if (octets.some((o) => o > 255)) return address;
  const [a = 0, b = 0, c = 0, d = 0] = octets;
  return `${match[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
}

function verdict(range: string): AddressVerdict {
  return range === 'unicast' ? { allowed: true } : { allowed: false, range };
}

function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  const bytes = address.toByteArray();
  if (address.match(ipaddr.IPv6.parse('64:ff9b::'), 96)) return new ipaddr.IPv4(bytes.slice(12, 16));
  if (address.range() === '6to4') return new ipaddr.IPv4(bytes.slice(2, 6));
  return null;
}

/**
 * Containment targets (SPEC.md "Managed containment actions"): each type's normalization,
 * applied before any policy evaluation, and protected-target matching.
 *
 * - `ip`: one IPv4 or IPv6 address or a CIDR range (ipaddr.js). IPv4 in dotted-quad
 *   decimal only (`010.0.0.1` and `10.1` are refused), also inside IPv6 text; an
 *   IPv4-mapped IPv6 address (`::ffff:0:0/96`) is its IPv4 address, a mapped range its IPv4
 *   range (`/104` is `/8`); IPv6 in its RFC 5952 text, no zone id; a range whose address
 *   has host bits set (read in the family it is written in) is refused; `/32` and `/128`
 *   are the address itself.
 * - `domain`: one exact name, lower-cased, root dot stripped, IDNA 2008 (UTS 46,
 *   non-transitional, STD3 rules, DNS lengths) through tr46; wildcards, single labels,
 *   IP literals, paths, ports and spaces are refused, judged on the encoded name too
 *   (full-width `１０.０.０.１` is the IP literal `10.0.0.1`).
 * - `host`: an endpoint-product id or a hostname, lower-cased, no trailing dot,
 *   IDNA-encoded when not ASCII; any character outside letters, digits and `. _ - :` is
 *   refused, in the encoded host too (IDNA maps `⑴` to `(1)`).
 * - `identity`: a user id or email of an identity provider, NFKC, lower-cased, no
 *   whitespace, control or invisible format character.
 *
 * Protection (`isProtected`): a protected range covers its addresses and a target range
 * overlapping it; a protected domain covers every name under it, and a parent of a
 * protected name is refused too; hosts and identities match exactly.
 */
import ipaddr from 'ipaddr.js';
import { toASCII } from 'tr46';

export const targetTypes = ['ip', 'domain', 'host', 'identity'] as const;
export type TargetType = (typeof targetTypes)[number];
export type Target = { type: TargetType; value: string };
export type Normalized = { ok: true; value: string } | { ok: false; reason: string };

const IDNA = { checkBidi: true, checkHyphens: true, checkJoiners: true, useSTD3ASCIIRules: true, transitionalProcessing: false, verifyDNSLength: true };
const HOST_CHARS = /^[\p{L}\p{N}._:-]+$/u;
const MAX_VALUE = 320;

/** The target's canonical text, or why it is refused. */
export function normalizeTarget(type: TargetType, value: string): Normalized {
  if (value.length === 0 || value.length > MAX_VALUE) return { ok: false, reason: `a ${type} target is 1 to ${MAX_VALUE} characters` };
  switch (type) {
    case 'ip':
      return normalizeIp(value);
    case 'domain':
      return normalizeDomain(value);
    case 'host':
      return normalizeHost(value);
    case 'identity': {
      const identity = value.normalize('NFKC').toLowerCase();
      return /[\s\p{Cc}\p{Cf}]/u.test(identity)
        ? { ok: false, reason: 'an identity has no whitespace, control or invisible character' }
        : { ok: true, value: identity };
    }
  }
}

function normalizeIp(value: string): Normalized {
  const [address, prefix, ...rest] = value.split('/');
  if (address === undefined || rest.length > 0) return { ok: false, reason: 'an IP address or one CIDR range' };
  const written = parseAddress(address);
  if (written === null) return { ok: false, reason: `${address} is not an IPv4 (dotted decimal) or IPv6 address` };
  const mapped = written.kind() === 'ipv6' && (written as ipaddr.IPv6).isIPv4MappedAddress();
  const parsed = mapped ? (written as ipaddr.IPv6).toIPv4Address() : written;
  if (prefix === undefined) return { ok: true, value: parsed.toString() };
  const bits = written.kind() === 'ipv4' ? 32 : 128;
  if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > bits) return { ok: false, reason: `/${prefix} is not a prefix length of 0 to ${bits}` };
  const writtenLength = Number(prefix);
  const network =
    written.kind() === 'ipv4'
      ? ipaddr.IPv4.networkAddressFromCIDR(`${written}/${writtenLength}`)
      : ipaddr.IPv6.networkAddressFromCIDR(`${written.toNormalizedString()}/${writtenLength}`);
  // Host bits are judged in the family the range is written in: `::ffff:10.0.0.0/8` is the IPv6 range ::/8.
  if (network.toNormalizedString() !== written.toNormalizedString())
    return { ok: false, reason: `${value} has host bits set: the range starts at ${network}/${writtenLength}` };
  // A mapped range (prefix 96 or more, else its host bits were set) is the IPv4 range under it.
  const length = mapped ? writtenLength - 96 : writtenLength;
  if (length === (parsed.kind() === 'ipv4' ? 32 : 128)) return { ok: true, value: parsed.toString() };
  return { ok: true, value: `${parsed}/${length}` };
}

/**
 * An address in dotted-quad IPv4 or IPv6 text, as written. An IPv4 part inside IPv6 text is
 * dotted-quad decimal too and stands for its two groups (ipaddr.js alone reads `::ffff:0x0a.0.0.1`
 * and reads `::10.0.0.1` as `::ffff:10.0.0.1`); a zone id (`%eth0`) is refused.
 */
function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  if (ipaddr.IPv4.isValidFourPartDecimal(text)) return ipaddr.IPv4.parse(text);
  if (!text.includes(':') || text.includes('%')) return null;
  let v6 = text;
  if (text.includes('.')) {
    const colon = text.lastIndexOf(':');
    const tail = text.slice(colon + 1);
    if (!ipaddr.IPv4.isValidFourPartDecimal(tail)) return null;
    const [a = 0, b = 0, c = 0, d = 0] = ipaddr.IPv4.parse(tail).octets;
    v6 = `${text.slice(0, colon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  return ipaddr.IPv6.isValid(v6) ? ipaddr.IPv6.parse(v6) : null;
}

function normalizeDomain(value: string): Normalized {
  if (/[\s/\\?#@*]/.test(value) || value.includes(':')) return { ok: false, reason: 'one exact domain name: no wildcard, path, port or space' };
  if (/^\[.*\]$/.test(value)) return { ok: false, reason: 'an IP literal is not a domain' };
  // The root dot in any of the UTS 46 label separators (., U+3002, U+FF0E, U+FF61).
  const name = value.toLowerCase().replace(/[.\u3002\uff0e\uff61]$/, '');
  const ascii = toASCII(name, IDNA);
  if (ascii === null) return { ok: false, reason: `${value} is not a valid IDNA 2008 domain name` };
  // Judged on the encoded name: UTS 46 maps full-width digits and dots to ASCII ones.
  if (ipaddr.isValid(ascii)) return { ok: false, reason: 'an IP literal is not a domain' };
  if (!ascii.includes('.')) return { ok: false, reason: 'a single label is not a domain' };
  return { ok: true, value: ascii };
}

function normalizeHost(value: string): Normalized {
  const host = value.toLowerCase().replace(/\.$/, '');
  if (!HOST_CHARS.test(host)) return { ok: false, reason: 'a host holds only letters, digits and . _ - :' };
  const ascii = /^[\x20-\x7e]*$/.test(host) ? host : toASCII(host, { ...IDNA, useSTD3ASCIIRules: false });
  if (ascii === null) return { ok: false, reason: `${value} is not a valid internationalized host name` };
  // The encoded host keeps the rules: UTS 46 maps `⑴` to `(1)`; `host..` keeps a trailing dot.
  if (!/^[a-z0-9._:-]+$/.test(ascii) || ascii.endsWith('.'))
    return { ok: false, reason: `${value} is not a host of letters, digits and . _ - : without a trailing dot` };
  return { ok: true, value: ascii };
}

/** Whether `target` (normalized) hits `protectedTarget` (normalized, of the same type). */
export function isProtected(target: Target, protectedTarget: Target): boolean {
  if (target.type !== protectedTarget.type) return false;
  switch (target.type) {
    case 'ip':
      return rangesOverlap(target.value, protectedTarget.value);
    case 'domain': {
      const t = target.value;
      const p = protectedTarget.value;
      return t === p || t.endsWith(`.${p}`) || p.endsWith(`.${t}`);
    }
    default:
      return target.value === protectedTarget.value;
  }
}

/** The protected targets `target` hits, in the policy's order. */
export function protectedHits(target: Target, protectedTargets: readonly Target[]): Target[] {
  return protectedTargets.filter((p) => isProtected(target, p));
}

function rangesOverlap(a: string, b: string): boolean {
  const [addrA, lenA] = asRange(a);
  const [addrB, lenB] = asRange(b);
  if (addrA.kind() !== addrB.kind()) return false;
  // Two CIDR ranges overlap exactly when one contains the other's first address.
  return addrA.match(addrB, lenB) || addrB.match(addrA, lenA);
}

function asRange(value: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  if (value.includes('/')) return ipaddr.parseCIDR(value);
  const address = ipaddr.parse(value);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/**
 * Normalized observable values (SPEC.md "Case sub-resources": observables are
 * de-duplicated on the normalized value). Libraries do the parsing: ipaddr.js for
 * addresses, the WHATWG URL parser (IDNA/UTS 46 via node:url) for URLs and names.
 *
 * Types: ip, domain, hostname, url, email, md5, sha1, sha256, user, other.
 * Returns the normalized value, or an error message naming what is wrong.
 */
import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';

export const observableTypes = ['ip', 'domain', 'hostname', 'url', 'email', 'md5', 'sha1', 'sha256', 'user', 'other'] as const;
export type ObservableType = (typeof observableTypes)[number];

export const isObservableType = (type: string): type is ObservableType => (observableTypes as readonly string[]).includes(type);

export type Normalized = { ok: true; value: string } | { ok: false; error: string };

const hashLength: Partial<Record<ObservableType, number>> = { md5: 32, sha1: 40, sha256: 64 };

function normalizeIp(raw: string): Normalized {
  // Four-part dotted decimal only for IPv4: `127.1` or `0x7f.0.0.1` are not accepted as addresses.
  if (raw.includes('.') && !raw.includes(':') && !ipaddr.IPv4.isValidFourPartDecimal(raw)) return { ok: false, error: 'is not an IP address' };
  if (!ipaddr.isValid(raw)) return { ok: false, error: 'is not an IP address' };
  // An IPv4-mapped IPv6 address is the IPv4 address; IPv6 prints in RFC 5952 form.
  return { ok: true, value: ipaddr.process(raw).toString() };
}

function normalizeName(raw: string): Normalized {
  const ascii = domainToASCII(raw.replace(/\.$/, ''));
  if (ascii === '' || !ascii.includes('.') || !/^[a-z0-9.-]+$/.test(ascii)) return { ok: false, error: 'is not a domain name' };
  return { ok: true, value: ascii };
}

/**
 * Longest normalized value, in UTF-8 bytes: (type, normalized) is a B-tree key, and
 * PostgreSQL refuses index rows over about 2.7 kB, which would stall the projection.
 */
export const MAX_NORMALIZED_BYTES = 2048;

export function normalizeObservable(type: ObservableType, input: string): Normalized {
  const n = normalizeByType(type, input);
  if (n.ok && Buffer.byteLength(n.value) > MAX_NORMALIZED_BYTES) return { ok: false, error: `is longer than ${MAX_NORMALIZED_BYTES} bytes once normalized` };
  return n;
}

function normalizeByType(type: ObservableType, input: string): Normalized {
  const raw = input.trim();
  if (raw === '') return { ok: false, error: 'must not be empty' };
  switch (type) {
    case 'ip':
      return normalizeIp(raw);
    case 'domain':
      return normalizeName(raw);
    case 'hostname': {
      const name = raw.replace(/\.$/, '').toLowerCase();
      if (name.includes('.')) return normalizeName(name);
      return /^[a-z0-9-]{1,63}$/.test(name) ? { ok: true, value: name } : { ok: false, error: 'is not a host name' };
    }
    case 'url': {
      if (!URL.canParse(raw)) return { ok: false, error: 'is not a URL' };
      return { ok: true, value: new URL(raw).href };
    }
    case 'email': {
      const at = raw.lastIndexOf('@');
      if (at < 1) return { ok: false, error: 'is not an email address' };
      const domain = normalizeName(raw.slice(at + 1));
      if (!domain.ok) return { ok: false, error: 'is not an email address' };
      return { ok: true, value: `${raw.slice(0, at).toLowerCase()}@${domain.value}` };
    }
    case 'md5':
    case 'sha1':
    case 'sha256': {
      const hex = raw.toLowerCase();
      return hex.length === hashLength[type] && /^[0-9a-f]+$/.test(hex) ? { ok: true, value: hex } : { ok: false, error: `is not a ${type} hex digest` };
    }
    case 'user':
      return { ok: true, value: raw.toLowerCase() };
    case 'other':
      return { ok: true, value: raw };
  }
}

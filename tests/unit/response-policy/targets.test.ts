/**
 * Containment targets (SPEC.md "Managed containment actions"; domain/response-policy/targets.ts):
 * every normalization rule per target type (ip, domain, host, identity) with what it accepts,
 * the canonical text it yields (a fixed point: normalizing it again changes nothing) and what
 * it refuses; and protected-target matching: ranges overlap in one address family only,
 * a protected domain covers its subdomains and its parents but not a sibling suffix, hosts
 * and identities match exactly, types never cross. The "no escape" tables write one protected
 * target every way we know: each spelling is either refused or hits it.
 */
import { describe, expect, it } from 'vitest';
import { isProtected, normalizeTarget, protectedHits, type Target, type TargetType } from '../../../domain/response-policy/targets.ts';

const canonical = (type: TargetType, value: string): string => {
  const n = normalizeTarget(type, value);
  if (!n.ok) throw new Error(`${type} ${JSON.stringify(value)} refused: ${n.reason}`);
  return n.value;
};
const target = (type: TargetType, value: string): Target => ({ type, value: canonical(type, value) });
/** Whether writing `value` gets past normalization and then escapes `protectedTarget`. */
const escapes = (type: TargetType, value: string, protectedTarget: Target): boolean => {
  const n = normalizeTarget(type, value);
  return n.ok && !isProtected({ type, value: n.value }, protectedTarget);
};

describe('normalizeTarget: every type', () => {
  it.each(['ip', 'domain', 'host', 'identity'] as const)('%s refuses an empty value and one over 320 characters', (type) => {
    expect(normalizeTarget(type, '')).toMatchObject({ ok: false });
    expect(normalizeTarget(type, `${'a'.repeat(300)}.${'b'.repeat(20)}`)).toMatchObject({ ok: false, reason: expect.stringContaining('320') });
  });
});

describe('normalizeTarget ip', () => {
  it.each([
    // IPv4: dotted-quad decimal, already canonical.
    ['10.0.0.1', '10.0.0.1'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    // IPv6: RFC 5952 text (lower case, leading zeros dropped, longest zero run compressed, first on a tie, no lone 0 compressed).
    ['2001:DB8:0:0:0:0:0:1', '2001:db8::1'],
    ['2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['FE80::1', 'fe80::1'],
    ['::1', '::1'],
    ['::', '::'],
    // IPv4-mapped IPv6 is its IPv4 address, however the mapped address is written.
    ['::ffff:192.0.2.1', '192.0.2.1'],
    ['::FFFF:C000:0201', '192.0.2.1'],
    ['0:0:0:0:0:ffff:192.0.2.1', '192.0.2.1'],
    // Other IPv6 text with an IPv4 tail stays IPv6 (IPv4-compatible, NAT64): its two groups.
    ['::10.0.0.1', '::a00:1'],
    ['64:ff9b::192.0.2.1', '64:ff9b::c000:201'],
    // CIDR ranges starting at their network address.
    ['10.0.0.0/8', '10.0.0.0/8'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['2001:DB8::/32', '2001:db8::/32'],
    ['fe80::/10', 'fe80::/10'],
    ['::/0', '::/0'],
    // /32 and /128 are the address itself.
    ['10.0.0.1/32', '10.0.0.1'],
    ['2001:db8::1/128', '2001:db8::1'],
    // A mapped range is the IPv4 range under it (prefix minus 96).
    ['::ffff:10.0.0.0/104', '10.0.0.0/8'],
    ['::ffff:192.0.2.0/120', '192.0.2.0/24'],
    ['::ffff:192.0.2.1/128', '192.0.2.1'],
    ['::ffff:0:0/96', '0.0.0.0/0'],
    // A prefix length is read in decimal (no tool reads it as octal) and written without leading zeros.
    ['10.0.0.0/08', '10.0.0.0/8'],
    ['10.0.0.0/010', '10.0.0.0/10'],
  ])('%s is %s', (input, expected) => {
    expect(normalizeTarget('ip', input)).toEqual({ ok: true, value: expected });
    expect(normalizeTarget('ip', expected)).toEqual({ ok: true, value: expected });
  });

  it.each([
    // Not dotted-quad decimal: octal-looking, short, hex, integer forms read differently by other parsers.
    ['010.0.0.1', 'dotted decimal'],
    ['10.1', 'dotted decimal'],
    ['10.0.1', 'dotted decimal'],
    ['0x0a.0.0.1', 'dotted decimal'],
    ['0xa000001', 'dotted decimal'],
    ['167772161', 'dotted decimal'],
    ['256.0.0.1', 'dotted decimal'],
    ['10.0.0.-1', 'dotted decimal'],
    ['１０.0.0.1', 'dotted decimal'],
    // ... nor inside IPv6 text.
    ['::ffff:010.0.0.1', 'dotted decimal'],
    ['::ffff:0x0a.0.0.1', 'dotted decimal'],
    ['::ffff:10.1', 'dotted decimal'],
    ['::ffff:1.2.3.04', 'dotted decimal'],
    // Not one address: spaces, trailing dot, brackets, zone ids, ports, schemes, names, broken IPv6.
    [' 10.0.0.1', 'dotted decimal'],
    ['10.0.0.1 ', 'dotted decimal'],
    ['10 .0.0.1', 'dotted decimal'],
    ['10.0.0.1\n', 'dotted decimal'],
    ['10.0.0.1.', 'dotted decimal'],
    ['[10.0.0.1]', 'dotted decimal'],
    ['[::1]', 'dotted decimal'],
    ['fe80::1%eth0', 'dotted decimal'],
    ['fe80::1%25eth0', 'dotted decimal'],
    ['fe80::1%1', 'dotted decimal'],
    ['10.0.0.1:80', 'dotted decimal'],
    ['http://10.0.0.1', 'one CIDR range'],
    ['example.com', 'dotted decimal'],
    ['2001:db8::g', 'dotted decimal'],
    ['1::2::3', 'dotted decimal'],
    ['1:2:3:4:5:6:7:8:9', 'dotted decimal'],
    ['2001:db8::00001', 'dotted decimal'],
    ['::ffff:1.2.3.4:5', 'dotted decimal'],
    ['1.2.3.4::', 'dotted decimal'],
    // Bad prefixes: out of range, signed, spaced, empty, not an integer, two slashes.
    ['10.0.0.0/33', 'prefix length of 0 to 32'],
    ['2001:db8::/129', 'prefix length of 0 to 128'],
    ['10.0.0.0/-1', 'prefix length'],
    ['10.0.0.0/+8', 'prefix length'],
    ['10.0.0.0/ 8', 'prefix length'],
    ['10.0.0.0/8 ', 'prefix length'],
    ['10.0.0.0/', 'prefix length'],
    ['10.0.0.0/8.0', 'prefix length'],
    ['10.0.0.0/1e1', 'prefix length'],
    ['10.0.0.0/0x8', 'prefix length'],
    ['10.0.0.0/٨', 'prefix length'],
    ['10.0.0.0/0008', 'prefix length'],
    ['10.0.0.0/8/8', 'one CIDR range'],
    ['10.0.0.0//8', 'one CIDR range'],
    ['/8', 'dotted decimal'],
  ])('%j is refused (%s)', (input, reason) => {
    const n = normalizeTarget('ip', input);
    expect(n.ok).toBe(false);
    if (!n.ok) expect(n.reason).toContain(reason);
  });

  it.each([
    ['10.0.0.5/8', '10.0.0.0/8'],
    ['1.2.3.4/0', '0.0.0.0/0'],
    ['192.0.2.1/31', '192.0.2.0/31'],
    ['2001:db8::1/32', '2001:db8::/32'],
    ['2001:db8::1/127', '2001:db8::/127'],
    // Host bits are read in the family the range is written in: these IPv6 ranges start at ::/n.
    ['::ffff:10.0.0.0/8', '::/8'],
    ['::ffff:10.0.0.1/32', '::/32'],
    ['::ffff:0:0/95', '::fffe:0:0/95'],
  ])('%s has host bits set: refused, naming the network %s', (input, network) => {
    expect(normalizeTarget('ip', input)).toEqual({ ok: false, reason: `${input} has host bits set: the range starts at ${network}` });
  });
});

describe('normalizeTarget domain', () => {
  const maxName = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`;

  it.each([
    ['Example.COM', 'example.com'],
    ['example.com.', 'example.com'],
    ['EXAMPLE.COM.', 'example.com'],
    ['a-b.example', 'a-b.example'],
    ['a.b.c.example.co.uk', 'a.b.c.example.co.uk'],
    // IDNA 2008, non-transitional: ß stays ß (not ss), then Punycode.
    ['faß.de', 'xn--fa-hia.de'],
    ['FASS.de', 'fass.de'],
    ['Bücher.example', 'xn--bcher-kva.example'],
    ['shop.BÜCHER.example', 'shop.xn--bcher-kva.example'],
    ['xn--bcher-kva.example', 'xn--bcher-kva.example'],
    ['XN--BCHER-KVA.example', 'xn--bcher-kva.example'],
    ['münchen.de', 'xn--mnchen-3ya.de'],
    // UTS 46 mapping: full-width letters and the other label separators are ASCII.
    ['ｅｘａｍｐｌｅ．ｃｏｍ', 'example.com'],
    ['example。com。', 'example.com'],
    ['example｡com', 'example.com'],
    // DNS lengths: a 63-octet label and a 253-octet name, root dot aside.
    [`${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`],
    [maxName, maxName],
    [`${maxName}.`, maxName],
  ])('%s is %s', (input, expected) => {
    expect(normalizeTarget('domain', input)).toEqual({ ok: true, value: expected });
    expect(normalizeTarget('domain', expected)).toEqual({ ok: true, value: expected });
  });

  it.each([
    // Wildcards, paths, ports, schemes, user info, queries, spaces.
    ['*.x.com', 'no wildcard'],
    ['*example.com', 'no wildcard'],
    ['example.com/path', 'no wildcard, path'],
    ['https://example.com', 'no wildcard, path'],
    ['example.com:443', 'port'],
    ['user@example.com', 'one exact domain'],
    ['example.com?q=1', 'one exact domain'],
    ['example.com#top', 'one exact domain'],
    ['ex\\ample.com', 'one exact domain'],
    ['exa mple.com', 'space'],
    [' example.com', 'space'],
    ['example.com\t', 'space'],
    ['example.com\u3000', 'space'],
    // Mapped forms of refused characters are refused too (STD3 rules).
    ['＊.example.com', 'IDNA 2008'],
    ['example.com／path', 'IDNA 2008'],
    ['example.com：443', 'IDNA 2008'],
    // Single labels, also after mapping.
    ['localhost', 'single label'],
    ['com.', 'single label'],
    ['ｌｏｃａｌｈｏｓｔ', 'single label'],
    // IP literals, in every spelling a resolver or browser would take as an address.
    ['10.0.0.1', 'IP literal'],
    ['10.0.0.1.', 'IP literal'],
    ['１０.０.０.１', 'IP literal'],
    ['10.0.0.1。', 'IP literal'],
    ['0177.0.0.1', 'IP literal'],
    ['0x7f.1', 'IP literal'],
    ['1.2.3', 'IP literal'],
    ['1.16777215', 'IP literal'],
    ['4294967295', 'IP literal'],
    ['[10.0.0.1]', 'IP literal'],
    ['[::1]', 'one exact domain'],
    ['::1', 'one exact domain'],
    ['2001:db8::1', 'one exact domain'],
    // Empty labels, hyphen rules, lengths, STD3, joiners, bad Punycode.
    ['a..b', 'IDNA 2008'],
    ['.example.com', 'IDNA 2008'],
    ['example.com..', 'IDNA 2008'],
    ['example.com。。', 'IDNA 2008'],
    ['.', 'IDNA 2008'],
    ['-a.example.com', 'IDNA 2008'],
    ['a-.example.com', 'IDNA 2008'],
    ['ab--cd.example.com', 'IDNA 2008'],
    [`${'a'.repeat(64)}.com`, 'IDNA 2008'],
    [`${maxName}d`, 'IDNA 2008'],
    ['_dmarc.example.com', 'IDNA 2008'],
    ['x\u200d.example.com', 'IDNA 2008'],
    ['xn--.example.com', 'IDNA 2008'],
    ['xn--zz.example.com', 'IDNA 2008'],
    ['xn--abc.example.com', 'IDNA 2008'],
    // Punycode of an all-ASCII label, and Punycode hiding a disallowed character (a⒈).
    ['xn--abc-.example.com', 'IDNA 2008'],
    ['xn--a-ecp.example.com', 'IDNA 2008'],
  ])('%j is refused (%s)', (input, reason) => {
    const n = normalizeTarget('domain', input);
    expect(n.ok).toBe(false);
    if (!n.ok) expect(n.reason).toContain(reason);
  });
});

describe('normalizeTarget host', () => {
  it.each([
    ['A1B2C3:HOST-01', 'a1b2c3:host-01'],
    ['a1b2c3d4e5f6:WIN-7F3K2', 'a1b2c3d4e5f6:win-7f3k2'],
    ['3F2504E0-4F89-11D3-9A0C-0305E82C3301', '3f2504e0-4f89-11d3-9a0c-0305e82c3301'],
    ['WKS-0042', 'wks-0042'],
    ['host-01.', 'host-01'],
    ['Host_01.Corp.Local.', 'host_01.corp.local'],
    ['0123456789abcdef', '0123456789abcdef'],
    // Not ASCII: IDNA-encoded (UTS 46 maps full-width forms to ASCII).
    ['hôst-01', 'xn--hst-01-ixa'],
    ['HÔST-01.corp.', 'xn--hst-01-ixa.corp'],
    ['ＨＯＳＴ-01', 'host-01'],
  ])('%s is %s', (input, expected) => {
    expect(normalizeTarget('host', input)).toEqual({ ok: true, value: expected });
    expect(normalizeTarget('host', expected)).toEqual({ ok: true, value: expected });
  });

  it.each([
    'host 01',
    ' host-01',
    'host-01\t',
    'host-01\n',
    'host/01',
    'host\\01',
    'host*',
    '*',
    'admin@host',
    '"host"',
    "'host'",
    'host;reboot',
    'host|x',
    'host,other',
    'host&x',
    '$(id)',
    '`id`',
    '[host]',
    'host%20',
    'host#1',
    '.',
    // No trailing dot: only one root dot is stripped.
    'host-01..',
    'hôst..',
    // The IDNA-encoded host keeps the rule: UTS 46 maps ⑴ to (1).
    'host⑴',
    'hôst⑴',
    // Not encodable.
    'host⒈',
  ])('%j is refused', (input) => {
    expect(normalizeTarget('host', input)).toMatchObject({ ok: false, reason: expect.any(String) });
  });
});

describe('normalizeTarget identity', () => {
  it.each([
    ['Alice@Corp.COM', 'alice@corp.com'],
    ['00u1ABCdef', '00u1abcdef'],
    ['CORP\\Alice', 'corp\\alice'],
    ['S-1-5-21-1004', 's-1-5-21-1004'],
    // Compatibility forms are their plain letters (NFKC): full width, long s.
    ['ＡＬＩＣＥ@corp.com', 'alice@corp.com'],
    ['ſysadmin@corp.com', 'sysadmin@corp.com'],
  ])('%s is %s', (input, expected) => {
    expect(normalizeTarget('identity', input)).toEqual({ ok: true, value: expected });
    expect(normalizeTarget('identity', expected)).toEqual({ ok: true, value: expected });
  });

  it.each([
    'alice @corp.com',
    ' alice@corp.com',
    'alice@corp.com\n',
    'alice\t@corp.com',
    'alice\u00a0@corp.com',
    'alice\u2028@corp.com',
    'alice\ufeff@corp.com',
    // Invisible format and control characters.
    'alice\u200b@corp.com',
    'alice\u202e@corp.com',
    'alice@corp.com\u0000x',
  ])('%j is refused', (input) => {
    expect(normalizeTarget('identity', input)).toMatchObject({ ok: false, reason: expect.stringContaining('whitespace') });
  });
});

describe('isProtected', () => {
  it.each([
    // A protected address or range covers its addresses, and any target range overlapping it.
    ['10.0.0.1', '10.0.0.1', true],
    ['10.1.2.3', '10.0.0.0/8', true],
    ['10.0.0.0', '10.0.0.0/8', true],
    ['10.255.255.255', '10.0.0.0/8', true],
    ['10.0.0.0/8', '10.1.2.3', true],
    ['10.0.0.0/16', '10.0.0.0/8', true],
    ['10.0.0.0/8', '10.0.0.0/16', true],
    ['10.0.0.0/7', '11.0.0.0/8', true],
    ['0.0.0.0/0', '192.0.2.10', true],
    ['2001:db8:ffff::1', '2001:db8::/32', true],
    ['2001:db8::/32', '2001:db8::1', true],
    ['::/0', '2001:db8::1', true],
    ['fe80::/10', 'fe80::1', true],
    // Disjoint addresses and ranges are not.
    ['10.0.0.2', '10.0.0.1', false],
    ['11.0.0.0', '10.0.0.0/8', false],
    ['9.255.255.255', '10.0.0.0/8', false],
    ['11.0.0.0/8', '10.0.0.0/8', false],
    ['10.0.0.0/25', '10.0.0.128/25', false],
    ['2001:db9::1', '2001:db8::/32', false],
    ['2001:db8::/32', '2001:db9::/32', false],
    // IPv4 and IPv6 never match: the IPv6 space (IPv4-compatible, NAT64, the whole of it) is not IPv4.
    ['::/0', '10.0.0.1', false],
    ['0.0.0.0/0', '::1', false],
    ['::a00:1', '10.0.0.1', false],
    ['64:ff9b::a00:1', '10.0.0.1', false],
    ['10.0.0.1', '::a00:1', false],
  ] as const)('ip %s against protected %s: %s', (t, p, hit) => {
    expect(isProtected(target('ip', t), target('ip', p))).toBe(hit);
  });

  it.each([
    // The protected name, every name under it, and every parent of it (down to two labels).
    ['example.com', 'example.com', true],
    ['www.example.com', 'example.com', true],
    ['a.b.example.com', 'example.com', true],
    ['example.com', 'login.example.com', true],
    ['example.com', 'a.b.login.example.com', true],
    ['co.uk', 'bank.co.uk', true],
    ['shop.xn--bcher-kva.example', 'bücher.example', true],
    // Not a sibling suffix, a sibling, a cousin, or the same labels under another parent.
    ['badexample.com', 'example.com', false],
    ['login-example.com', 'example.com', false],
    ['xexample.com', 'example.com', false],
    ['example.co', 'example.com', false],
    ['example.com.evil.net', 'example.com', false],
    ['www.example.com', 'login.example.com', false],
    ['login.example.com', 'login.example.org', false],
    ['example.net', 'login.example.com', false],
    ['ample.com', 'example.com', false],
    // IDNA 2008 non-transitional: faß.de and fass.de are two different names.
    ['fass.de', 'faß.de', false],
  ] as const)('domain %s against protected %s: %s', (t, p, hit) => {
    expect(isProtected(target('domain', t), target('domain', p))).toBe(hit);
  });

  it.each([
    ['host', 'A1B2C3:HOST-01', 'a1b2c3:host-01', true],
    ['host', 'host-01.', 'host-01', true],
    ['host', 'ＨＯＳＴ-01', 'host-01', true],
    ['host', 'host-01', 'a1b2c3:host-01', false],
    ['host', 'host-01.corp.local', 'host-01', false],
    ['host', 'host-01', 'host-01.corp.local', false],
    ['host', 'host-0', 'host-01', false],
    ['identity', 'Alice@Corp.com', 'alice@corp.com', true],
    ['identity', 'ＡＬＩＣＥ@corp.com', 'alice@corp.com', true],
    ['identity', 'alice', 'alice@corp.com', false],
    ['identity', 'alice@corp.com.evil', 'alice@corp.com', false],
    ['identity', 'x.alice@corp.com', 'alice@corp.com', false],
  ] as const)('%s %s against protected %s: %s (exact)', (type, t, p, hit) => {
    expect(isProtected(target(type, t), target(type, p))).toBe(hit);
  });

  it.each([
    [target('ip', '10.0.0.1'), target('host', '10.0.0.1')],
    [target('host', '10.0.0.1'), target('ip', '10.0.0.0/8')],
    [target('domain', 'example.com'), target('host', 'example.com')],
    [target('host', 'www.example.com'), target('domain', 'example.com')],
    [target('identity', 'example.com'), target('domain', 'example.com')],
    [target('identity', 'host-01'), target('host', 'host-01')],
  ])('%j never hits protected %j (different types)', (t, p) => {
    expect(isProtected(t, p)).toBe(false);
  });
});

describe('protectedHits', () => {
  const list: Target[] = [
    target('ip', '10.0.0.0/8'),
    target('domain', 'login.example.com'),
    target('ip', '10.1.0.0/16'),
    target('host', '10.1.2.3'),
    target('ip', '192.0.2.10'),
  ];

  it('returns every protected target hit, in the policy order', () => {
    expect(protectedHits(target('ip', '10.1.2.3'), list)).toEqual([list[0], list[2]]);
    expect(protectedHits(target('ip', '0.0.0.0/0'), list)).toEqual([list[0], list[2], list[4]]);
    expect(protectedHits(target('domain', 'example.com'), list)).toEqual([list[1]]);
    expect(protectedHits(target('host', '10.1.2.3'), list)).toEqual([list[3]]);
  });

  it('returns nothing for a target hitting none', () => {
    expect(protectedHits(target('ip', '192.0.2.11'), list)).toEqual([]);
    expect(protectedHits(target('ip', '::/0'), list)).toEqual([]);
    expect(protectedHits(target('domain', 'badexample.com'), list)).toEqual([]);
    expect(protectedHits(target('ip', '10.0.0.1'), [])).toEqual([]);
  });
});

describe('no escape: every way to write a protected target is refused or hits it', () => {
  it.each([
    '192.0.2.10',
    '192.0.2.10/32',
    '192.0.2.0/24',
    '192.0.0.0/8',
    '0.0.0.0/0',
    '::ffff:192.0.2.10',
    '::FFFF:192.0.2.10',
    '::ffff:c000:20a',
    '::FFFF:C000:020A',
    '0:0:0:0:0:ffff:192.0.2.10',
    '0000:0000:0000:0000:0000:ffff:c000:020a',
    '::ffff:192.0.2.10/128',
    '::ffff:192.0.2.0/120',
    '::ffff:0:0/96',
    '::ffff:192.0.2.10/32',
    '::ffff:192.0.2.0/24',
    '0300.0000.0002.0012',
    '0xc0.0x0.0x2.0xa',
    '192.0.522',
    '192.522',
    '3221226250',
    '0xc000020a',
    '192.0.2.010',
    '192.0.2.10.',
    '::ffff:0300.0.2.10',
    '::ffff:0xc0.0.2.10',
    '::ffff:192.0.522',
    '::192.0.2.10',
    '[::ffff:192.0.2.10]',
    '::ffff:192.0.2.10%eth0',
    '１９２.０.２.１０',
  ])('ip %j against protected 192.0.2.10', (spelling) => {
    expect(escapes('ip', spelling, target('ip', '192.0.2.10'))).toBe(spelling === '::192.0.2.10');
  });

  it('the only spelling above that gets through unmatched is the IPv4-compatible IPv6 address, which is another address', () => {
    expect(canonical('ip', '::192.0.2.10')).toBe('::c000:20a');
  });

  it.each([
    '2001:db8::1',
    '2001:DB8::1',
    '2001:0db8:0000:0000:0000:0000:0000:0001',
    '2001:db8:0:0:0:0:0:1',
    '2001:db8::0:1',
    '2001:db8::1/128',
    '2001:db8::/64',
    '2001:db8::/32',
    '::/0',
    '2001:db8::1%1',
    '[2001:db8::1]',
    '2001:db8::1/0128',
  ])('ip %j against protected 2001:db8::1', (spelling) => {
    expect(escapes('ip', spelling, target('ip', '2001:db8::1'))).toBe(false);
  });

  it.each([
    'login.example.com',
    'LOGIN.EXAMPLE.COM',
    'login.example.com.',
    'ｌｏｇｉｎ．ｅｘａｍｐｌｅ．ｃｏｍ',
    'login。example。com。',
    'LOGİN.example.com',
    'x.login.example.com',
    'X.Login.Example.Com.',
    'example.com',
    'EXAMPLE.COM.',
    '*.login.example.com',
    'login.example.com:443',
    'login.example.com/',
    'login..example.com',
    'login.example.com..',
    ' login.example.com',
  ])('domain %j against protected login.example.com', (spelling) => {
    const hitOrRefused = !escapes('domain', spelling, target('domain', 'login.example.com'));
    // A dotted capital I is another letter (i + combining dot): xn--login-bgd.example.com, another name, the one spelling that passes.
    expect(hitOrRefused).toBe(spelling !== 'LOGİN.example.com');
  });

  it.each(['a1b2c3:host-01', 'A1B2C3:HOST-01', 'a1b2c3:host-01.', 'Ａ1Ｂ2Ｃ3:ＨＯＳＴ-01', 'a1b2c3:host-01..', 'a1b2c3:host-01 ', 'a1b2c3:host-01\u200b'])(
    'host %j against protected a1b2c3:host-01',
    (spelling) => {
      expect(escapes('host', spelling, target('host', 'a1b2c3:host-01'))).toBe(false);
    },
  );

  it.each([
    'admin@corp.com',
    'ADMIN@CORP.COM',
    'ＡＤＭＩＮ@corp.com',
    'ſysadmin@corp.com',
    'admin@corp.com ',
    'admin\u200b@corp.com',
    'admin@corp.com\u0000',
    '\ufeffadmin@corp.com',
  ])('identity %j against protected admin@corp.com / sysadmin@corp.com', (spelling) => {
    const protectedOnes = [target('identity', 'admin@corp.com'), target('identity', 'sysadmin@corp.com')];
    const n = normalizeTarget('identity', spelling);
    expect(!n.ok || protectedHits({ type: 'identity', value: n.value }, protectedOnes).length > 0).toBe(true);
  });
});

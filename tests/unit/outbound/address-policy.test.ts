/**
 * The SSRF guard's address rule (SPEC.md "Authentication"): only ipaddr.js `unicast`
 * addresses are reachable; IPv6 forms embedding an IPv4 are judged by that IPv4.
 */
import { describe, expect, it } from 'vitest';
import { classifyAddress } from '../../../adapters/outbound/address-policy.ts';

const refused: [string, string][] = [
  ['127.0.0.1', 'loopback'],
  ['127.255.1.2', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.169.254', 'linkLocal'], // cloud metadata
  ['169.254.0.1', 'linkLocal'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['224.0.0.1', 'multicast'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['192.0.2.1', 'reserved'], // documentation
  ['198.18.0.1', 'reserved'], // benchmarking
  ['240.0.0.1', 'reserved'],
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fe80::1', 'linkLocal'],
  ['fd00:ec2::254', 'uniqueLocal'], // IPv6 metadata
  ['fc00::1', 'uniqueLocal'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:169.254.169.254', 'linkLocal'],
  ['::ffff:10.0.0.1', 'private'],
  ['64:ff9b::127.0.0.1', 'loopback'], // NAT64 of loopback
  ['64:ff9b::a9fe:a9fe', 'linkLocal'], // NAT64 of metadata
  ['2002:7f00:1::1', 'loopback'], // 6to4 of 127.0.0.1
  ['2002:c0a8:101::1', 'private'], // 6to4 of 192.168.1.1
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ['64:ff9b:1::8.8.8.8', 'rfc6052'], // local-use NAT64: embedding is site-defined
  ['::ffff:0:8.8.8.8', 'rfc6145'],
  ['::127.0.0.1', 'ipv4Compatible'],
  ['::8.8.8.8', 'ipv4Compatible'],
  ['not-an-address', 'invalid'],
  ['', 'invalid'],
];

const allowed = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '172.32.0.1',
  '100.128.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001::200e',
  '::ffff:8.8.8.8',
  '64:ff9b::8.8.8.8',
  '2002:808:808::1',
];

describe('classifyAddress', () => {
  it.each(refused)('refuses %s (%s)', (address, range) => {
    expect(classifyAddress(address)).toEqual({ allowed: false, range });
  });
  it.each(allowed)('allows public %s', (address) => {
    expect(classifyAddress(address)).toEqual({ allowed: true });
  });
});

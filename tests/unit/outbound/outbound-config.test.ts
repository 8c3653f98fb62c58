/**
 * The outbound edge's configuration (runtime/config.ts, docs/configuration.md "Outbound
 * edge"): the guard is on unless SVC_ALLOW_PRIVATE_TARGETS says otherwise, peer hosts
 * are host[:port] entries, and the exchange origin comes from SVC_IDENTITY_URL.
 * Malformed values stop the start, naming the variable and never the value.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../runtime/config.ts';

describe('outbound configuration', () => {
  it('defaults to the guard on, no peer hosts, no exchange origin and no extra CA', () => {
    expect(loadConfig({}).outbound).toEqual({ allowPrivate: false, peerHosts: [], exchangeOrigin: null, caFile: null });
  });

  it('resolves SVC_OUTBOUND_CA_FILE to an absolute path', () => {
    expect(loadConfig({ SVC_OUTBOUND_CA_FILE: 'certs/internal-ca.pem' }).outbound.caFile).toMatch(/^\/.*\/certs\/internal-ca\.pem$/);
  });

  it.each([
    ['true', true],
    ['1', true],
    ['TRUE', true],
    ['false', false],
    ['0', false],
    ['', false],
  ])('reads SVC_ALLOW_PRIVATE_TARGETS=%s as %s', (value, allowPrivate) => {
    expect(loadConfig({ SVC_ALLOW_PRIVATE_TARGETS: value }).outbound.allowPrivate).toBe(allowPrivate);
  });

  it('reads peer hosts and the exact origin of SVC_IDENTITY_URL', () => {
    const { outbound } = loadConfig({
      SVC_SUITE_PEER_HOSTS: ' detector.internal:8443, [fd00::5] ,',
      SVC_IDENTITY_URL: 'https://id.example:8443/api/exchange?x=1',
    });
    expect(outbound.peerHosts).toEqual(['detector.internal:8443', '[fd00::5]']);
    expect(outbound.exchangeOrigin).toBe('https://id.example:8443');
    expect(loadConfig({ SVC_IDENTITY_URL: 'https://id.example:443/' }).outbound.exchangeOrigin).toBe('https://id.example');
  });

  it.each([
    ['SVC_ALLOW_PRIVATE_TARGETS', 'yes-please'],
    ['SVC_SUITE_PEER_HOSTS', 'ok.internal, https://bad-entry.internal/'],
    ['SVC_SUITE_PEER_HOSTS', 'bad-entry.internal:99999'],
    ['SVC_IDENTITY_URL', 'ftp://bad-entry.internal'],
    ['SVC_IDENTITY_URL', 'not a url bad-entry'],
  ])('refuses a malformed %s, naming it and not the value', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(name);
    expect(() => loadConfig({ [name]: value })).not.toThrow(/bad-entry|yes-please/);
  });
});

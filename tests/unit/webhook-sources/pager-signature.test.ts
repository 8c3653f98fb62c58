/**
 * The pager_a webhook signature against the vendor's published test vectors
 * (shared/fixtures/vendors/pagerduty/signature_vectors.json): the valid one verifies; a
 * mismatch, a missing header and an empty body do not; during a secret rotation any
 * matching `v1` of the list is enough.
 */
import { describe, expect, it } from 'vitest';
import { pagerASignatureValid } from '../../../adapters/webhook-sources/pager-signature.ts';
import { readFixtureJson } from '../../support/fixtures.ts';

const vectors = readFixtureJson<{ secret: string; cases: { name: string; body: string; header: string | null }[] }>(
  'vendors',
  'pagerduty',
  'signature_vectors.json',
);
const vector = (name: string) => vectors.cases.find((c) => c.name === name)!;
const bytes = (s: string) => new TextEncoder().encode(s);

describe('pager_a signature', () => {
  it('verifies the published valid vector, also among several signatures and in upper-case hex', () => {
    const valid = vector('valid');
    expect(pagerASignatureValid(vectors.secret, bytes(valid.body), valid.header!)).toBe(true);
    expect(pagerASignatureValid(vectors.secret, bytes(valid.body), `v1=${'a'.repeat(64)}, ${valid.header}`)).toBe(true);
    expect(pagerASignatureValid(vectors.secret, bytes(valid.body), valid.header!.toUpperCase().replace('V1=', 'v1='))).toBe(true);
  });

  it('refuses the mismatch, missing-header and empty-body vectors, another scheme and another secret', () => {
    expect(pagerASignatureValid(vectors.secret, bytes(vector('mismatch').body), vector('mismatch').header!)).toBe(false);
    expect(pagerASignatureValid(vectors.secret, bytes(vector('malformed_header').body), undefined)).toBe(false);
    expect(pagerASignatureValid(vectors.secret, bytes(vector('malformed_body').body), vector('malformed_body').header!)).toBe(false);
    const valid = vector('valid');
    expect(pagerASignatureValid(vectors.secret, bytes(valid.body), valid.header!.replace('v1=', 'v0='))).toBe(false);
    expect(pagerASignatureValid('another-secret', bytes(valid.body), valid.header!)).toBe(false);
    expect(pagerASignatureValid('', bytes(valid.body), valid.header!)).toBe(false);
  });
});

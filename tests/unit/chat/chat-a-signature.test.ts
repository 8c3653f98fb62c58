/**
 * The chat_a request signature against Slack's published worked example and its negative
 * cases (shared/fixtures/vendors/slack/signature_vectors.json), and the locally derived
 * vector over the block_actions form body.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkChatASignature } from '../../../adapters/chat/chat-a-signature.ts';
import { fixturePath, readFixtureJson } from '../../support/fixtures.ts';

type Vectors = {
  signing_secret: string;
  timestamp: string;
  body: string;
  expected_signature: string;
  headers: Record<string, string>;
  derived_vectors: { signing_secret: string; timestamp: string; body_file: string; expected_signature: string }[];
};
const vectors = readFixtureJson<Vectors>('vendors', 'slack', 'signature_vectors.json');
const bytes = (s: string) => new TextEncoder().encode(s);
const at = (timestamp: string, offsetS = 0) => new Date((Number(timestamp) + offsetS) * 1000);

describe('checkChatASignature', () => {
  it('accepts the published example at its own time, and within five minutes of it', () => {
    expect(vectors.headers['X-Slack-Signature']).toBe(vectors.expected_signature);
    expect(checkChatASignature(vectors.signing_secret, bytes(vectors.body), vectors.timestamp, vectors.expected_signature, at(vectors.timestamp))).toBe(
      'valid',
    );
    expect(checkChatASignature(vectors.signing_secret, bytes(vectors.body), vectors.timestamp, vectors.expected_signature, at(vectors.timestamp, 299))).toBe(
      'valid',
    );
    expect(
      checkChatASignature(
        vectors.signing_secret,
        bytes(vectors.body),
        vectors.timestamp,
        vectors.expected_signature.toUpperCase().replace('V0=', 'v0='),
        at(vectors.timestamp, -299),
      ),
    ).toBe('valid');
  });

  it('refuses the published negative cases', () => {
    const check = (body: string, timestamp: string | undefined, signature: string | undefined, now = at(vectors.timestamp), secret = vectors.signing_secret) =>
      checkChatASignature(secret, bytes(body), timestamp, signature, now);
    expect(check(`${vectors.body}------`, vectors.timestamp, vectors.expected_signature)).toBe('invalid');
    expect(check(vectors.body, vectors.timestamp, vectors.expected_signature, new Date())).toBe('stale');
    expect(check(vectors.body, vectors.timestamp, vectors.expected_signature, at(vectors.timestamp, 301))).toBe('stale');
    expect(check(vectors.body, vectors.timestamp, vectors.expected_signature, at(vectors.timestamp, -301))).toBe('stale');
    expect(check('', vectors.timestamp, vectors.expected_signature)).toBe('invalid');
    expect(check(vectors.body, undefined, vectors.expected_signature)).toBe('invalid');
    expect(check(vectors.body, vectors.timestamp, undefined)).toBe('invalid');
    expect(check(vectors.body, vectors.timestamp, vectors.expected_signature, at(vectors.timestamp), '')).toBe('invalid');
    expect(check(vectors.body, vectors.timestamp, vectors.expected_signature, at(vectors.timestamp), 'another-secret')).toBe('invalid');
    expect(check(vectors.body, String(Number(vectors.timestamp) + 1), vectors.expected_signature, at(vectors.timestamp))).toBe('invalid');
    expect(check(vectors.body, vectors.timestamp, vectors.expected_signature.replace('v0=', 'v1='))).toBe('invalid');
    expect(check(vectors.body, '1531420618.5', vectors.expected_signature)).toBe('invalid');
  });

  it('verifies the derived block_actions vector over the form-encoded payload', () => {
    const [derived] = vectors.derived_vectors;
    const body = readFileSync(fixturePath('vendors', 'slack', derived!.body_file));
    expect(checkChatASignature(derived!.signing_secret, body, derived!.timestamp, derived!.expected_signature, at(derived!.timestamp))).toBe('valid');
  });
});

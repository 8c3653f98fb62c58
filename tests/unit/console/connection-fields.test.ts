import { describe, expect, it } from 'vitest';
import { connectionKinds } from '../../../adapters/connections/kinds.ts';
import { CONNECTION_KINDS, parseConfig, probeWords } from '../../../console/src/settings/connection-fields.ts';

describe('the connection form', () => {
  it('offers exactly the kinds the service takes', () => {
    expect([...CONNECTION_KINDS].sort()).toEqual([...connectionKinds].sort());
  });

  it('takes a JSON object as config, and says why anything else is refused', () => {
    expect(parseConfig(' ')).toEqual({ config: {} });
    expect(parseConfig('{"host": "gw-01", "port": 22}')).toEqual({ config: { host: 'gw-01', port: 22 } });
    expect(parseConfig('[1]')).toEqual({ problem: 'Config must be a JSON object, such as {"host": "gw-01", "port": 22}.' });
    expect(parseConfig('{host: 1}')).toHaveProperty('problem', expect.stringMatching(/^Config is not JSON: /));
  });

  it('puts a probe answer in words, with its facts and its error', () => {
    expect(probeWords({ ok: true, kind: 'http', probe: 'GET /', latency_ms: 12, details: { status: 200 }, error: null })).toBe(
      'Reached (GET /) in 12 ms. status: 200.',
    );
    expect(
      probeWords({
        ok: false,
        kind: 'ssh',
        probe: 'ssh handshake',
        latency_ms: 3004,
        details: {},
        error: { type: 'timeout', message: 'no answer from 127.0.0.1:2222' },
      }),
    ).toBe('Failed (ssh handshake) after 3004 ms. timeout: no answer from 127.0.0.1:2222.');
  });
});

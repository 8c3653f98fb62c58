/**
 * The event store settings (runtime/config.ts, docs/configuration.md): SVC_EVENT_STORE
 * defaults to postgres; kurrentdb needs a KurrentDB connection string and retention off.
 * A refusal names the variable, never the connection string (it may carry a password).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../runtime/config.ts';

const secret = 'kurrentdb://admin:s3cr3t-pw@kurrent.internal:2113?tls=true';

describe('event store configuration', () => {
  it('defaults to the postgres store', () => {
    expect(loadConfig({}).eventStore).toEqual({ kind: 'postgres' });
    expect(loadConfig({ SVC_EVENT_STORE: 'postgres', KURRENTDB_CONNECTION_STRING: secret }).eventStore).toEqual({ kind: 'postgres' });
  });

  it('takes kurrentdb with a connection string and retention off', () => {
    const config = loadConfig({ SVC_EVENT_STORE: 'kurrentdb', KURRENTDB_CONNECTION_STRING: ` ${secret} `, SVC_RETENTION_ENABLED: 'false' });
    expect(config.eventStore).toEqual({ kind: 'kurrentdb', connectionString: secret });
  });

  it.each([
    [{ SVC_EVENT_STORE: 'eventstoredb' }, 'SVC_EVENT_STORE must be postgres or kurrentdb'],
    [{ SVC_EVENT_STORE: 'kurrentdb', SVC_RETENTION_ENABLED: 'false' }, 'SVC_EVENT_STORE=kurrentdb needs KURRENTDB_CONNECTION_STRING'],
    [
      { SVC_EVENT_STORE: 'kurrentdb', KURRENTDB_CONNECTION_STRING: 'https://admin:s3cr3t-pw@x', SVC_RETENTION_ENABLED: 'false' },
      'KURRENTDB_CONNECTION_STRING must be',
    ],
    [{ SVC_EVENT_STORE: 'kurrentdb', KURRENTDB_CONNECTION_STRING: secret }, 'needs SVC_RETENTION_ENABLED=false'],
  ])('refuses %o', (env, message) => {
    let refusal = '';
    try {
      loadConfig(env);
    } catch (error) {
      refusal = String(error);
    }
    expect(refusal).toContain(message);
    expect(refusal).not.toContain('s3cr3t-pw');
  });
});

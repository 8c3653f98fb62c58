/**
 * The bucket URL of the object_storage probe (adapters/connections/s3-probe.ts): path style
 * below `base_url`, or virtual-hosted on the bucket's own host name (which loopback peers
 * cannot answer, so the integration test covers path style only).
 */
import { describe, expect, it } from 'vitest';
import { bucketUrl } from '../../../adapters/connections/s3-probe.ts';

const list = { 'list-type': '2', 'max-keys': '1' };

describe('bucketUrl', () => {
  it('puts the bucket in the path below base_url with path style', () => {
    expect(bucketUrl('https://minio.internal:9000', 'svc-evidence', true, list).href).toBe('https://minio.internal:9000/svc-evidence?list-type=2&max-keys=1');
    expect(bucketUrl('https://storage.example/s3/', 'logs', true, {}).href).toBe('https://storage.example/s3/logs');
  });

  it('puts the bucket in the host name, keeping scheme and port, with virtual-hosted style', () => {
    expect(bucketUrl('https://s3.eu-west-1.amazonaws.com', 'svc-evidence', false, list).href).toBe(
      'https://svc-evidence.s3.eu-west-1.amazonaws.com/?list-type=2&max-keys=1',
    );
    expect(bucketUrl('http://s3.internal:9000', 'logs', false, {}).href).toBe('http://logs.s3.internal:9000/');
  });
});

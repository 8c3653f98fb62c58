/**
 * The probe of an `object_storage` connection (SPEC.md "Actions and connections";
 * docs/configuration.md "Connections"): an S3 ListObjectsV2 of at most one key,
 * `GET <bucket URL>?list-type=2&max-keys=1`, signed with AWS Signature Version 4 (aws4fetch's
 * signer; service `s3`, `config.region`, `config.access_key_id` with the secret access key,
 * payload `UNSIGNED-PAYLOAD`) and sent through the guarded edge. Listing needs the same
 * right as HeadBucket (`s3:ListBucket`) but, unlike HEAD, the answer carries S3's error
 * code. The bucket URL is `<base_url>/<bucket>` with `config.path_style` (the default), else
 * `<scheme>://<bucket>.<base_url host>/`.
 *
 * S3 answers 200 `<ListBucketResult>`; 403 `InvalidAccessKeyId`, `SignatureDoesNotMatch`
 * or `AccessDenied` fail with `auth_failed`; any other status with `http_status` and S3's
 * `<Code>` (404 `NoSuchBucket`, 301 `PermanentRedirect` for another region).
 */
import { AwsV4Signer } from 'aws4fetch';
import { ActionFailure, type ResolvedConnection } from '../actions/action.ts';
import { configText, joinUrl, readCappedText, requireConnection, sendOutbound, statusFailure, type OutboundFetch } from '../actions/outbound-http.ts';
import { OBJECT_STORAGE_REGION } from './config-rules.ts';
import { credentialRefused, probeSecret } from './probe-http.ts';

const ACTION = 'object_storage connection test';

/** The ListObjectsV2 query of the probe: one key at most. */
const LIST_ONE = { 'list-type': '2', 'max-keys': '1' } as const;

/**
 * The URL of `bucket` below `baseUrl` with `query`: path style `<base_url>/<bucket>`, or
 * virtual-hosted `<bucket>.<host>` on the base URL's scheme and port.
 * @example bucketUrl('https://s3.eu-west-1.amazonaws.com', 'logs', false, {}) // https://logs.s3.eu-west-1.amazonaws.com/
 */
export function bucketUrl(baseUrl: string, bucket: string, pathStyle: boolean, query: Record<string, string>): URL {
  if (pathStyle) return joinUrl(ACTION, baseUrl, encodeURIComponent(bucket), query);
  const url = joinUrl(ACTION, baseUrl, undefined, query);
  url.hostname = `${bucket}.${url.hostname}`;
  return url;
}

/** object_storage: a signed ListObjectsV2 of one key. */
export async function probeObjectStorage(outbound: OutboundFetch, connection: ResolvedConnection, signal: AbortSignal): Promise<Record<string, unknown>> {
  const { base_url: base } = requireConnection(ACTION, { connection }, 'object_storage');
  const bucket = configText(connection.config, 'bucket');
  const accessKeyId = configText(connection.config, 'access_key_id');
  if (!bucket || !accessKeyId)
    throw new ActionFailure('connection_invalid', `${ACTION}: connection '${connection.name}' needs config.bucket and config.access_key_id`, false);
  const region = configText(connection.config, 'region') ?? OBJECT_STORAGE_REGION;
  const pathStyle = connection.config.path_style !== false;
  const url = bucketUrl(base, bucket, pathStyle, LIST_ONE);
  const signer = new AwsV4Signer({
    method: 'GET',
    url: url.toString(),
    accessKeyId,
    secretAccessKey: probeSecret(ACTION, connection, 'secret access key'),
    service: 's3',
    region,
  });
  const { headers } = await signer.sign();
  const response = await sendOutbound(ACTION, outbound, url, { method: 'GET', headers: Object.fromEntries(headers) }, signal);
  const text = await readCappedText(ACTION, response, url, signal, 64 * 1024);
  const code = /<Code>([A-Za-z0-9.]{1,64})<\/Code>/.exec(text)?.[1] ?? null;
  if (response.status === 401 || response.status === 403) throw credentialRefused(ACTION, url, response.status, code);
  if (!response.ok) throw statusFailure(ACTION, url, response.status, code);
  if (!/<ListBucketResult[\s>]/.test(text))
    throw new ActionFailure('bad_response', `${ACTION}: ${url.host} answered HTTP ${response.status} without a ListBucketResult`, false);
  return { host: url.host, bucket, region, addressing: pathStyle ? 'path' : 'virtual', listed: true };
}

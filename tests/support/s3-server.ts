/**
 * An S3-compatible stand-in on 127.0.0.1 (path-style addressing) that verifies the AWS
 * Signature Version 4 of every request the way S3 does, written here from AWS's
 * description of the algorithm (independently of the signer the service uses):
 * - `Authorization: AWS4-HMAC-SHA256 Credential=<key id>/<yyyymmdd>/<region>/s3/aws4_request,
 *   SignedHeaders=<names>, Signature=<hex>`, `X-Amz-Date` within 15 minutes of now and on
 *   the credential's day, `X-Amz-Content-Sha256` (`UNSIGNED-PAYLOAD` or the body's hash),
 *   and `host`, `x-amz-date` and `x-amz-content-sha256` among the signed headers;
 * - the canonical request (method, URI-encoded path, sorted URI-encoded query, the signed
 *   headers' trimmed values, the payload hash), the string to sign and the HMAC-SHA256
 *   key chain `AWS4<secret>` > date > region > `s3` > `aws4_request`.
 * Refusals answer S3's XML `<Error><Code>`: 403 `InvalidAccessKeyId`,
 * `SignatureDoesNotMatch`, `RequestTimeTooSkewed` or `AccessDenied`; 400
 * `AuthorizationHeaderMalformed` for another region. Signed requests: `GET /<bucket>?list-type=2
 * [&max-keys=n]` answers `<ListBucketResult>` of the bucket's keys; `HEAD /<bucket>` 200;
 * an unknown bucket 404 `NoSuchBucket`; any other method 405 `MethodNotAllowed`.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { startReceiver, type Received } from './receiver.ts';

export type S3Credentials = { accessKeyId: string; secretAccessKey: string; region: string };

const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();

/** RFC 3986 percent-encoding as SigV4 wants it: unreserved characters kept, `/` kept only in paths. */
const uriEncode = (value: string, keepSlash: boolean) =>
  [...Buffer.from(value, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) || (keepSlash && b === 0x2f)
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** The canonical request of `r` over `signedHeaders`, per SigV4 for S3 (the path is not normalized). */
function canonicalRequest(r: Received, signedHeaders: string[], payloadHash: string): string {
  const [rawPath = '/', rawQuery = ''] = r.path.split('?', 2);
  const path = uriEncode(decodeURIComponent(rawPath), true);
  const query =
    rawQuery === ''
      ? []
      : rawQuery.split('&').map((pair) => pair.split('=', 2).map((p) => uriEncode(decodeURIComponent(p.replace(/\+/g, ' ')), false)) as [string, string?]);
  const canonicalQuery = query
    .map(([k, v = '']) => [k, v] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const value = (name: string) => {
    const raw = r.headers[name];
    return (Array.isArray(raw) ? raw.join(',') : (raw ?? '')).trim().replace(/\s+/g, ' ');
  };
  const headers = signedHeaders.map((h) => `${h}:${value(h)}\n`).join('');
  return [r.method, path, canonicalQuery, headers, signedHeaders.join(';'), payloadHash].join('\n');
}

/** Starts the store holding `buckets` (name to keys), accepting `credentials` only. */
export async function startS3Server(credentials: S3Credentials, buckets: Record<string, string[]>) {
  const refusals: string[] = [];
  const xml = (res: ServerResponse, status: number, body: string) =>
    res
      .writeHead(status, { 'content-type': 'application/xml', 'x-amz-request-id': randomBytes(8).toString('hex') })
      .end(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`);
  const error = (res: ServerResponse, status: number, code: string, message: string) => {
    refusals.push(code);
    xml(res, status, `<Error><Code>${code}</Code><Message>${message}</Message></Error>`);
  };

  /** Null when the signature holds, else the refusal as [status, code, message]. */
  const verify = (r: Received): [number, string, string] | null => {
    const auth = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(
      String(r.headers.authorization ?? ''),
    );
    if (!auth) return [403, 'AccessDenied', 'Access Denied'];
    const [, keyId, day, region, signed = '', signature] = auth;
    if (keyId !== credentials.accessKeyId) return [403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.'];
    if (region !== credentials.region)
      return [400, 'AuthorizationHeaderMalformed', `The authorization header is malformed; the region '${region}' is wrong; expecting '${credentials.region}'`];
    const amzDate = String(r.headers['x-amz-date'] ?? '');
    const at = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate);
    if (!at || amzDate.slice(0, 8) !== day) return [403, 'AccessDenied', 'X-Amz-Date is missing or not on the credential date'];
    if (Math.abs(Date.UTC(+at[1]!, +at[2]! - 1, +at[3]!, +at[4]!, +at[5]!, +at[6]!) - Date.now()) > 15 * 60_000)
      return [403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.'];
    const signedHeaders = signed.split(';');
    if (!['host', 'x-amz-date', 'x-amz-content-sha256'].every((h) => signedHeaders.includes(h)))
      return [403, 'AccessDenied', 'host, x-amz-date and x-amz-content-sha256 must be signed'];
    const payloadHash = String(r.headers['x-amz-content-sha256'] ?? '');
    if (payloadHash !== 'UNSIGNED-PAYLOAD' && payloadHash !== sha256(r.body))
      return [400, 'XAmzContentSHA256Mismatch', 'The provided x-amz-content-sha256 header does not match what was computed.'];
    const scope = `${day}/${region}/s3/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest(r, signedHeaders, payloadHash))].join('\n');
    const key = [day ?? '', region ?? '', 's3', 'aws4_request'].reduce<Buffer | string>((k, part) => hmac(k, part), `AWS4${credentials.secretAccessKey}`);
    if (hmac(key, stringToSign).toString('hex') !== signature)
      return [403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.'];
    return null;
  };

  const receiver = await startReceiver((r, res) => {
    const refusal = verify(r);
    if (refusal) return error(res, ...refusal);
    const url = new URL(r.path, 'http://s3');
    const bucket = decodeURIComponent(url.pathname.split('/')[1] ?? '');
    const keys = buckets[bucket];
    if (!keys) return error(res, 404, 'NoSuchBucket', 'The specified bucket does not exist');
    if (r.method === 'HEAD' && url.pathname.replace(/\/$/, '') === `/${bucket}`) return res.writeHead(200).end();
    if (r.method !== 'GET' || url.pathname.replace(/\/$/, '') !== `/${bucket}` || url.searchParams.get('list-type') !== '2')
      return error(res, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
    const max = Number(url.searchParams.get('max-keys') ?? 1000);
    const listed = keys.slice(0, max);
    const contents = listed.map((k) => `<Contents><Key>${k}</Key><Size>1</Size><StorageClass>STANDARD</StorageClass></Contents>`).join('');
    xml(
      res,
      200,
      `<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>${bucket}</Name><Prefix></Prefix><KeyCount>${listed.length}</KeyCount><MaxKeys>${max}</MaxKeys><IsTruncated>${listed.length < keys.length}</IsTruncated>${contents}</ListBucketResult>`,
    );
  });
  return { ...receiver, refusals };
}

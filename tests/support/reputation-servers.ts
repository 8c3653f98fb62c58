/**
 * Local stand-ins for the two reputation services, on 127.0.0.1, answering as their
 * public APIs document:
 * - reputation_a (VirusTotal API v3): `GET /api/v3/{ip_addresses|domains|urls|files}/<id>`
 *   with `x-apikey`; 200 `{data: {id, type, attributes: {last_analysis_stats, reputation,
 *   as_owner, country, ...}}}`, 404 `{error: {code: "NotFoundError", message}}`, 401
 *   `WrongCredentialsError`, 429 `QuotaExceededError`.
 * - reputation_b (AbuseIPDB API v2): `GET /api/v2/check?ipAddress=&maxAgeInDays=` with
 *   `Key` and `Accept: application/json`; 200 `{data: {ipAddress, abuseConfidenceScore,
 *   totalReports, ...}}`, 401/422 `{errors: [{detail, status}]}`.
 */
import { startReceiver } from './receiver.ts';

const json = (res: import('node:http').ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

/** `known` maps `<collection>/<id>` to `last_analysis_stats`. */
export async function startReputationAServer(apiKey: string, known: Record<string, Record<string, number>>) {
  return startReceiver((r, res) => {
    if (r.headers['x-apikey'] !== apiKey) return json(res, 401, { error: { code: 'WrongCredentialsError', message: 'Wrong API key' } });
    const match = /^\/api\/v3\/(ip_addresses|domains|urls|files)\/([^/?]+)$/.exec(r.path);
    if (r.method !== 'GET' || !match) return json(res, 404, { error: { code: 'NotFoundError', message: `Resource not found` } });
    const key = `${match[1]}/${decodeURIComponent(match[2]!)}`;
    if (key === 'ip_addresses/192.0.2.99') return json(res, 429, { error: { code: 'QuotaExceededError', message: 'Quota exceeded' } });
    const stats = known[key];
    if (!stats) return json(res, 404, { error: { code: 'NotFoundError', message: `${match[2]} not found` } });
    json(res, 200, {
      data: {
        id: decodeURIComponent(match[2]!),
        type: match[1]!.replace(/es$|s$/, ''),
        links: { self: `https://www.virustotal.com${r.path}` },
        attributes: { last_analysis_stats: stats, reputation: -11, as_owner: 'Example AS', asn: 64500, country: 'NL', whois: 'very long whois text' },
      },
    });
  });
}

/** `scores` maps an IP to `[abuseConfidenceScore, totalReports]`; others are clean and unreported. */
export async function startReputationBServer(apiKey: string, scores: Record<string, [number, number]>) {
  return startReceiver((r, res) => {
    if (r.headers.key !== apiKey)
      return json(res, 401, { errors: [{ detail: 'Authentication failed. Your API key is either missing, incorrect, or revoked.', status: 401 }] });
    const url = new URL(r.path, 'http://abuse');
    if (r.method !== 'GET' || url.pathname !== '/api/v2/check' || r.headers.accept !== 'application/json')
      return json(res, 404, { errors: [{ detail: 'not found', status: 404 }] });
    const ip = url.searchParams.get('ipAddress') ?? '';
    if (!/^\d+$/.test(url.searchParams.get('maxAgeInDays') ?? ''))
      return json(res, 422, { errors: [{ detail: 'The max age in days must be an integer.', status: 422 }] });
    const [score, reports] = scores[ip] ?? [0, 0];
    json(res, 200, {
      data: {
        ipAddress: ip,
        isPublic: true,
        ipVersion: ip.includes(':') ? 6 : 4,
        isWhitelisted: false,
        abuseConfidenceScore: score,
        countryCode: 'US',
        usageType: 'Data Center/Web Hosting/Transit',
        isp: 'Example ISP',
        domain: 'example.net',
        hostnames: [],
        isTor: false,
        totalReports: reports,
        numDistinctUsers: reports,
        lastReportedAt: reports ? '2026-11-20T10:00:00+00:00' : null,
      },
    });
  });
}

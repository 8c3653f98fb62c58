/**
 * `enrich.reputation_a` and `enrich.reputation_b` (SPEC.md "Action registry entry": read
 * risk, `http` connections; docs/configuration.md "Reputation enrichment"): the reputation
 * of an indicator from two services' public APIs, as one verdict.
 *
 * - reputation_a follows VirusTotal's API v3: `GET <base_url>/api/v3/ip_addresses/<ip>`,
 *   `/domains/<domain>`, `/urls/<base64url(url)>`, `/files/<hash>`, key in `x-apikey`;
 *   the verdict comes from `data.attributes.last_analysis_stats`.
 * - reputation_b follows AbuseIPDB's API v2: `GET <base_url>/api/v2/check?ipAddress=<ip>
 *   &maxAgeInDays=<n>`, key in `Key`; the verdict comes from `data.abuseConfidenceScore`.
 *   It knows IP addresses only: another indicator type fails the step for good.
 *
 * The connection's `config.auth_header` overrides the key's header name. An indicator the
 * service has never seen is the verdict `unknown`, not a failure.
 */
import ipaddr from 'ipaddr.js';
import * as v from 'valibot';
import { ActionFailure, type ActionContext, type ActionDefinition } from './action.ts';
import { HEADER_NAME } from './http-request.ts';
import { joinUrl, readCappedText, REDACTED, requireConnection, sendOutbound, statusFailure, type OutboundFetch } from './outbound-http.ts';

export const indicatorTypes = ['ip', 'domain', 'url', 'hash'] as const;
type IndicatorType = (typeof indicatorTypes)[number];
type Verdict = 'malicious' | 'suspicious' | 'harmless' | 'unknown';

const DOMAIN = /^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/i;
const HASH = /^([a-f0-9]{32}|[a-f0-9]{40}|[a-f0-9]{64})$/i;

/** The type of `indicator` when the step names none; null when it is none of the four. */
export function indicatorTypeOf(indicator: string): IndicatorType | null {
  if (ipaddr.isValid(indicator)) return 'ip';
  if (/^https?:\/\//i.test(indicator) && URL.canParse(indicator)) return 'url';
  if (HASH.test(indicator)) return 'hash';
  if (DOMAIN.test(indicator)) return 'domain';
  return null;
}

const input = v.pipe(
  v.strictObject({ indicator: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(2048)), type: v.optional(v.picklist(indicatorTypes)) }),
  v.check((i) => (i.type ?? indicatorTypeOf(i.indicator)) !== null, 'indicator must be an IP address, a domain, an http(s) URL or an MD5/SHA-1/SHA-256 hash'),
);
type ReputationInput = v.InferOutput<typeof input>;

const output = v.object({
  indicator: v.string(),
  type: v.picklist(indicatorTypes),
  verdict: v.picklist(['malicious', 'suspicious', 'harmless', 'unknown']),
  score: v.nullable(v.number()),
  raw: v.unknown(),
});
type ReputationOutput = v.InferOutput<typeof output>;

type Lookup = { path: string; query?: Record<string, string | number> };

type Service = {
  name: 'enrich.reputation_a' | 'enrich.reputation_b';
  keyHeader: string;
  lookup: (indicator: string, type: IndicatorType, config: Record<string, unknown>) => Lookup;
  /** The verdict of a 2xx body; null when the body is not the service's shape. */
  read: (body: unknown, config: Record<string, unknown>) => Omit<ReputationOutput, 'indicator' | 'type'> | null;
};

const num = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);

/** VirusTotal: malicious engines >= `malicious_engines` (default 3) is malicious; any malicious or suspicious engine is suspicious. */
const serviceA: Service = {
  name: 'enrich.reputation_a',
  keyHeader: 'x-apikey',
  lookup: (indicator, type) => {
    const segment =
      type === 'url'
        ? Buffer.from(indicator).toString('base64url')
        : encodeURIComponent(type === 'hash' || type === 'domain' ? indicator.toLowerCase() : indicator);
    return { path: `/api/v3/${{ ip: 'ip_addresses', domain: 'domains', url: 'urls', hash: 'files' }[type]}/${segment}` };
  },
  read: (body, config) => {
    const attributes = (body as { data?: { attributes?: Record<string, unknown> } } | null)?.data?.attributes;
    const stats = attributes?.last_analysis_stats as Record<string, unknown> | undefined;
    if (!stats || typeof stats !== 'object') return null;
    const count = (k: string) => num(stats[k], 0);
    const total = ['harmless', 'malicious', 'suspicious', 'undetected', 'timeout'].reduce((n, k) => n + count(k), 0);
    const malicious = count('malicious');
    const verdict: Verdict =
      malicious >= num(config.malicious_engines, 3)
        ? 'malicious'
        : malicious + count('suspicious') > 0
          ? 'suspicious'
          : count('harmless') > 0
            ? 'harmless'
            : 'unknown';
    const keep = ['last_analysis_stats', 'reputation', 'as_owner', 'asn', 'country', 'last_analysis_date', 'categories'];
    return {
      verdict,
      score: total === 0 ? null : Math.round((100 * malicious) / total),
      raw: Object.fromEntries(keep.filter((k) => attributes?.[k] !== undefined).map((k) => [k, attributes?.[k]])),
    };
  },
};

/** AbuseIPDB: confidence >= `malicious_score` (75) is malicious, >= `suspicious_score` (25) suspicious; 0 without reports is unknown. */
const serviceB: Service = {
  name: 'enrich.reputation_b',
  keyHeader: 'Key',
  lookup: (indicator, type, config) => {
    if (type !== 'ip') throw new ActionFailure('indicator_unsupported', `enrich.reputation_b: only IP addresses can be looked up, not a ${type}`, false);
    return { path: '/api/v2/check', query: { ipAddress: indicator, maxAgeInDays: num(config.max_age_days, 90) } };
  },
  read: (body, config) => {
    const data = (body as { data?: Record<string, unknown> } | null)?.data;
    if (!data || typeof data.abuseConfidenceScore !== 'number') return null;
    const score = data.abuseConfidenceScore;
    const reports = num(data.totalReports, 0);
    const verdict: Verdict =
      score >= num(config.malicious_score, 75)
        ? 'malicious'
        : score >= num(config.suspicious_score, 25)
          ? 'suspicious'
          : reports === 0
            ? 'unknown'
            : 'harmless';
    return { verdict, score, raw: data };
  },
};

function request(service: Service, step: ReputationInput, context: ActionContext) {
  const connection = requireConnection(service.name, context, 'http');
  const type = step.type ?? indicatorTypeOf(step.indicator) ?? 'domain';
  const { path, query } = service.lookup(step.indicator, type, connection.config);
  const header = typeof connection.config.auth_header === 'string' ? connection.config.auth_header : service.keyHeader;
  if (!HEADER_NAME.test(header))
    throw new ActionFailure('connection_invalid', `${service.name}: connection '${connection.name}' has an invalid auth_header`, false);
  return { url: joinUrl(service.name, connection.base_url, path, query), header, key: connection.secret, type };
}

function reputationAction(service: Service, fetchImpl: OutboundFetch): ActionDefinition<ReputationInput, ReputationOutput> {
  return {
    name: service.name,
    connectionKind: 'http',
    risk: 'read',
    input,
    output,
    async execute(step, context) {
      const { url, header, key, type } = request(service, step, context);
      if (!key) throw new ActionFailure('connection_missing', `${service.name}: the connection has no API key`, false);
      const response = await sendOutbound(
        service.name,
        fetchImpl,
        url,
        { method: 'GET', headers: { [header]: key, accept: 'application/json' } },
        context.signal,
      );
      const text = await readCappedText(service.name, response, url, context.signal);
      if (response.status === 404) return { indicator: step.indicator, type, verdict: 'unknown', score: null, raw: null };
      if (!response.ok) throw statusFailure(service.name, url, response.status);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = null;
      }
      const read = service.read(body, context.connection?.config ?? {});
      if (!read) throw new ActionFailure('response_invalid', `${service.name}: ${url.host} answered without a reputation`, false);
      return { indicator: step.indicator, type, ...read };
    },
    async preview(step, context) {
      const { url, header, type } = request(service, step, context);
      return { method: 'GET', url: url.toString(), headers: { [header]: REDACTED }, type };
    },
  };
}

/** `enrich.reputation_a` and `enrich.reputation_b` over `fetchImpl` (the guarded outbound fetch). */
export const reputationActions = (fetchImpl: OutboundFetch): ActionDefinition[] => [
  reputationAction(serviceA, fetchImpl),
  reputationAction(serviceB, fetchImpl),
];

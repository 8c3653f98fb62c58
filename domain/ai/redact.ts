/**
 * Redaction of secrets from AI text (SPEC.md "Limits": "Prompts and provider error bodies
 * are redacted ... before sending, logging, storing or returning").
 *
 * Six classes, each replaced by REDACTION_MARKER while the text around it stays readable:
 * bearer tokens (and bare JWTs), API keys (well-known vendor prefixes and `key=value`
 * assignments of secret-named keys), cloud access-key ids, basic-auth credentials (the
 * `Basic` scheme and `user:password@` in URLs), private-key blocks, and connection-string
 * passwords. Redaction errs towards removing: a prompt loses a few characters of context
 * rather than carry a credential to a third party.
 */

/** What a redacted secret becomes; the same marker action previews show. */
export const REDACTION_MARKER = '[redacted]';

/** The secret classes SPEC.md names. */
type SecretClass = 'bearer_token' | 'api_key' | 'cloud_access_key_id' | 'basic_auth' | 'private_key' | 'connection_string_password';

type Rule = { class: SecretClass; pattern: RegExp; replace: (match: string, ...groups: string[]) => string };

const M = REDACTION_MARKER;

/** Names under which a value is a secret whatever it looks like (`api_key=...`, `"password": "..."`). */
const SECRET_NAMES =
  '(?:api[_-]?key|apikey|x-api-key|access[_-]?token|refresh[_-]?token|auth[_-]?token|client[_-]?secret|secret[_-]?access[_-]?key|aws[_-]?secret[_-]?access[_-]?key|secret|password|passwd|pwd|token)';

/**
 * Order matters: whole blocks first (a private key contains base64 that later rules
 * would cut into pieces), then credentials inside URLs and headers, then bare tokens.
 */
const rules: Rule[] = [
  {
    class: 'private_key',
    pattern: /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?(?:-----END \1-----|$)/g,
    replace: () => M,
  },
  {
    class: 'basic_auth',
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@:"'<>]*):([^\s/@"'<>]+)@/gi,
    replace: (_m, scheme: string, user: string) => `${scheme}${user}:${M}@`,
  },
  { class: 'basic_auth', pattern: /\b(Basic)\s+[A-Za-z0-9+/=._-]{6,}/gi, replace: (_m, scheme: string) => `${scheme} ${M}` },
  { class: 'bearer_token', pattern: /\b(Bearer)\s+[A-Za-z0-9\-._~+/]+=*/gi, replace: (_m, scheme: string) => `${scheme} ${M}` },
  {
    class: 'connection_string_password',
    pattern: /\b((?:password|pwd)\s*=\s*)(?!\[redacted\])("[^"]*"|'[^']*'|[^;\s&"']+)/gi,
    replace: (_m, key: string) => `${key}${M}`,
  },
  {
    class: 'api_key',
    pattern: new RegExp(String.raw`(["']?\b${SECRET_NAMES}["']?\s*[:=]\s*)(?!\[redacted\])("[^"]*"|'[^']*'|[^\s,;&"'}\]]+)`, 'gi'),
    replace: (_m, key: string, value: string) => `${key}${value.startsWith('"') ? `"${M}"` : value.startsWith("'") ? `'${M}'` : M}`,
  },
  { class: 'cloud_access_key_id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b/g, replace: () => M },
  { class: 'cloud_access_key_id', pattern: /\bGOOG[A-Z0-9]{10,30}\b/g, replace: () => M },
  {
    class: 'api_key',
    pattern:
      /\b(?:sk-(?:ant-|proj-|live-)?[A-Za-z0-9_-]{16,}|sk_(?:live|test)_[A-Za-z0-9]{16,}|rk_(?:live|test)_[A-Za-z0-9]{16,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{40,}|glpat-[A-Za-z0-9_-]{20,}|xox[abeprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{35}|SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}|whsec_[A-Za-z0-9+/=]{16,})/g,
    replace: () => M,
  },
  { class: 'bearer_token', pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g, replace: () => M },
];

/** `text` with every secret of the six classes replaced by REDACTION_MARKER. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const rule of rules) out = out.replace(rule.pattern, rule.replace as (substring: string, ...args: string[]) => string);
  return out;
}

/** `value` with redactSecrets applied to every string in it, object keys included; other values unchanged. */
export function redactDeep(value: unknown): unknown {
  if (typeof value === 'string') return redactSecrets(value);
  if (Array.isArray(value)) return value.map(redactDeep);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, item]) => [redactSecrets(k), redactDeep(item)]));
  }
  return value;
}

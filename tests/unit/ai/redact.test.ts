import { describe, expect, it } from 'vitest';
import { REDACTION_MARKER, redactSecrets } from '../../../domain/ai/redact.ts';

const M = REDACTION_MARKER;

/** One planted secret per SPEC.md class, in the places analysts paste them: headers, URLs, configs, logs. */
const planted: { class: string; text: string; secret: string; kept?: string }[] = [
  {
    class: 'bearer token',
    text: 'curl -H "Authorization: Bearer abcDEF123456.xyz-789" https://x',
    secret: 'abcDEF123456.xyz-789',
    kept: 'Authorization: Bearer',
  },
  {
    class: 'bare JWT',
    text: 'token seen: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXBhcnQ in the log',
    secret: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXBhcnQ',
    kept: 'in the log',
  },
  { class: 'OpenAI-style key', text: 'key sk-proj-AbCdEfGhIjKlMnOpQrStUv123456 leaked', secret: 'sk-proj-AbCdEfGhIjKlMnOpQrStUv123456' },
  { class: 'Anthropic-style key', text: 'x sk-ant-api03-AAAABBBBCCCCDDDDEEEE y', secret: 'sk-ant-api03-AAAABBBBCCCCDDDDEEEE' },
  { class: 'GitHub token', text: 'ghp_0123456789abcdefghijABCDEFGHIJ012345', secret: 'ghp_0123456789abcdefghijABCDEFGHIJ012345' },
  { class: 'Slack token', text: 'xoxb-123456789012-abcdefABCDEF', secret: 'xoxb-123456789012-abcdefABCDEF' },
  { class: 'api_key assignment', text: 'config: api_key=hunter2-not-a-pattern; next', secret: 'hunter2-not-a-pattern', kept: 'api_key=' },
  { class: 'JSON secret member', text: '{"client_secret": "s3cr3t-value", "user": "bob"}', secret: 's3cr3t-value', kept: '"user": "bob"' },
  { class: 'x-api-key header', text: 'x-api-key: 9f8e7d6c5b4a', secret: '9f8e7d6c5b4a' },
  { class: 'AWS access key id', text: 'aws key AKIAIOSFODNN7EXAMPLE used from 10.0.0.5', secret: 'AKIAIOSFODNN7EXAMPLE', kept: '10.0.0.5' },
  { class: 'AWS temporary key id', text: 'ASIAY34FZKBOKMUTVV7A', secret: 'ASIAY34FZKBOKMUTVV7A' },
  {
    class: 'AWS secret assignment',
    text: 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  },
  { class: 'Basic auth header', text: 'Authorization: Basic dXNlcjpwYXNzd29yZA==', secret: 'dXNlcjpwYXNzd29yZA==', kept: 'Basic' },
  { class: 'URL credentials', text: 'fetched https://admin:Pa55w0rd!@intranet.example/login', secret: 'Pa55w0rd!', kept: 'https://admin:' },
  {
    class: 'private key block',
    text: 'found\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nAAAABG5vbmUAAAAEbm9uZQ==\n-----END OPENSSH PRIVATE KEY-----\non host',
    secret: 'b3BlbnNzaC1rZXktdjEAAAAA',
    kept: 'on host',
  },
  { class: 'RSA private key block', text: '-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----', secret: 'MIIEpAIBAAKCAQEA' },
  { class: 'postgres URL password', text: 'DATABASE_URL=postgres://svc:dbpass123@db.internal:5432/svc', secret: 'dbpass123', kept: 'db.internal:5432' },
  { class: 'mongodb+srv password', text: 'mongodb+srv://app:m0ng0pw@cluster0.example.net', secret: 'm0ng0pw' },
  { class: 'ADO.NET password', text: 'Server=sql1;Database=app;User Id=sa;Password=Sup3r$ecret;Encrypt=true', secret: 'Sup3r$ecret', kept: 'Encrypt=true' },
  { class: 'JDBC password parameter', text: 'jdbc:mysql://db/app?user=root&password=r00tpw&ssl=true', secret: 'r00tpw', kept: 'ssl=true' },
];

describe('redactSecrets', () => {
  for (const p of planted) {
    it(`removes a ${p.class}`, () => {
      const out = redactSecrets(p.text);
      expect(out).not.toContain(p.secret);
      expect(out).toContain(M);
      if (p.kept !== undefined) expect(out).toContain(p.kept);
    });
  }

  it('leaves ordinary incident text alone', () => {
    const text = 'Host web-01 (10.1.2.3) ran powershell -enc; user alice@example.com; hash 44d88612fea8a8f36de82e1278abb02f; T1059.001';
    expect(redactSecrets(text)).toBe(text);
  });

  it('is idempotent: redacting twice changes nothing more', () => {
    const once = redactSecrets(planted.map((p) => p.text).join('\n'));
    expect(redactSecrets(once)).toBe(once);
  });

  it('removes a private key block cut off before its END line', () => {
    expect(redactSecrets('-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEF')).toBe(M);
  });
});

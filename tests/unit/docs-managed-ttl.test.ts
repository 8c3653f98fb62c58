/**
 * The docs say what the code does with a managed effect's TTL (issue 45; SPEC.md "Managed
 * containment actions": every `response.*` action "require[s] a finite TTL"): a request
 * without one is refused `ttl_missing` (domain/effects/request.ts), docs/configuration.md
 * "Ban list" says so where the ban's managed invocation is described, and no doc promises
 * a default TTL for a managed effect that the code would then refuse.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evaluateRequest } from '../../domain/effects/request.ts';
import { defaultResponsePolicy } from '../../domain/response-policy/policy.ts';

const root = join(import.meta.dirname, '../..');
const docs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The sentences of a markdown file, its line breaks read as spaces. */
const sentences = (path: string): string[] =>
  readFileSync(join(root, path), 'utf8')
    .replace(/\s+/g, ' ')
    .split(/(?<=[.;])\s/);

/** The text of a `## <title>` section of a markdown file. */
function section(path: string, title: string): string {
  const text = readFileSync(join(root, path), 'utf8');
  const start = text.indexOf(`\n## ${title}\n`);
  expect(start, `${path} has a "${title}" section`).toBeGreaterThan(-1);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end === -1 ? undefined : end);
}

describe('docs on a managed effect without a TTL', () => {
  it('name the refusal the code answers where the ban list is bound as the managed block', () => {
    const refused = evaluateRequest(defaultResponsePolicy(), {
      effectType: 'block',
      targetType: 'ip',
      target: '203.0.113.7',
      ttlSeconds: undefined,
      severity: null,
    });
    expect(refused).toMatchObject({ ok: false, refusal: { code: 'ttl_missing' } });
    expect(section('docs/configuration.md', 'Ban list')).toContain('`ttl_missing`');
  });

  it('promise no default TTL for a managed effect', () => {
    const promises = docs.flatMap((path) =>
      sentences(path)
        .filter((s) => /\bTTL\b/.test(s) && /\bdefault/i.test(s) && /\b(effect|managed|containment|response\.)/i.test(s))
        .map((s) => `${path}: ${s}`),
    );
    expect(promises).toEqual([]);
  });
});

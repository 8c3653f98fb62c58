import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AttackCatalogError, catalogFromStix } from '../../../domain/attack/catalog.ts';
import { repoRoot } from '../../support/fixtures.ts';

const excerpt = JSON.parse(readFileSync(join(repoRoot, 'tests/fixtures/attack/enterprise-attack-excerpt.json'), 'utf8')) as {
  type: string;
  objects: unknown[];
};

describe('the ATT&CK catalog read from a STIX bundle', () => {
  it('names each technique with its tactics, marks the deprecated and leaves out the revoked and what is not a technique', () => {
    const catalog = catalogFromStix(excerpt);
    expect(catalog.name).toBe('Enterprise ATT&CK');
    expect(catalog.version).toBe('17.1');
    expect([...catalog.techniques.keys()].sort()).toEqual(['T1059', 'T1059.001', 'T1064', 'T1078', 'T1110.001', 'T1562.001']);
    expect(catalog.techniques.get('T1059.001')).toEqual({ id: 'T1059.001', name: 'PowerShell', tactics: ['execution'], deprecated: false });
    expect(catalog.techniques.get('T1078')?.tactics).toEqual(['defense-evasion', 'persistence', 'privilege-escalation', 'initial-access']);
    expect(catalog.techniques.get('T1064')).toMatchObject({ name: 'Scripting', deprecated: true });
    expect(catalog.techniques.has('T1086')).toBe(false);
    expect(catalog.techniques.has('T1038')).toBe(false);
  });

  it('prefers the current technique of an id the bundle also holds deprecated, and reads a bundle without a collection as unnamed', () => {
    const objects = excerpt.objects.filter((object) => (object as { type: string }).type === 'attack-pattern');
    const current = objects.find((object) => (object as { name: string }).name === 'Scripting') as Record<string, unknown>;
    const renamed = { ...current, name: 'Scripting (current)', x_mitre_deprecated: false };
    const catalog = catalogFromStix({ type: 'bundle', objects: [...objects, renamed] });
    expect(catalog.name).toBeNull();
    expect(catalog.version).toBeNull();
    expect(catalog.techniques.get('T1064')).toMatchObject({ name: 'Scripting (current)', deprecated: false });
  });

  it('refuses what is not a STIX bundle of ATT&CK techniques, in words', () => {
    expect(() => catalogFromStix([])).toThrow(AttackCatalogError);
    expect(() => catalogFromStix({ type: 'bundle' })).toThrow('not a STIX bundle');
    expect(() => catalogFromStix({ type: 'bundle', objects: [{ type: 'malware', name: 'x' }] })).toThrow('holds no ATT&CK technique');
  });
});

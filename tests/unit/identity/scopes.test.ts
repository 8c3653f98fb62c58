import { describe, expect, it } from 'vitest';
import { scopeCovers, scopes } from '../../../adapters/identity/scopes.ts';

describe('scopes', () => {
  it('lists a read and a write scope for every area', () => {
    expect(scopes).toHaveLength(12);
    expect(scopes).toContain('svc:cases:read');
    expect(scopes).toContain('svc:admin:write');
  });

  it('lets null (an assertion) cover everything', () => {
    expect(scopeCovers(null, 'svc:connections:write')).toBe(true);
  });

  it('covers an exact scope, and read through write of the same area only', () => {
    expect(scopeCovers(['svc:cases:read'], 'svc:cases:read')).toBe(true);
    expect(scopeCovers(['svc:cases:write'], 'svc:cases:read')).toBe(true);
    expect(scopeCovers(['svc:cases:read'], 'svc:cases:write')).toBe(false);
    expect(scopeCovers(['svc:alerts:write'], 'svc:cases:read')).toBe(false);
    expect(scopeCovers([], 'svc:cases:read')).toBe(false);
  });
});

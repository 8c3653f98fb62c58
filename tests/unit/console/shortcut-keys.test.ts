import { describe, expect, it } from 'vitest';
import { ignoredKeyPress, matchKey } from '../../../console/src/shortcut-keys.ts';

const bindings = ['?', 'j', 'g a', 'g c'];

describe('keyboard shortcuts', () => {
  it('runs a one-key binding at once and a two-key one on its second key', () => {
    expect(matchKey([], 'j', bindings)).toEqual({ run: 'j', pending: [] });
    expect(matchKey([], 'g', bindings)).toEqual({ run: null, pending: ['g'] });
    expect(matchKey(['g'], 'c', bindings)).toEqual({ run: 'g c', pending: [] });
  });

  it('drops a sequence that goes nowhere, letting its last key start afresh', () => {
    expect(matchKey(['g'], 'x', bindings)).toEqual({ run: null, pending: [] });
    expect(matchKey(['g'], 'j', bindings)).toEqual({ run: 'j', pending: [] });
    expect(matchKey([], 'x', bindings)).toEqual({ run: null, pending: [] });
  });

  it('leaves alone keys typed into a field or pressed with a modifier', () => {
    const key = (target: object | null, mods: Partial<{ ctrlKey: boolean; altKey: boolean; metaKey: boolean }> = {}) => ({
      ctrlKey: false,
      altKey: false,
      metaKey: false,
      ...mods,
      target: target as EventTarget | null,
    });
    expect(ignoredKeyPress(key({ tagName: 'INPUT' }))).toBe(true);
    expect(ignoredKeyPress(key({ tagName: 'TEXTAREA' }))).toBe(true);
    expect(ignoredKeyPress(key({ tagName: 'DIV', isContentEditable: true }))).toBe(true);
    expect(ignoredKeyPress(key({ tagName: 'BODY' }, { ctrlKey: true }))).toBe(true);
    expect(ignoredKeyPress(key({ tagName: 'BODY' }))).toBe(false);
    expect(ignoredKeyPress(key(null))).toBe(false);
  });
});

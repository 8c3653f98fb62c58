import { describe, expect, it } from 'vitest';
import { themeOf } from '../../../console/src/theme-choice.ts';

describe("the console's theme", () => {
  it("follows the system's preference unless light or dark is chosen", () => {
    expect(themeOf('system', true)).toBe('dark');
    expect(themeOf('system', false)).toBe('light');
    expect(themeOf('light', true)).toBe('light');
    expect(themeOf('dark', false)).toBe('dark');
  });
});

/** The console's themes and what a choice means (theme.tsx applies it). Pure: no DOM, so tests/unit/console can run it. */
export type ThemeChoice = 'system' | 'light' | 'dark';
export type Theme = 'light' | 'dark';

/** The theme a choice means while the system prefers dark (`prefersDark`) or not. */
export const themeOf = (choice: ThemeChoice, prefersDark: boolean): Theme => (choice === 'system' ? (prefersDark ? 'dark' : 'light') : choice);

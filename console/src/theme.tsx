/**
 * The console's theme (docs/console.md "Look and feel"): light, dark, or the system's
 * (`prefers-color-scheme`), chosen in the top bar and kept in this browser's storage. The
 * theme in force is set as `data-theme` on the document element, where styles.css picks its
 * design tokens; the code editor, the step graph and the charts, which draw their own
 * colours, read it with `useTheme`.
 */
import { createContext, type ReactNode, useContext, useEffect, useLayoutEffect, useState } from 'react';
import { type Theme, type ThemeChoice, themeOf } from './theme-choice.ts';
import { DARK_QUERY, store, storedChoice } from './theme-storage.ts';

const CHOICES: Record<ThemeChoice, string> = { system: 'As the system', light: 'Light', dark: 'Dark' };

type ThemeState = { theme: Theme; choice: ThemeChoice; choose: (choice: ThemeChoice) => void };
const ThemeContext = createContext<ThemeState>({ theme: 'light', choice: 'system', choose: () => undefined });

export function ThemeProvider({ children }: { children: ReactNode }) {
  const [choice, setChoice] = useState<ThemeChoice>(storedChoice);
  const [prefersDark, setPrefersDark] = useState(() => window.matchMedia(DARK_QUERY).matches);
  useEffect(() => {
    const query = window.matchMedia(DARK_QUERY);
    const changed = (event: MediaQueryListEvent) => setPrefersDark(event.matches);
    query.addEventListener('change', changed);
    // A change between the first render and this subscription sent its event to no one.
    setPrefersDark(query.matches);
    return () => query.removeEventListener('change', changed);
  }, []);
  const theme = themeOf(choice, prefersDark);
  // Before paint, so a page never shows one frame in the other theme's colours.
  useLayoutEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  const choose = (next: ThemeChoice) => {
    store(next);
    setChoice(next);
  };
  return <ThemeContext.Provider value={{ theme, choice, choose }}>{children}</ThemeContext.Provider>;
}

/** The theme in force. */
export const useTheme = (): Theme => useContext(ThemeContext).theme;

/** The top bar's choice of theme. */
export function ThemePicker() {
  const { choice, choose } = useContext(ThemeContext);
  return (
    <label className="theme-picker">
      Theme
      <select value={choice} onChange={(event) => choose(event.target.value as ThemeChoice)}>
        {(Object.keys(CHOICES) as ThemeChoice[]).map((value) => (
          <option key={value} value={value}>
            {CHOICES[value]}
          </option>
        ))}
      </select>
    </label>
  );
}

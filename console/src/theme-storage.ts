/**
 * Where the console keeps its theme choice (this browser's local storage) and how it asks
 * the system's preference; apart from theme.tsx so boot.ts can set the theme before the
 * first paint, and a dark page never flashes light while React loads.
 */
import { type ThemeChoice, themeOf } from './theme-choice.ts';

const STORAGE_KEY = 'svc-console-theme';
/** The media query of the system's dark preference. */
export const DARK_QUERY = '(prefers-color-scheme: dark)';

/** The stored choice; `system` when none is stored, storage is refused, or the value is not a choice. */
export function storedChoice(): ThemeChoice {
  try {
    const value = window.localStorage.getItem(STORAGE_KEY);
    return value === 'light' || value === 'dark' ? value : 'system';
  } catch {
    return 'system';
  }
}

/** Keeps `choice`; `system` is kept as no choice. */
export function store(choice: ThemeChoice): void {
  try {
    if (choice === 'system') window.localStorage.removeItem(STORAGE_KEY);
    else window.localStorage.setItem(STORAGE_KEY, choice);
  } catch {
    // Storage refused (a private window): the choice lasts as long as the tab.
  }
}

/** Sets the stored (or the system's) theme on the document, where styles.css reads it. */
export function applyStoredTheme(): void {
  document.documentElement.dataset.theme = themeOf(storedChoice(), window.matchMedia(DARK_QUERY).matches);
}

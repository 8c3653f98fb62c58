/**
 * The console's entry point (console/index.html): a small script that starts the first
 * reads, `GET /auth/me` and the case list's first page when that is the page opened, sets
 * the theme before the first paint, then runs main.tsx (React and the pages), which
 * index.html already asked the browser to fetch (vite.config.ts). The reads travel while
 * the larger script loads and runs, instead of after it (bench/console-case-list.ts,
 * first-reads.ts).
 */
import { publicPrefix } from './config.ts';
import { startFirstRead } from './first-reads.ts';
import { readMe } from './me-read.ts';
import { startFirstCasePage } from './pages/case-list-query.ts';
import { applyStoredTheme } from './theme-storage.ts';
import './styles.css';

startFirstRead('me', readMe);
const path = window.location.pathname.startsWith(publicPrefix) ? window.location.pathname.slice(publicPrefix.length) : null;
if (path === '/cases' || path === '/cases/' || path === '' || path === '/') startFirstCasePage(window.location.search);
applyStoredTheme();

void import('./main.tsx');

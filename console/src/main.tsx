/** The console's entry point (console/index.html). */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.tsx';
import { publicPrefix } from './config.ts';
import { startFirstRead } from './first-reads.ts';
import { readMe } from './me.tsx';
import { startFirstCasePage } from './pages/case-list.tsx';
import './styles.css';

// Who is signed in, and the case list's first page when that is the page opened, are read
// while React starts rather than one after the other (first-reads.ts).
startFirstRead('me', readMe);
const path = window.location.pathname.startsWith(publicPrefix) ? window.location.pathname.slice(publicPrefix.length) : null;
if (path === '/cases' || path === '/cases/' || path === '' || path === '/') startFirstCasePage(window.location.search);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);

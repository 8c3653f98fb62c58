/** Renders the console (boot.ts loads it once the first reads are on their way). */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app.tsx';
import { firstReadsSettled } from './first-reads.ts';

/** How long (ms) the first render waits for the first reads: long enough for an API that answers in tens of milliseconds, short enough that a slow one shows "Loading" soon. */
const FIRST_READ_WAIT_MS = 300;

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root');
const mount = root;
// Rendering once with the answers costs less than rendering "Loading" first and the rows after.
void firstReadsSettled(FIRST_READ_WAIT_MS).then(() =>
  createRoot(mount).render(
    <StrictMode>
      <App />
    </StrictMode>,
  ),
);

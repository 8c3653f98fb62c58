/**
 * `make bench`: the console's case list at 100k cases (issue 26), in Debian's headless
 * Chromium through `svc dev gateway`, next to the bare API call in the same run: time to
 * first render (navigation start to the first case row in the DOM: the HTML, the cached
 * hashed bundle, `GET /auth/me`, then `GET /cases` and React's render) against
 * `GET /cases` of the same first page (`include_total`, 100 rows) fetched from the same tab
 * through the same gateway. The ratio is what the page adds to its one read.
 *
 * The 100k cases are bench/seed-cases.ts's read-model rows; the person is a team-a
 * analyst, so the list is scoped as in bench/case-list.ts. The first load fills the
 * browser cache and is not counted: an analyst opens the console many times a day.
 * Prints medians (ms) of BENCH_ROUNDS x 5 loads; needs the built console (`make console`)
 * and /usr/bin/chromium (or SVC_TEST_CHROMIUM), else it says so and exits 0.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ensureDevIdentity } from '../adapters/identity/dev-identity.ts';
import { startDevGateway } from '../runtime/cli/dev-gateway.ts';
import { chromiumPath, launchChromium } from '../tests/support/browser.ts';
import { benchLine, median, printReport, runBench, startBenchService } from './bench-service.ts';
import { seedCases } from './seed-cases.ts';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const caseCount = Number(process.env.BENCH_CASES ?? 100_000);
const loads = rounds * 5;
const consoleDir = resolve('console', 'dist');

async function main() {
  if (!existsSync(join(consoleDir, 'index.html')) || !existsSync(chromiumPath)) {
    process.stdout.write(`console case list: skipped (needs ${consoleDir} from \`make console\` and Chromium at ${chromiumPath})\n`);
    return;
  }
  const identityDir = mkdtempSync(join(tmpdir(), 'svc-bench-identity-'));
  const identity = await ensureDevIdentity(identityDir);
  const bench = await startBenchService({
    SVC_IDENTITY_ISSUER: identity.issuer,
    SVC_IDENTITY_JWKS: JSON.stringify(identity.jwks),
    SVC_CONSOLE_DIR: consoleDir,
  });
  const { db, engine } = bench.service.opened;
  await seedCases(db, caseCount);
  const target = new URL(bench.url);
  const gateway = await startDevGateway({
    host: '127.0.0.1',
    port: 0,
    target: new URL(target.origin),
    basePath: bench.config.basePath,
    audience: bench.config.audience,
    identity,
    person: { email: 'bench-analyst@example.com', name: 'Bench analyst', grants: [{ team: 'team-a', role: 'analyst' }] },
  });
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  // Runs before the app's scripts, over the DevTools protocol (the page's CSP does not apply).
  // The time comes back as a console message: waiting with page.waitForFunction would inject
  // playwright's own script into the page while it renders, and count its ~50 ms as the page's.
  await context.addInitScript(`new MutationObserver((_, observer) => {
    if (document.querySelector('[data-testid="case-row"]')) { console.debug('first-row', performance.now()); observer.disconnect(); }
  }).observe(document, { childList: true, subtree: true });`);
  const listUrl = `${gateway.url}${bench.config.publicPrefix}/cases`;
  const apiPath = `${bench.config.basePath}/cases?include_total=true&limit=100&offset=0`;

  const render: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i <= loads; i++) {
    const page = await context.newPage();
    const rowSeen = page.waitForEvent('console', { predicate: (message) => message.text().startsWith('first-row '), timeout: 60_000 });
    await page.goto(listUrl);
    const firstRow = Number((await rowSeen).text().slice('first-row '.length));
    const fetchMs = Number(
      await page.evaluate(`(async () => {
        const start = performance.now();
        const answer = await fetch(${JSON.stringify(apiPath)});
        if (!answer.ok) throw new Error('GET /cases answered ' + answer.status);
        await answer.json();
        return performance.now() - start;
      })()`),
    );
    await page.close();
    if (i === 0) continue;
    render.push(firstRow);
    bare.push(fetchMs);
  }
  printReport(`engine=${engine} cases=${caseCount} loads=${loads} browser=chromium viewport=1280x800`, [
    benchLine('console_case_list_first_render_ms', median(render), median(bare), 'reported'),
  ]);
  await context.close();
  await browser.close();
  await gateway.close();
  await bench.close();
  rmSync(identityDir, { recursive: true, force: true });
}

runBench(main);

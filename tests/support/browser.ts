/**
 * Headless Chromium for the console's browser tests: Debian's `/usr/bin/chromium` driven
 * by playwright-core (no browser download works on our machines), with the flags that keep
 * it off the network, and axe-core run inside a page.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium, type Page } from 'playwright-core';

export const chromiumPath = process.env.SVC_TEST_CHROMIUM || '/usr/bin/chromium';

/** Why the browser tests cannot run here, or null when they can. In CI a missing browser is a failure, not a skip. */
export function browserMissing(): string | null {
  if (existsSync(chromiumPath)) return null;
  const reason = `no Chromium at ${chromiumPath} (Debian's chromium package; .ci/run installs it)`;
  if (process.env.CI === 'true') throw new Error(reason);
  return reason;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    // Without the background-networking flags Chromium keeps dialling Google's hosts, which
    // this machine's closed network refuses (/work/.library/env/machines/node.md).
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: string[] }[] };

/**
 * axe-core's WCAG 2.1 A and AA checks on the page as it is now. Evaluated over the
 * DevTools protocol, which the page's Content-Security-Policy does not govern, so the
 * console keeps its strict policy under test.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  // A string, run in the page: this module is typed for Node, without the DOM's globals.
  return page.evaluate(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } }).then((result) =>
    result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`);
}

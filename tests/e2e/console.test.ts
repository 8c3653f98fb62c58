/**
 * The web console end to end (issue 26), in Debian's headless Chromium driven by
 * playwright-core, against the real service started as `make run` starts it (embedded
 * PGlite, dev identity, the built console) with one `svc dev gateway` per person minting
 * their request-bound assertions, WebSocket included. Two people work one case:
 * Ana (analyst) opens it from the alert inbox, mentions Abe (approver), whose unread count
 * rises without a reload; Ana runs a gated runbook; Abe approves it from the queue; Ana
 * watches the run finish live and sees the chain badge; runs are listed across cases, an
 * alert opens with its payload, the case is edited, a block is released from the containment
 * page, and Ada (admin) authors a runbook from scratch in the editor, keeps the settings
 * (webhook sources, audit, retention, AI usage), drafts a custom action from an OpenAPI
 * document, reads the SOC dashboard, and asks a local AI
 * provider to triage a case, draft a runbook and explain a run. Every main page passes
 * axe-core's WCAG A/AA checks, and screenshots land in `.tmp/console-screenshots/`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureDevIdentity, mintDevToken } from '../../adapters/identity/dev-identity.ts';
import type { DevGateway } from '../../runtime/cli/dev-gateway.ts';
import { type EdgeWafStandIn, startEdgeWafStandIn } from '../../runtime/cli/dev-standins/edge-waf.ts';
import { type AiProviderServer, startAiProviderServer } from '../support/ai-provider-server.ts';
import { axeViolations, browserMissing, launchChromium } from '../support/browser.ts';
import { gatewayAs } from '../support/dev-gateway.ts';
import { repoRoot } from '../support/fixtures.ts';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.ts';

const consoleDir = join(repoRoot, 'console', 'dist');
const screenshots = join(repoRoot, '.tmp', 'console-screenshots');
const missing = browserMissing();

const runbook = `
id: contain-after-review
name: Contain after review
description: Tags the case reviewed, then, once an approver agrees, contained.
version: 1
trigger: { type: manual }
steps:
  - id: review
    action: case.update
    ui: { x: 0, y: 0 }
    with: { tags_add: [reviewed] }
  - id: contain
    needs: [review]
    action: case.update
    approval: { roles: [approver], message: "Tag the case contained?" }
    ui: { x: 0, y: 140 }
    with: { tags_add: [contained], comment: "Contained after approval." }
`;

/** Blocks one address through whatever the response policy binds for block/ip (the containment test binds the edge WAF stand-in). */
const blockRunbook = `
id: source-ip-block
name: Block the source address
description: Blocks 198.51.100.23 for ten minutes under the response policy.
version: 1
trigger: { type: manual }
steps:
  - id: block
    action: response.ip_block
    autonomous: true
    with: { ip: 198.51.100.23, ttl_seconds: 600, reason: console e2e }
`;
const WAF_TOKEN = 'waf-console-e2e';
/** The key the AI provider stand-in takes; the identity service sets it, the console never sees it. */
const AI_KEY = 'sk-console-e2e-0123456789abcdef';
const WAF_ZONE = '023e105f4ecef8ad9ca31a8372d0c353';

// A machine without Chromium (outside CI) names the reason in the skipped suite's title.
// Each step waits on a browser, a service and a worker sharing two CPUs with the rest of the suite.
describe.skipIf(missing !== null)(`the web console in Chromium${missing ? ` (skipped: ${missing})` : ''}`, { timeout: 90_000 }, () => {
  let svc: ServiceProcess;
  let browser: Browser;
  const gateways: DevGateway[] = [];
  const contexts: BrowserContext[] = [];
  let ana: Page;
  let abe: Page;
  /** Ada, an administrator, signs in when she sets containment up; she then writes a runbook. */
  let ada: Page;
  let adaUrl = '';
  /** Ada's gateway: the API as Ada, for what the test checks without a page. */
  let adaApi = '';
  let anaUrl = '';
  let abeUrl = '';
  let dataDir = '';
  let runbooksDir = '';
  let caseId = '';
  let waf: EdgeWafStandIn | undefined;
  let ai: AiProviderServer | undefined;

  const shoot = (page: Page, name: string) => page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
  const expectAccessible = async (page: Page, name: string) => {
    const violations = await axeViolations(page);
    expect(violations, `${name}: ${JSON.stringify(violations, null, 1)}`).toEqual([]);
  };

  /** The page's YAML editor (CodeMirror): its text as shown, and the whole text replaced as typed. */
  const yamlEditorOf = (page: Page) => {
    const editor = page.getByTestId('yaml-editor');
    return {
      yamlNow: async () => (await editor.locator('.cm-line').allTextContents()).join('\n').replace(/\u00a0/g, ' '),
      replaceYaml: async (text: string) => {
        await editor.click();
        await page.keyboard.press('Control+A');
        await page.keyboard.insertText(text);
      },
    };
  };

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    dataDir = mkdtempSync(join(tmpdir(), 'svc-console-e2e-'));
    runbooksDir = mkdtempSync(join(tmpdir(), 'svc-console-runbooks-'));
    writeFileSync(join(runbooksDir, 'contain-after-review.yml'), runbook);
    writeFileSync(join(runbooksDir, 'source-ip-block.yml'), blockRunbook);
    svc = await startServiceProcess({
      SVC_DATA_DIR: dataDir,
      SVC_RUNBOOKS_DIR: runbooksDir,
      SVC_CONSOLE_DIR: consoleDir,
      SVC_DETECTOR_BOOTSTRAP_SECRET: 'console-e2e-bootstrap',
      // The edge WAF stand-in of the containment test listens on 127.0.0.1.
      SVC_ALLOW_PRIVATE_TARGETS: 'true',
      SVC_WORKER_METRICS_PORT: '0',
      // Names techniques by id (docs/configuration.md "ATT&CK catalog").
      SVC_ATTACK_CATALOG: join(repoRoot, 'tests/fixtures/attack/enterprise-attack-excerpt.json'),
    });
    const identity = await ensureDevIdentity(dataDir);
    gateways.push(await gatewayAs(identity, svc.url, 'ana@example.com', 'analyst'), await gatewayAs(identity, svc.url, 'abe@example.com', 'approver'));
    anaUrl = `${gateways[0]?.url}/svc`;
    abeUrl = `${gateways[1]?.url}/svc`;
    browser = await launchChromium();
    for (let i = 0; i < 2; i++) contexts.push(await browser.newContext({ viewport: { width: 1280, height: 800 } }));
    ana = await contexts[0]!.newPage();
    abe = await contexts[1]!.newPage();
  }, 120_000);

  // A failure in CI shows only its tail: the service's own words say why.
  afterEach(({ task }) => {
    if (task.result?.state === 'fail') process.stderr.write(`service output, last 4000 characters:\n${svc?.output().slice(-4000)}\n`);
  });

  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
    for (const gateway of gateways) await gateway.close();
    await waf?.close();
    await ai?.close();
    await svc?.stop();
    for (const dir of [dataDir, runbooksDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('opens a case from the alert inbox', async () => {
    // The alert goes in before any page is drawn: a page that fails here leaves the case the later tests work on.
    const intake = await fetch(`${svc.url}/webhooks/detector`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-token': 'console-e2e-bootstrap' },
      body: JSON.stringify({
        alert_id: 'console-e2e-1',
        rule: { id: 'ssh-brute-force', title: 'SSH brute force from one source', severity: 'high' },
        detected_at: new Date().toISOString(),
        matched_log: { source: { ip: '203.0.113.7' }, host: { name: 'web-01' } },
      }),
    });
    expect(intake.status).toBe(202);
    caseId = ((await intake.json()) as { case_id: string }).case_id;

    // Abe signs in before the mention: a mention reaches only people the service has seen.
    await abe.goto(`${abeUrl}/notifications`);
    await expect.poll(() => abe.getByTestId('live-status').textContent(), { timeout: 15_000 }).toBe('Live');

    await ana.goto(`${anaUrl}/alerts`);
    const row = ana.getByTestId('alert-row').filter({ hasText: 'SSH brute force from one source' });
    await row.waitFor({ timeout: 15_000 });
    await shoot(ana, 'alert-inbox');
    await expectAccessible(ana, 'alert inbox');

    // Its details, read with GET /alerts/<id>: the case holding it, its observables, its payload.
    await row.getByRole('link', { name: 'SSH brute force from one source' }).click();
    const detail = ana.getByTestId('alert-detail');
    await expect.poll(() => detail.textContent(), { timeout: 15_000 }).toContain('SVC-1: SSH brute force from one source');
    expect(await detail.getByRole('table', { name: 'Observables of the alert' }).textContent()).toContain('203.0.113.7');
    await detail.getByText('The payload as it arrived').click();
    expect(await ana.getByTestId('alert-payload').textContent()).toContain('"alert_id": "console-e2e-1"');
    expect(await detail.getByRole('button', { name: 'Escalate to a new case' }).count()).toBe(1);
    await shoot(ana, 'alert-detail');
    await expectAccessible(ana, 'alert detail');
    await row
      .getByRole('link', { name: /SVC-1|case/i })
      .first()
      .click();
    await ana.waitForURL(`**/svc/cases/${caseId}`);
    await expect.poll(() => ana.getByRole('heading', { level: 1 }).textContent(), { timeout: 15_000 }).toContain('SSH brute force from one source');
    await expect.poll(() => ana.getByTestId('ack-clock').textContent(), { timeout: 15_000 }).toMatch(/Unacknowledged for/);
  });

  it('shows who else is on the case, and a mention reaches the other person live', async () => {
    await abe.goto(`${abeUrl}/cases/${caseId}`);
    await expect.poll(() => ana.getByTestId('presence').textContent(), { timeout: 15_000 }).toContain('abe');
    await abe.goto(`${abeUrl}/notifications`);
    await expect.poll(() => abe.getByTestId('live-status').textContent(), { timeout: 15_000 }).toBe('Live');
    expect(await abe.getByTestId('unread-count').count()).toBe(0);

    const box = ana.getByRole('combobox', { name: /Comment/ });
    await box.click();
    await box.pressSequentially('Looks real, please review @ab');
    await ana
      .getByRole('listbox', { name: 'People to mention' })
      .getByRole('option', { name: /abe@example.com/ })
      .waitFor();
    await box.press('Enter');
    expect(await box.inputValue()).toBe('Looks real, please review @abe@example.com ');
    await ana.getByRole('button', { name: 'Post comment' }).click();
    await expect.poll(() => ana.getByRole('status').filter({ hasText: 'Notified' }).textContent(), { timeout: 15_000 }).toContain('abe@example.com');
    await expect.poll(() => ana.getByTestId('comments').textContent(), { timeout: 15_000 }).toContain('Looks real, please review @abe@example.com');

    // Abe's page was never reloaded: the count and the list follow the live frame.
    await expect.poll(() => abe.getByTestId('unread-count').textContent(), { timeout: 15_000 }).toBe('1');
    const mention = abe.getByTestId('notification').first();
    await expect.poll(() => mention.textContent(), { timeout: 15_000 }).toMatch(/mention/);
    await shoot(abe, 'notifications');
    await expectAccessible(abe, 'notifications');
    await mention.getByRole('link').click();
    await abe.waitForURL(`**/svc/cases/${caseId}`);

    await shoot(ana, 'case-page');
    await expectAccessible(ana, 'case page');
  });

  it('runs a runbook, approves its gate from the queue, and the run finishes live with a verified chain', async () => {
    await ana.getByRole('button', { name: 'Run on this case' }).click();
    await ana.waitForURL(/\/svc\/runs\/[0-9a-f-]+$/);
    const runId = ana.url().split('/').pop() ?? '';
    await expect.poll(() => ana.getByTestId('run-status').textContent(), { timeout: 30_000 }).toBe('waiting approval');

    await abe.goto(`${abeUrl}/approvals`);
    const gate = abe.getByTestId('approval').filter({ hasText: 'Tag the case contained?' });
    await gate.waitFor({ timeout: 15_000 });
    await shoot(abe, 'approvals');
    await expectAccessible(abe, 'approvals queue');
    await gate.getByRole('button', { name: 'Approve contain' }).click();
    await expect.poll(() => abe.getByTestId('approval').count(), { timeout: 15_000 }).toBe(0);

    // Ana's run page was left open: it follows the run to its end without a reload.
    await expect.poll(() => ana.getByTestId('run-status').textContent(), { timeout: 30_000 }).toBe('succeeded');
    await expect.poll(() => ana.getByTestId('chain-badge').textContent(), { timeout: 15_000 }).toMatch(/^Chain verified: \d+ rows$/);
    await expect.poll(() => ana.getByTestId('action-log').locator('li').count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(2);
    expect(ana.url()).toContain(runId);
    await shoot(ana, 'run');
    await expectAccessible(ana, 'run page');
  });

  it('lists the runs across cases with their filters in the URL, and shows a viewer an alert without its actions', async () => {
    await ana.goto(`${anaUrl}/runs?status=succeeded`);
    const run = ana.getByTestId('run-row').filter({ hasText: 'contain-after-review' });
    await run.waitFor({ timeout: 15_000 });
    expect(await ana.getByTestId('list-range').textContent()).toBe('Runs 1–1 of 1');
    await shoot(ana, 'runs');
    await expectAccessible(ana, 'run list');
    await ana.getByLabel('Status').selectOption('failed');
    await ana.waitForURL(/\/svc\/runs\?status=failed$/);
    await ana.getByText('No runs match these filters.').waitFor({ timeout: 15_000 });
    await ana.getByRole('button', { name: 'Clear filters' }).click();
    await ana.getByTestId('run-row').first().getByRole('link', { name: /^Run / }).click();
    await ana.waitForURL(/\/svc\/runs\/[0-9a-f-]+$/);
    await ana.getByTestId('run-status').waitFor({ timeout: 15_000 });

    const vicGateway = await gatewayAs(await ensureDevIdentity(dataDir), svc.url, 'vic@example.com', 'viewer');
    gateways.push(vicGateway);
    const vicContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(vicContext);
    const vic = await vicContext.newPage();
    const alertId = ((await (await fetch(`${gateways[0]?.url}/alerts`)).json()) as { items: { id: string }[] }).items[0]?.id;
    await vic.goto(`${vicGateway.url}/svc/alerts/${alertId}`);
    const detail = vic.getByTestId('alert-detail');
    await expect.poll(() => detail.textContent(), { timeout: 15_000 }).toContain('SSH brute force from one source');
    expect(await vic.getByRole('button', { name: /Escalate/ }).count()).toBe(0);
    expect(await vic.getByRole('heading', { name: /Selected alerts/ }).count()).toBe(0);
    await expectAccessible(vic, 'alert detail as a viewer');
  });

  it('lists cases, and draws the runbook with its recent run on it', async () => {
    await ana.goto(`${anaUrl}/cases`);
    await ana.getByTestId('case-row').first().waitFor({ timeout: 15_000 });
    await shoot(ana, 'case-list');
    await expectAccessible(ana, 'case list');

    await ana.goto(`${anaUrl}/runbooks`);
    await ana.getByRole('link', { name: 'Contain after review' }).click();
    await ana.getByTestId('graph-node-contain').waitFor({ timeout: 15_000 });
    const recent = ana.getByRole('region', { name: 'Recent runs' });
    await expect.poll(() => recent.textContent(), { timeout: 15_000 }).toContain('succeeded');
    await recent
      .getByRole('link', { name: /Run queued/ })
      .first()
      .click();
    await expect.poll(() => ana.getByTestId('graph-node-contain').getAttribute('data-status'), { timeout: 15_000 }).toBe('ok');
    await shoot(ana, 'runbook');
    await expectAccessible(ana, 'runbook page');
  });

  it('edits the case: title, severity, a tag and an ATT&CK technique, refusing a malformed id in words; the timeline narrows to a kind', async () => {
    await ana.goto(`${anaUrl}/cases/${caseId}`);
    await ana.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = ana.getByRole('form', { name: 'Edit the case' });
    await form.getByLabel('Title').fill('SSH brute force against web-01');
    await form.getByLabel('Severity').selectOption('critical');
    await form.getByLabel('Add a tag').fill('ssh');
    await form.getByLabel('Add a tag').press('Enter');
    await form.getByLabel('Add a technique').fill('T1110.');
    await form.getByRole('button', { name: 'Add technique' }).click();
    expect(await form.getByRole('alert').textContent()).toBe('T1110. is not a technique id like T1059 or T1059.001.');
    // The install's ATT&CK catalog names a typed id before it is added, and says when it does not know one.
    await form.getByLabel('Add a technique').fill('T1999');
    expect(await form.getByTestId('technique-hint').textContent()).toBe("T1999 is not in this install's ATT&CK catalog.");
    await form.getByLabel('Add a technique').fill('t1110.001');
    expect(await form.getByTestId('technique-hint').textContent()).toBe('T1110.001: Password Guessing (credential access)');
    await form.getByLabel('Add a technique').press('Enter');
    expect(await form.locator('.chip').filter({ hasText: 'T1110.001' }).textContent()).toContain('T1110.001 Password Guessing');
    await shoot(ana, 'case-edit');
    await expectAccessible(ana, 'case edit form');
    await form.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => ana.getByRole('heading', { level: 1 }).textContent(), { timeout: 15_000 }).toContain('SSH brute force against web-01');
    const labels = ana.getByTestId('case-labels');
    expect(await labels.textContent()).toContain('#ssh');
    expect(await labels.getByRole('link', { name: 'T1110.001 Password Guessing' }).getAttribute('href')).toBe('https://attack.mitre.org/techniques/T1110/001/');
    const kinds = ((await (await fetch(`${gateways[0]?.url}/cases/${caseId}/timeline`)).json()) as { items: { kind: string; payload: unknown }[] }).items;
    expect(kinds).toContainEqual(expect.objectContaining({ kind: 'attack_techniques_updated', payload: expect.objectContaining({ added: ['T1110.001'] }) }));

    const timeline = ana.getByRole('region', { name: 'Timeline' });
    await timeline.getByLabel('Kind').selectOption('attack_techniques_updated');
    await expect.poll(() => timeline.getByTestId('timeline').locator('li').count(), { timeout: 15_000 }).toBe(1);
    expect(await timeline.getByTestId('timeline').textContent()).toContain('attack techniques updated');
    expect(ana.url()).toContain('timeline_kind=attack_techniques_updated');
  });

  it('works the analyst loop from the keyboard, with a help overlay listing the keys', async () => {
    await ana.goto(`${anaUrl}/alerts`);
    await ana.getByTestId('alert-row').first().waitFor({ timeout: 15_000 });
    await ana.keyboard.press('?');
    const help = ana.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await help.waitFor({ timeout: 5_000 });
    expect(await help.textContent()).toContain('Open the next alert of the page');
    await expectAccessible(ana, 'shortcut help');
    await ana.keyboard.press('Escape');
    await help.waitFor({ state: 'hidden', timeout: 5_000 });
    await ana.keyboard.press('j');
    await ana.getByTestId('alert-detail').waitFor({ timeout: 15_000 });
    expect(ana.url()).toMatch(/\/svc\/alerts\/[0-9a-f-]+$/);
    await ana.keyboard.press('g');
    await ana.keyboard.press('c');
    await ana.waitForURL(/\/svc\/cases$/);
    await ana.goto(`${anaUrl}/cases/${caseId}`);
    await ana.getByRole('heading', { level: 1 }).waitFor({ timeout: 15_000 });
    await ana.keyboard.press('c');
    await expect.poll(() => ana.evaluate<string | undefined>('document.activeElement?.id'), { timeout: 5_000 }).toBe('comment-text');
  });

  it('shows a block with its TTL counting down on the containment page and the case, and an approver releases it after confirming', async () => {
    // An administrator sets containment up in the browser: the edge WAF's connection, its pack, and a response policy binding it.
    waf = await startEdgeWafStandIn({ port: 0, host: '127.0.0.1', token: WAF_TOKEN });
    const admin = await gatewayAs(await ensureDevIdentity(dataDir), svc.url, 'ada@example.com', 'admin');
    gateways.push(admin);
    // The connection through the settings page, its probe answered in words; an analyst is refused in words.
    const adaContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(adaContext);
    ada = await adaContext.newPage();
    adaApi = admin.url;
    adaUrl = `${adaApi}/svc`;
    await ada.goto(`${adaUrl}/settings/connections`);
    const create = ada.getByRole('region', { name: 'New connection' });
    await create.getByLabel('Kind').selectOption('http');
    await create.getByLabel('Name').fill('edge-waf');
    await create.getByLabel('Base URL').fill(waf.url);
    await create.getByLabel('Config (JSON)').fill('{"auth": "bearer"');
    await create.getByLabel('Secret').fill(WAF_TOKEN);
    await create.getByRole('button', { name: 'Create connection' }).click();
    await expect.poll(() => create.getByRole('alert').textContent(), { timeout: 15_000 }).toMatch(/^Config is not JSON/);
    await create.getByLabel('Config (JSON)').fill('');
    await create.getByRole('button', { name: 'Create connection' }).click();
    const connection = ada.getByTestId('connection-row').filter({ hasText: 'edge-waf' });
    await connection.waitFor({ timeout: 15_000 });
    expect(await connection.textContent()).not.toContain(WAF_TOKEN);
    await connection.getByRole('button', { name: 'Test edge-waf' }).click();
    await expect.poll(() => connection.getByTestId('probe-result').textContent(), { timeout: 15_000 }).toMatch(/^Reached \(http_get\) in \d+ ms/);
    // Rotated to the secret the stand-in takes: the old one keeps working through the overlap.
    await connection.getByRole('button', { name: 'Rotate secret of edge-waf' }).click();
    await connection.getByLabel('New secret', { exact: true }).fill(WAF_TOKEN);
    await connection.getByRole('button', { name: 'Rotate', exact: true }).click();
    await expect.poll(() => connection.textContent(), { timeout: 15_000 }).toContain('the previous one works until');
    await shoot(ada, 'connections');
    await expectAccessible(ada, 'connections');
    await ana.goto(`${anaUrl}/settings/connections`);
    await expect.poll(() => ana.getByRole('alert').first().textContent(), { timeout: 15_000 }).toBe('permission manage_connections required install-wide');
    expect(await ana.getByRole('link', { name: 'Settings' }).count()).toBe(0);
    expect(await ada.getByRole('link', { name: 'Settings' }).count()).toBe(1);

    // The edge WAF's pack from the signed registry: its checks, then installed as its preview showed.
    await ada.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Integration packs' }).click();
    const pack = ada.getByTestId('pack').filter({ has: ada.getByRole('heading', { name: /edge_waf/ }) });
    await pack.waitFor({ timeout: 15_000 });
    // The shipped registry is checksum-verified only until an operator sets SVC_PACK_PUBLIC_KEY (docs/integration-packs.md).
    expect(await pack.textContent()).toContain('not verified: no key configured');
    await pack.getByRole('button', { name: 'Test edge_waf' }).click();
    await expect.poll(() => pack.getByTestId('pack-test-summary').textContent(), { timeout: 15_000 }).toMatch(/^Checks of edge_waf .*: \d+ passed, 0 failed/);
    await pack.getByRole('button', { name: 'Preview edge_waf' }).click();
    const plan = pack.getByTestId('pack-plan');
    await expect.poll(() => plan.textContent(), { timeout: 15_000 }).toContain('custom.edge_waf.block');
    await shoot(ada, 'pack-preview');
    await expectAccessible(ada, 'pack preview');
    await plan.getByRole('button', { name: 'Install as previewed' }).click();
    await expect.poll(() => pack.getByRole('status').first().textContent(), { timeout: 15_000 }).toMatch(/^Installed edge_waf /);
    // The response policy: 10.0.0.0/8 protected, blocks of addresses unattended up to an hour, bound to the edge WAF.
    await ada.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Response policy' }).click();
    await expect.poll(() => ada.getByTestId('policy-version').textContent(), { timeout: 15_000 }).toContain('the default policy');
    const protectedTargets = ada.getByRole('region', { name: 'Protected targets' });
    await protectedTargets.getByLabel('Value').fill('10.0.0.0/8');
    await protectedTargets.getByRole('button', { name: 'Protect' }).click();
    const grants = ada.getByRole('region', { name: 'Automatic grants' });
    await grants.getByRole('button', { name: 'Add a grant' }).click();
    const bindings = ada.getByRole('region', { name: 'Adapter bindings' });
    await bindings.getByRole('button', { name: 'Add a binding' }).click();
    const binding = bindings.getByRole('group', { name: 'Binding 1' });
    await binding.getByLabel('Adapter').fill('edge_waf');
    await binding.getByLabel('Connection').selectOption('edge-waf');
    await binding.getByLabel('Block action', { exact: true }).selectOption('custom.edge_waf.block');
    await binding.getByLabel('Unblock action', { exact: true }).selectOption('custom.edge_waf.unblock');
    await binding.getByLabel('Status action', { exact: true }).selectOption('custom.edge_waf.status');
    await binding.getByLabel('Parameters (JSON)').fill(`{"zone": "${WAF_ZONE}"}`);
    expect(await ada.getByTestId('policy-draft-diff').textContent()).toContain('+       "value": "10.0.0.0/8"');
    await expectAccessible(ada, 'response policy');
    await ada.getByRole('button', { name: 'Publish as version 1' }).click();
    await expect.poll(() => ada.getByTestId('policy-version').textContent(), { timeout: 15_000 }).toMatch(/^In force: version 1, published by ada@example.com/);
    await ada
      .getByTestId('policy-versions')
      .getByText(/^Version 1/)
      .click();
    expect(await ada.getByTestId('policy-versions').textContent()).toContain('"adapter_id": "edge_waf"');
    await shoot(ada, 'response-policy');
    // Ana runs the blocking runbook on the case; the case shows the block in its containment panel, with its run.
    await ana.goto(`${anaUrl}/cases/${caseId}`);
    await ana.getByRole('combobox', { name: /^Runbook/ }).selectOption({ label: 'Block the source address' });
    await ana.getByRole('button', { name: 'Run on this case' }).click();
    await ana.waitForURL(/\/svc\/runs\/[0-9a-f-]+$/);
    const run = { id: ana.url().split('/').pop() ?? '' };
    await ana.goto(`${anaUrl}/cases/${caseId}`);
    const panel = ana.getByRole('region', { name: 'Containment' });
    const caseRow = panel.getByTestId('effect-row').filter({ hasText: '198.51.100.23' });
    await expect.poll(() => caseRow.textContent(), { timeout: 30_000 }).toContain('active');
    expect(await caseRow.getByRole('link', { name: 'Run' }).getAttribute('href')).toBe(`/svc/runs/${run.id}`);
    expect(await caseRow.getByRole('button', { name: /Release/ }).count()).toBe(0);

    // Abe, an approver, releases it from the containment page.
    await abe.goto(`${abeUrl}/effects`);
    const row = abe.getByTestId('effect-row').filter({ hasText: '198.51.100.23' });
    await row.waitFor({ timeout: 15_000 });
    expect(await row.textContent()).toContain('edge_waf (policy v1)');
    const ttl = await row.getByTestId('effect-ttl').textContent();
    expect(ttl).toMatch(/^in (9m|10m) \d\ds$/);
    await expect.poll(() => row.getByTestId('effect-ttl').textContent(), { timeout: 5_000 }).not.toBe(ttl);
    expect(waf.rules.size).toBe(1);
    await shoot(abe, 'containment');
    await expectAccessible(abe, 'containment page');
    await row.getByRole('button', { name: 'Release the block of 198.51.100.23' }).click();
    await expectAccessible(abe, 'containment release confirmation');
    await row.getByRole('button', { name: 'Release now' }).click();
    await abe.getByText('No containment effects here.').waitFor({ timeout: 15_000 });
    expect(waf.rules.size).toBe(0);
    await abe.getByLabel('Status').selectOption('any');
    await expect.poll(() => abe.getByTestId('effect-row').filter({ hasText: '198.51.100.23' }).textContent(), { timeout: 15_000 }).toContain('reversed');
    await expect.poll(() => caseRow.textContent(), { timeout: 15_000 }).toContain('reversed');
  });

  it('authors a runbook from scratch: a step added and linked on the canvas, a problem shown at its line and fixed, a dry run, a save, a run and a diff', async () => {
    const { yamlNow, replaceYaml } = yamlEditorOf(ada);
    const validation = ada.getByTestId('validation');
    const noProblem = () => expect.poll(() => validation.textContent(), { timeout: 15_000 }).toBe('The server finds no problem.');

    await ada.goto(`${adaUrl}/runbooks`);
    await ada.getByRole('link', { name: 'New runbook' }).click();
    await noProblem();
    await replaceYaml(
      'id: triage-note\nname: Triage note\ndescription: Tags the case, then notes it.\nversion: 1\ntrigger: { type: manual }\nsteps:\n  - id: tag\n    action: case.update\n    ui: { x: 0, y: 0 }\n    with: { tags_add: [editor-made] }\n',
    );
    await noProblem();

    // A step added on the canvas, then linked to the first by drawing the edge between their handles.
    const addStep = ada.getByRole('form', { name: 'Add a step' });
    await addStep.getByLabel('Step id').fill('note');
    await addStep.getByLabel('Action').selectOption('case.update');
    await addStep.getByRole('button', { name: 'Add the step' }).click();
    await ada.getByTestId('graph-node-note').waitFor({ timeout: 15_000 });
    await ada
      .getByTestId('graph-node-tag')
      .locator('.react-flow__handle.source')
      .dragTo(ada.getByTestId('graph-node-note').locator('.react-flow__handle.target'));
    await expect.poll(yamlNow, { timeout: 15_000 }).toContain('    needs: [tag]');
    expect(await ada.getByRole('table', { name: 'Steps' }).textContent()).toContain('notecase.updatetag');

    // A mistake the server finds, shown at its line, in the list and in the editor's gutter; then fixed.
    const withNote = (await yamlNow()).replace(/(id: note[\s\S]*?with: )\{\}/, '$1{ tags_add: noted }');
    await replaceYaml(withNote);
    const line = withNote.split('\n').findIndex((text) => text.includes('tags_add: noted')) + 1;
    await expect.poll(() => validation.textContent(), { timeout: 15_000 }).toContain(`Line ${line}: steps.1.with.tags_add:`);
    expect(await ada.locator('.cm-lint-marker-error').count()).toBeGreaterThan(0);
    await expectAccessible(ada, 'runbook editor with a problem');
    await replaceYaml(withNote.replace('tags_add: noted', 'tags_add: [noted]'));
    await noProblem();

    // A dry run of the draft on the case: every step previewed, nothing changed, nothing saved.
    await ada.getByRole('combobox', { name: /^Case/ }).selectOption(caseId);
    await ada.getByRole('button', { name: 'Dry run the draft' }).click();
    const trial = ada.getByTestId('trial-result');
    await expect.poll(() => trial.getByRole('status').textContent(), { timeout: 30_000 }).toMatch(/^Dry run of version 1: succeeded/);
    expect(await trial.getByTestId('trial-step-note').textContent()).toContain('"noted"');
    expect(await ada.getByTestId('graph-node-note').getAttribute('data-status')).toBe('ok');
    expect(await ada.getByTestId('draft-state').textContent()).toBe('Not saved yet.');
    await shoot(ada, 'runbook-editor');

    // Saved, then run for real on the case.
    await ada.getByRole('button', { name: 'Save', exact: true }).click();
    await ada.waitForURL(/\/svc\/runbooks\/triage-note\/edit$/);
    await expect.poll(() => ada.getByTestId('draft-state').textContent(), { timeout: 15_000 }).toBe('Saved as version 1.');
    await ada.getByRole('combobox', { name: /^Case/ }).selectOption(caseId);
    await ada.getByRole('button', { name: 'Run the saved runbook' }).click();
    await expect.poll(() => ada.getByTestId('trial-result').getByRole('status').textContent(), { timeout: 30_000 }).toMatch(/^Run of version 1: succeeded/);

    // A change saved without a new version is refused by the version rule; the editor offers the bump.
    await noProblem();
    await replaceYaml((await yamlNow()).replace(/\[ ?editor-made ?\]/, '[editor-made, reviewed]'));
    await expect.poll(yamlNow, { timeout: 15_000 }).toContain('[editor-made, reviewed]');
    await ada.getByRole('button', { name: 'Save', exact: true }).click();
    await ada.getByRole('button', { name: 'Bump to version 2' }).click();
    await ada.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => ada.getByTestId('draft-state').textContent(), { timeout: 15_000 }).toBe('Saved as version 2.');
    await ada.getByRole('link', { name: 'Back to the runbook' }).click();
    const diff = ada.getByTestId('text-diff');
    await expect.poll(() => diff.textContent(), { timeout: 15_000 }).toContain('version: 2 (added)');
    expect(await diff.textContent()).toContain('version: 1 (removed)');
    expect(await diff.textContent()).toContain('[editor-made, reviewed] } (added)');
    // The bump and the canvas's edits left every other line as the author wrote it.
    expect((await diff.textContent())?.match(/\(added\)/g)).toHaveLength(2);
    await expectAccessible(ada, 'runbook page with its versions');

    // Ana, an analyst, has no link to the editor, and a save she forces is refused in words.
    await ana.goto(`${anaUrl}/runbooks/triage-note`);
    await ana.getByRole('heading', { name: 'Triage note' }).waitFor({ timeout: 15_000 });
    expect(await ana.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    await ana.goto(`${anaUrl}/runbooks/new`);
    await ana.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => ana.getByRole('alert').first().textContent(), { timeout: 15_000 }).toBe('permission manage_runbooks required install-wide');
  });
  it('runs the settings an administrator keeps: a webhook source and its token, the audit log and its chain, retention and AI usage; an analyst is refused in words', async () => {
    const settingsNav = ada.getByRole('navigation', { name: 'Settings' });
    const post = (token: string) =>
      fetch(`${svc.url}/webhooks/siem-forwarder`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-token': token },
        body: JSON.stringify({ rule: { name: 'Impossible travel for ana' }, event: { severity: 'high' }, user: { name: 'ana' } }),
      });

    // A generic source made in the browser; its token is shown once, and it works.
    await ada.goto(`${adaUrl}/settings/connections`);
    await settingsNav.getByRole('link', { name: 'Webhook sources' }).click();
    const create = ada.getByRole('region', { name: 'New webhook source' });
    await create.getByLabel('Type').selectOption('generic');
    await create.getByLabel('Slug').fill('siem-forwarder');
    await create.getByLabel('Name').fill('SIEM forwarder');
    await create.getByLabel('Title field').fill('rule.name');
    await create.getByLabel('Severity field').fill('event.severity');
    await create.getByRole('button', { name: 'Create source' }).click();
    const issued = ada.getByTestId('issued-token');
    await expect.poll(() => issued.textContent(), { timeout: 15_000 }).toContain(`${adaApi}/webhooks/siem-forwarder`);
    const token = (await issued.getByTestId('token-value').textContent()) ?? '';
    expect((await post(token)).status).toBe(202);
    await shoot(ada, 'webhook-sources');
    await expectAccessible(ada, 'webhook sources with a token shown once');
    await issued.getByRole('button', { name: 'I have copied it' }).click();
    expect(await ada.getByTestId('issued-token').count()).toBe(0);

    // Rotated after confirming: the new token is shown once, the old one refused at once; then disabled.
    const row = ada.getByTestId('webhook-source-row').filter({ hasText: 'siem-forwarder' });
    await row.getByRole('button', { name: 'Rotate token of SIEM forwarder' }).click();
    await row.getByRole('button', { name: 'Rotate it' }).click();
    await expect.poll(async () => (await ada.getByTestId('token-value').textContent()) ?? token, { timeout: 15_000 }).not.toBe(token);
    const rotated = (await ada.getByTestId('token-value').textContent()) ?? '';
    expect((await post(token)).status).toBe(401);
    expect((await post(rotated)).status).toBe(202);
    await row.getByRole('button', { name: 'Disable SIEM forwarder' }).click();
    await expect.poll(() => row.textContent(), { timeout: 15_000 }).toContain('disabled');
    expect((await post(rotated)).status).toBe(401);

    // The audit log: the chain verified, filtered to the rotation in the URL, who did it.
    await settingsNav.getByRole('link', { name: 'Audit log' }).click();
    await expect.poll(() => ada.getByTestId('audit-chain').textContent(), { timeout: 15_000 }).toMatch(/^Chain verified: \d+ entries$/);
    await ada.getByLabel('Action').selectOption('webhook_source.rotate_token');
    await expect.poll(() => ada.getByTestId('audit-row').count(), { timeout: 15_000 }).toBe(1);
    expect(ada.url()).toContain('action=webhook_source.rotate_token');
    expect(await ada.getByTestId('audit-row').textContent()).toContain('ada@example.com');
    await shoot(ada, 'audit');
    await expectAccessible(ada, 'audit log');

    // Retention, read from its configuration; AI off with no provider, its usage saved and audited.
    await settingsNav.getByRole('link', { name: 'Retention' }).click();
    await expect.poll(() => ada.getByTestId('retention-window').textContent(), { timeout: 15_000 }).toMatch(/^Closed cases are purged \d+ days after closing/);
    await expectAccessible(ada, 'retention page');
    await settingsNav.getByRole('link', { name: 'AI' }).click();
    await expect.poll(() => ada.getByTestId('ai-status').textContent(), { timeout: 15_000 }).toMatch(/^Off:/);
    await ada.getByLabel(/^cases:/).check();
    await ada.getByLabel('Max tokens').fill('2048');
    await ada.getByRole('button', { name: 'Save usage settings' }).click();
    await ada.getByText('Saved.').waitFor({ timeout: 15_000 });
    await expectAccessible(ada, 'AI settings page');
    const audited = await fetch(`${adaApi}/audit?action=ai.settings.updated`);
    expect(((await audited.json()) as { items: { detail: { changed: string[] } }[] }).items.at(-1)?.detail.changed).toEqual(['data_classes', 'max_tokens']);

    // Ana, an analyst, is refused each page's read in words.
    const refusals: Record<string, string> = {
      'webhook-sources': 'permission manage_connections required',
      audit: 'permission admin required install-wide',
      retention: 'permission admin required install-wide',
      ai: 'permission admin required install-wide',
    };
    for (const [page, words] of Object.entries(refusals)) {
      await ana.goto(`${anaUrl}/settings/${page}`);
      await expect.poll(() => ana.getByRole('alert').first().textContent(), { timeout: 15_000 }).toBe(words);
    }
  });
  it('drafts a custom action from an OpenAPI document, narrows it, shows a refused field at its line, saves, enables and diffs it; an analyst is refused', async () => {
    const { yamlNow, replaceYaml } = yamlEditorOf(ada);
    const hostSchema = { type: 'object', properties: { verdict: { type: 'string' }, score: { type: 'integer' } } };
    const ipParameter = { name: 'ip', in: 'path', required: true, schema: { type: 'string' } };
    const vendorDocument = JSON.stringify({
      openapi: '3.0.3',
      info: { title: 'Threat intel', version: '2' },
      servers: [{ url: 'https://intel.example.com/api/v2' }],
      paths: {
        '/hosts/{ip}': {
          get: {
            operationId: 'getHost',
            parameters: [ipParameter],
            responses: { 200: { description: 'the host', content: { 'application/json': { schema: hostSchema } } } },
          },
        },
        '/hosts/{ip}/tags': {
          post: {
            operationId: 'tagHost',
            parameters: [ipParameter],
            requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { tag: { type: 'string' } } } } } },
            responses: { 204: { description: 'tagged' } },
          },
        },
      },
    });

    // Drafted from the vendor's document: two operations, each a disabled draft in the arbitrary tier.
    await ada.goto(`${adaUrl}/settings/connections`);
    await ada.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Custom actions' }).click();
    // The edge WAF pack the containment test installed brought its own actions.
    const listed = ada.getByRole('table', { name: 'Custom actions' });
    await expect.poll(() => listed.textContent(), { timeout: 15_000 }).toContain('integration pack');
    await ada.getByRole('link', { name: 'New custom action' }).click();
    const importer = ada.getByRole('region', { name: 'Draft from an OpenAPI document' });
    await importer.getByLabel('Document', { exact: true }).fill(vendorDocument);
    await importer.getByLabel('Name prefix').fill('custom.intel');
    await importer.getByRole('button', { name: 'Draft the actions' }).click();
    const drafts = ada.getByTestId('openapi-drafts');
    await expect.poll(() => drafts.getByRole('status').textContent(), { timeout: 15_000 }).toMatch(/^Threat intel \(OpenAPI 3\.0\.3\): 2 drafts/);
    expect(await drafts.getByRole('table', { name: 'Drafts' }).textContent()).toContain('POST /hosts/{ip}/tags');
    await drafts.getByRole('button', { name: 'Edit this draft: custom.intel.get_host' }).click();
    await expect.poll(yamlNow, { timeout: 15_000 }).toContain('name: custom.intel.get_host');
    expect(await ada.getByTestId('draft-notes').textContent()).toContain('suggests the risk read');
    const drafted = await yamlNow();
    expect(drafted).toContain('risk: arbitrary');
    expect(drafted).toContain('path: /api/v2/hosts/{{ inputs.ip }}');
    expect(await ada.getByRole('button', { name: 'Save', exact: true }).isDisabled()).toBe(true);
    await expectAccessible(ada, 'custom action drafted from OpenAPI');

    // Narrowed to a read; a timeout the service refuses is marked at its line, then fixed and saved.
    const narrowed = drafted.replace('risk: arbitrary', 'risk: read').replace('effect_type: arbitrary', 'effect_type: enrich');
    const tooLong = narrowed.replace(/timeout_s: \d+/, 'timeout_s: 999');
    await replaceYaml(tooLong);
    await ada.getByRole('button', { name: 'Save', exact: true }).click();
    const line = tooLong.split('\n').findIndex((text) => text.startsWith('timeout_s:')) + 1;
    await expect.poll(() => ada.getByTestId('spec-problems').textContent(), { timeout: 15_000 }).toContain(`Line ${line}: timeout_s:`);
    expect(await ada.locator('.cm-lint-marker-error').count()).toBeGreaterThan(0);
    await replaceYaml(narrowed);
    await ada.getByRole('button', { name: 'Save', exact: true }).click();
    await ada.waitForURL(/\/svc\/settings\/custom-actions\/[0-9a-f-]{36}$/);
    await expect.poll(() => ada.getByTestId('action-state').textContent(), { timeout: 15_000 }).toBe('disabled: a run cannot start it');
    await ada.getByRole('button', { name: 'Enable', exact: true }).click();
    await expect.poll(() => ada.getByTestId('action-state').textContent(), { timeout: 15_000 }).toBe('enabled: runbooks may call it');

    // A new title is version 2, and the versions' diff shows exactly that line.
    await replaceYaml((await yamlNow()).replace(/^title: .*$/m, 'title: Ask the intel vendor about a host'));
    await ada.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => ada.getByTestId('action-version').textContent(), { timeout: 15_000 }).toBe('2');
    const diff = ada.getByTestId('text-diff');
    await expect.poll(() => diff.textContent(), { timeout: 15_000 }).toContain('title: Ask the intel vendor about a host (added)');
    expect((await diff.textContent())?.match(/\(added\)/g)).toHaveLength(1);
    await shoot(ada, 'custom-action');
    await expectAccessible(ada, 'custom action with its versions');
    await ada.getByRole('link', { name: 'All custom actions' }).click();
    await expect
      .poll(() => listed.getByRole('row').filter({ hasText: 'custom.intel.get_host' }).textContent(), { timeout: 15_000 })
      .toContain('custom.intel.get_hostAsk the intel vendor about a hosthttpreadenrich2APIenabled');

    // Ana, an analyst, is refused the list in words.
    await ana.goto(`${anaUrl}/settings/custom-actions`);
    await expect.poll(() => ana.getByRole('alert').first().textContent(), { timeout: 15_000 }).toBe('permission manage_connections required install-wide');
  });
  it('draws the SOC dashboard as charts with their numbers in tables, the window in the URL', async () => {
    // Every role holds `read`, which the dashboard needs: there is no role to refuse here.
    await ana.goto(`${anaUrl}/cases`);
    await ana.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Metrics' }).click();
    await expect.poll(() => ana.getByTestId('metrics-totals').textContent(), { timeout: 15_000 }).toMatch(/Opened[1-9]/);
    expect(await ana.getByTestId('metrics-overview').textContent()).toMatch(/Open cases[1-9]/);
    for (const chart of ['chart-alerts', 'chart-volume', 'chart-response', 'chart-runs', 'chart-automation']) {
      await ana.getByTestId(chart).locator('canvas').waitFor({ timeout: 15_000 });
      expect(await ana.getByTestId(chart).getByRole('row').count()).toBeGreaterThan(1);
    }
    expect(await ana.getByRole('table', { name: 'Cases opened and closed per week' }).textContent()).toMatch(/\d{4}-\d{2}-\d{2}[1-9]\d* cases/);
    expect(await ana.getByRole('table', { name: 'Alerts received per week' }).textContent()).toMatch(/\d{4}-\d{2}-\d{2}[1-9]\d* alerts/);
    expect(await ana.getByRole('table', { name: 'Runs finished per week, by outcome' }).textContent()).toMatch(/Succeeded.*Failed.*Denied.*Expired.*Cancelled/);
    expect(await ana.getByRole('table', { name: 'Top rules' }).textContent()).toContain('SSH brute force from one source');
    await shoot(ana, 'metrics');
    await expectAccessible(ana, 'metrics dashboard');
    await ana.getByRole('combobox', { name: 'Window' }).selectOption('7');
    await ana.waitForURL(/\/svc\/metrics\?days=7$/);
    await expect.poll(() => ana.getByTestId('metrics-totals').textContent(), { timeout: 15_000 }).toMatch(/Opened[1-9]/);
  });
  it('asks AI to triage the case, draft a runbook and explain a run: the evidence linked, the draft as a diff, each refused in words while AI is off', async () => {
    // Off: the panel says so, and a request made anyway is refused in words.
    await ana.goto(`${anaUrl}/cases/${caseId}`);
    const panel = ana.getByTestId('ai-triage');
    await panel.getByText('AI is off for this install', { exact: false }).waitFor({ timeout: 15_000 });
    await panel.getByRole('button', { name: 'Ask AI to triage' }).click();
    await expect.poll(() => panel.getByRole('alert').textContent(), { timeout: 15_000 }).toBe('AI is disabled for this install');

    // On: the identity service writes the provider half with its own token, an admin the usage half.
    ai = await startAiProviderServer({ apiKey: AI_KEY });
    const identityToken = await mintDevToken(
      await ensureDevIdentity(dataDir),
      { token_use: 'service', sub: 'identity', scope: 'svc:peer:ai:write' },
      { audience: 'svc', ttlSeconds: 300 },
    );
    const provider = await fetch(`${svc.url}/peer/v1/settings/ai`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${identityToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true, provider: 'compatible_api', base_url: `${ai.url}/v1`, model: 'triage-model', api_key: AI_KEY }),
    });
    expect(provider.status, await provider.text()).toBe(200);
    const usage = await fetch(`${adaApi}/settings/ai`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ data_classes: ['alerts', 'events', 'cases'], max_tokens: 2048, temperature: 0, timeout_seconds: 5 }),
    });
    expect(usage.status, await usage.text()).toBe(200);

    // Triage: the verdict with its evidence linked to the alert, a reference to nothing sent marked unverified, then Ana's judgement.
    const alertId = ((await (await fetch(`${adaApi}/cases/${caseId}/alerts`)).json()) as { items: { id: string }[] }).items[0]?.id ?? '';
    ai.respondWith({
      kind: 'json',
      value: {
        verdict: 'true_positive',
        confidence: 0.82,
        rationale: 'Many failed SSH logins from one source against web-01.',
        evidence_refs: [alertId, 'alert-made-up'],
        suggested_runbook: null,
      },
    });
    await ana.reload();
    await panel.getByRole('button', { name: 'Ask AI to triage' }).click();
    const record = ana.getByTestId('ai-triage-record');
    await expect.poll(() => record.getByRole('status').textContent(), { timeout: 15_000 }).toMatch(/^True positive, confidence 82%/);
    expect(await record.getByRole('link', { name: 'alert: SSH brute force from one source' }).getAttribute('href')).toBe(`/svc/alerts/${alertId}`);
    expect(await ana.getByTestId('ai-unverified').textContent()).toBe('alert-made-up (unverified)');
    await record.getByLabel('My verdict').selectOption('benign_positive');
    await record.getByRole('button', { name: 'Give my judgement' }).click();
    await expect.poll(() => ana.getByTestId('my-judgement').textContent(), { timeout: 15_000 }).toBe('You judged it: Benign positive.');
    await expectAccessible(ana, 'case page with an AI triage');

    // A draft in the editor, shown as a diff against the editor's text, accepted into it unsaved.
    ai.respondWith({
      kind: 'json',
      value: {
        yaml_text:
          'id: ai-drafted\nname: AI drafted\ndescription: Notes the case.\nversion: 1\nenabled: false\ntrigger: { type: manual }\nsteps:\n  - id: note\n    action: case.update\n    with: { tags_add: [ai-drafted] }\n',
        summary: 'Tags the case as drafted by AI.',
        notes: ['Review the tag.'],
      },
    });
    await ada.goto(`${adaUrl}/runbooks/new`);
    await ada.getByLabel('What should the runbook do?').fill('Tag the case so we know AI drafted the runbook');
    await ada.getByRole('button', { name: 'Draft it' }).click();
    const proposal = ada.getByTestId('ai-draft-proposal');
    await expect.poll(() => proposal.textContent(), { timeout: 15_000 }).toContain('Tags the case as drafted by AI.');
    expect(await proposal.getByTestId('text-diff').textContent()).toContain('id: ai-drafted (added)');
    await expectAccessible(ada, 'runbook editor with an AI proposal');
    await proposal.getByRole('button', { name: 'Accept the draft' }).click();
    await expect.poll(yamlEditorOf(ada).yamlNow, { timeout: 15_000 }).toContain('id: ai-drafted');
    expect(await ada.getByTestId('draft-state').textContent()).toBe('Not saved yet.');

    // A run explained from its action log; a step the log lacks is marked.
    const runId = ((await (await fetch(`${adaApi}/runs?runbook_id=triage-note&limit=1`)).json()) as { items: { id: string }[] }).items[0]?.id ?? '';
    ai.respondWith({
      kind: 'json',
      value: {
        summary: 'The runbook tagged the case twice.',
        steps: [
          { step_id: 'tag', explanation: 'Added the editor-made tag.' },
          { step_id: 'ghost', explanation: 'Did something the log does not show.' },
        ],
        outcome: 'Succeeded.',
        next_steps: ['Review the tags.'],
        risks: [],
      },
    });
    await ada.goto(`${adaUrl}/runs/${runId}`);
    await ada.getByRole('button', { name: 'Explain this run with AI' }).click();
    const explanation = ada.getByTestId('run-explanation');
    await expect.poll(() => explanation.textContent(), { timeout: 15_000 }).toContain('The runbook tagged the case twice.');
    expect(await explanation.textContent()).toContain('ghost (not in the action log: unverified): Did something the log does not show.');
    await expectAccessible(ada, 'run page with an AI explanation');
  });

  it('acts on many at once: alerts escalated into one case from the inbox, cases closed from the list, each row with its outcome; the filters kept as a saved view', async () => {
    const post = async (path: string, body: unknown) => {
      const answer = await fetch(`${gateways[0]?.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(answer.status, await answer.clone().text()).toBe(201);
      return (await answer.json()) as { id: string };
    };
    for (const title of ['Bulk inbox one', 'Bulk inbox two']) await post('/alerts', { title, severity: 'medium' });
    await ana.goto(`${anaUrl}/alerts?status=new`);
    for (const title of ['Bulk inbox one', 'Bulk inbox two']) {
      const box = ana.getByRole('checkbox', { name: `Select alert ${title}` });
      await box.waitFor({ timeout: 15_000 });
      await box.check();
    }
    await ana.getByRole('button', { name: 'Escalate 2 alerts into one new case' }).click();
    await expect.poll(() => ana.getByRole('status').filter({ hasText: 'Escalate:' }).textContent(), { timeout: 15_000 }).toBe('Escalate: 2 of 2 done.');

    for (const title of ['Bulk close one', 'Bulk close two', 'Bulk close three']) await post('/cases', { title, severity: 'low' });
    await ana.goto(`${anaUrl}/cases?search=Bulk close`);
    await expect.poll(() => ana.getByTestId('case-row').count(), { timeout: 15_000 }).toBe(3);
    const bar = ana.getByTestId('case-bulk');
    await ana.getByRole('checkbox', { name: 'Select every loaded case' }).check();
    await expect.poll(() => bar.getByRole('heading').textContent()).toBe('Selected cases (3)');
    await bar.getByRole('combobox', { name: 'Operation' }).selectOption('close');
    await bar.getByRole('button', { name: 'Close: 3 cases' }).click();
    await expect.poll(() => bar.getByRole('status').textContent(), { timeout: 15_000 }).toBe('Close: 3 of 3 done.');
    expect(await ana.getByTestId('bulk-done').count()).toBe(3);
    await expect.poll(() => ana.getByTestId('case-row').filter({ hasText: 'closed' }).count(), { timeout: 15_000 }).toBe(3);
    await shoot(ana, 'case-list-bulk');
    await expectAccessible(ana, 'case list after a bulk close');

    // The filters in force saved as a view, and the view put back after the filters were cleared.
    const views = ana.getByTestId('saved-views');
    await views.getByRole('textbox', { name: 'Save these filters as' }).fill('Bulk closed');
    await views.getByRole('button', { name: 'Save view' }).click();
    await expect
      .poll(() => views.getByRole('combobox', { name: 'Saved view' }).locator('option:checked').textContent(), { timeout: 15_000 })
      .toBe('Bulk closed');
    await ana.getByRole('button', { name: 'Clear filters' }).click();
    await ana.waitForURL(/\/svc\/cases$/);
    await views.getByRole('combobox', { name: 'Saved view' }).selectOption({ label: 'Bulk closed' });
    await ana.waitForURL(/\/svc\/cases\?search=Bulk\+close$/);
    await expect.poll(() => ana.getByTestId('case-row').count(), { timeout: 15_000 }).toBe(3);
    await expectAccessible(ana, 'case list with its saved views');
  });
  it('merges a case into another from the case page, downloads its report, splits an alert back out, asks a required custom field before closing, and finds a case by a comment word', async () => {
    const call = async (base: string, method: string, path: string, body?: unknown) => {
      const answer = await fetch(`${base}${path}`, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(answer.status, await answer.clone().text()).toBeLessThan(300);
      return (await answer.json()) as { id: string; case_id: string; key: string };
    };
    const anaApi = gateways[0]?.url ?? '';
    const escalated = async (title: string) => {
      const alert = await call(anaApi, 'POST', '/alerts', { title, severity: 'medium' });
      const caseId = (await call(anaApi, 'POST', `/alerts/${alert.id}/escalate`, {})).case_id;
      return { alertId: alert.id, caseId, key: (await call(anaApi, 'GET', `/cases/${caseId}`)).key };
    };
    const source = await escalated('Merge source beacon');
    const target = await escalated('Merge target beacon');
    await call(anaApi, 'POST', `/cases/${source.caseId}/comments`, { body: 'The wallaby host beaconed at night.' });
    // Ada, an administrator, defines a field required to close on the settings page.
    await ada.goto(`${adaUrl}/settings/custom-fields`);
    const newField = ada.getByRole('region', { name: 'New custom field' });
    await newField.getByRole('textbox', { name: 'Name' }).fill('root_cause');
    await newField.getByRole('textbox', { name: 'Label' }).fill('Root cause');
    await newField.getByRole('combobox', { name: 'Required' }).selectOption('close');
    await newField.getByRole('button', { name: 'Define field' }).click();
    await expect.poll(() => ada.getByRole('table', { name: 'Custom fields' }).getByRole('row').count(), { timeout: 15_000 }).toBe(2);
    await expectAccessible(ada, 'custom fields settings');

    await ana.goto(`${anaUrl}/cases/${target.caseId}`);
    await ana.getByRole('textbox', { name: 'Cases to merge into this one (keys)' }).fill(source.key);
    await ana.getByRole('textbox', { name: 'Reason' }).fill('the same beacon');
    await ana.getByRole('button', { name: 'Merge', exact: true }).click();
    await expect.poll(() => ana.getByTestId('merged-from').textContent(), { timeout: 15_000 }).toBe(`Merged into this case: ${source.key}`);
    await expect.poll(() => ana.getByText('Merge source beacon').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await shoot(ana, 'case-merge');
    await expectAccessible(ana, 'case page after a merge');
    // The report downloads from the header as a PDF.
    const reportHref = (await ana.getByRole('link', { name: `PDF report of ${target.key}` }).getAttribute('href')) ?? '';
    const report = await ana.request.get(new URL(reportHref, ana.url()).toString());
    expect(report.headers()['content-type']).toBe('application/pdf');
    expect((await report.body()).subarray(0, 5).toString('latin1')).toBe('%PDF-');

    // Closing asks for the required field, in the API's words; filled, the case closes.
    await ana.getByRole('combobox', { name: 'Status' }).selectOption('closed');
    await expect.poll(() => ana.getByRole('alert').filter({ hasText: 'root_cause' }).count(), { timeout: 15_000 }).toBeGreaterThan(0);
    await ana.getByTestId('custom-fields').getByRole('textbox', { name: 'Root cause (required to close)' }).fill('Reused VPN password');
    await ana.getByRole('button', { name: 'Save fields' }).click();
    await expect
      .poll(async () => (await call(anaApi, 'GET', `/cases/${target.caseId}`)) as unknown, { timeout: 15_000 })
      .toMatchObject({
        custom_fields: { root_cause: 'Reused VPN password' },
      });

    // The header's search finds the target by the copied comment's word, not the merged source.
    await ana.getByRole('searchbox', { name: 'Search cases and alerts' }).fill('wallaby');
    await ana.getByRole('searchbox', { name: 'Search cases and alerts' }).press('Enter');
    await ana.waitForURL(/\/svc\/search\?q=wallaby$/);
    await expect
      .poll(() => ana.getByTestId('search-hit').allTextContents(), { timeout: 15_000 })
      .toEqual([expect.stringContaining(`${target.key} Merge target beacon`)]);
    await expectAccessible(ana, 'search page');

    // Split the source's alert back out: a new case opens holding it.
    await ana.goto(`${anaUrl}/cases/${target.caseId}`);
    ana.once('dialog', (dialog) => dialog.accept());
    await ana.getByRole('button', { name: 'Split out Merge source beacon' }).click();
    await ana.waitForURL((url) => /\/svc\/cases\/[0-9a-f-]+$/.test(url.pathname) && !url.pathname.endsWith(target.caseId), { timeout: 15_000 });
    await expect.poll(() => ana.getByRole('heading', { level: 1 }).textContent(), { timeout: 15_000 }).toContain('Merge source beacon');
  });

  it('follows the system into the dark theme, keeps a chosen theme across a reload, and every main page keeps its contrast in the dark', async () => {
    const themeOf = (page: Page) => page.evaluate('document.documentElement.dataset.theme');

    // Abe chose nothing: the console follows the system's preference, live.
    await abe.goto(`${abeUrl}/cases`);
    expect(await themeOf(abe)).toBe('light');
    await abe.emulateMedia({ colorScheme: 'dark' });
    await expect.poll(() => themeOf(abe), { timeout: 5_000 }).toBe('dark');
    await abe.emulateMedia({ colorScheme: 'light' });
    await expect.poll(() => themeOf(abe), { timeout: 5_000 }).toBe('light');

    // Ana chooses dark; it outlives a reload.
    await ana.goto(`${anaUrl}/cases`);
    await ana.getByLabel('Theme').selectOption('dark');
    expect(await themeOf(ana)).toBe('dark');
    await ana.reload();
    await ana.getByRole('table').first().waitFor({ timeout: 15_000 });
    expect(await themeOf(ana)).toBe('dark');
    expect(await ana.getByLabel('Theme').inputValue()).toBe('dark');
    for (const [path, ready] of [
      ['/cases', 'table'],
      [`/cases/${caseId}`, 'heading'],
      ['/alerts', 'table'],
      ['/runs', 'table'],
      ['/runbooks/contain-after-review', 'heading'],
      ['/effects', 'heading'],
      ['/metrics', 'table'],
    ] as const) {
      await ana.goto(`${anaUrl}${path}`);
      await ana.getByRole(ready).first().waitFor({ timeout: 15_000 });
      await expectAccessible(ana, `${path} in the dark theme`);
      if (path === `/cases/${caseId}`) await shoot(ana, 'case-dark');
    }

    // The code editor's text, gutter and marks keep their contrast too.
    await ada.goto(`${adaUrl}/runbooks/triage-note/edit`);
    await ada.getByLabel('Theme').selectOption('dark');
    await ada.getByTestId('yaml-editor').locator('.cm-line').first().waitFor({ timeout: 15_000 });
    await expectAccessible(ada, 'runbook editor in the dark theme');
    await ada.getByLabel('Theme').selectOption('system');
    expect(await themeOf(ada)).toBe('light');
  });

  it('walks the pages as a viewer and an analyst: what their role may not do has no control, and a page it may not read answers in words', async () => {
    const valGateway = await gatewayAs(await ensureDevIdentity(dataDir), svc.url, 'val@example.com', 'viewer');
    gateways.push(valGateway);
    const valContext = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    contexts.push(valContext);
    const val = await valContext.newPage();
    const valUrl = `${valGateway.url}/svc`;
    const buttons = (page: Page, name: string | RegExp) => page.getByRole('button', { name, exact: typeof name === 'string' }).count();

    // A run waiting at its gate, started by Ana.
    const started = await fetch(`${gateways[0]?.url}/cases/${caseId}/runbooks/contain-after-review/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(started.status, await started.clone().text()).toBe(202);
    const gated = ((await started.json()) as { id: string }).id;
    await expect
      .poll(async () => ((await (await fetch(`${gateways[0]?.url}/runs/${gated}`)).json()) as { status: string }).status, { timeout: 30_000 })
      .toBe('waiting_approval');

    // The case: Ana works it; Val reads it, with no control to change it.
    const caseControls = ['Edit', 'Assign to me', 'Post comment', 'Add task', 'Run on this case', 'Triage again', 'Ask AI to triage', 'Pin', 'Upload', 'Add'];
    await ana.goto(`${anaUrl}/cases/${caseId}`);
    await ana.getByRole('button', { name: 'Post comment' }).waitFor({ timeout: 15_000 });
    expect(await buttons(ana, 'Run on this case')).toBe(1);
    await val.goto(`${valUrl}/cases/${caseId}`);
    await val.getByRole('heading', { name: 'Comments' }).waitFor({ timeout: 15_000 });
    await val.getByRole('heading', { name: 'Runs' }).waitFor({ timeout: 15_000 });
    for (const name of caseControls) expect(await buttons(val, name), `a viewer's ${name} button`).toBe(0);
    expect(await buttons(val, /^Unlink/)).toBe(0);
    await expectAccessible(val, 'case page as a viewer');

    // The gate: an approver decides it; an analyst may cancel the run; a viewer does neither.
    await abe.goto(`${abeUrl}/runs/${gated}`);
    await abe.getByRole('button', { name: 'Approve contain' }).waitFor({ timeout: 15_000 });
    await ana.goto(`${anaUrl}/runs/${gated}`);
    await ana.getByRole('button', { name: 'Cancel run' }).waitFor({ timeout: 15_000 });
    expect(await buttons(ana, /^(Approve|Deny) /)).toBe(0);
    expect(await ana.getByText('An approver decides this gate.').count()).toBe(1);
    await val.goto(`${valUrl}/runs/${gated}`);
    await val.getByText('An approver decides this gate.').waitFor({ timeout: 15_000 });
    expect(await buttons(val, /^(Approve|Deny) /)).toBe(0);
    expect(await buttons(val, 'Cancel run')).toBe(0);
    await expectAccessible(val, 'run page as a viewer');
    await val.goto(`${valUrl}/approvals`);
    await val.getByTestId('approval').filter({ hasText: 'contain-after-review' }).first().waitFor({ timeout: 15_000 });
    expect(await buttons(val, /^(Approve|Deny) /)).toBe(0);
    await expectAccessible(val, 'approvals as a viewer');

    // Runbooks: no way to author one below an administrator.
    await val.goto(`${valUrl}/runbooks`);
    await val.getByRole('link', { name: 'Contain after review' }).waitFor({ timeout: 15_000 });
    expect(await val.getByRole('link', { name: 'New runbook' }).count()).toBe(0);
    await val.goto(`${valUrl}/runbooks/contain-after-review`);
    await val.getByRole('heading', { name: 'Contain after review' }).waitFor({ timeout: 15_000 });
    expect(await val.getByRole('link', { name: 'Edit', exact: true }).count()).toBe(0);

    // Every settings page, forced by its URL: the API's refusal in words, and no settings link.
    expect(await val.getByRole('link', { name: 'Settings' }).count()).toBe(0);
    for (const page of ['connections', 'packs', 'policy', 'webhook-sources', 'custom-actions', 'audit', 'retention', 'ai']) {
      await val.goto(`${valUrl}/settings/${page}`);
      await expect
        .poll(() => val.getByRole('alert').first().textContent(), { timeout: 15_000 })
        .toMatch(/^permission (manage_connections|manage_runbooks|admin) required/);
    }
    await expectAccessible(val, 'a settings page refused to a viewer');

    await fetch(`${gateways[0]?.url}/runs/${gated}/cancel`, { method: 'POST' });
  });
});

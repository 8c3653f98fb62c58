/**
 * Turning AI on for a test service as the suite does it (SPEC.md "AI settings"): the
 * identity service writes the provider half with its own token, an admin the usage half.
 */
import { expect } from 'vitest';
import { callAs, type InProcessService, type TestPerson } from './in-process-service.ts';

/** The provider key the AI stand-ins of these tests accept. */
export const TEST_PROVIDER_KEY = 'sk-provider-key-0123456789abcdef';

/** Writes `provider` as the identity service; expects 200. */
export async function putAiProvider(svc: InProcessService, provider: Record<string, unknown>): Promise<void> {
  const token = await svc.identity.sign({ token_use: 'service', sub: 'identity', scope: 'svc:peer:ai:write' });
  const res = await svc.request('/peer/v1/settings/ai', {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(provider),
  });
  expect(res.status, await res.clone().text()).toBe(200);
}

/**
 * Points AI at the OpenAI-style stand-in at `aiUrl` (model `model`, key TEST_PROVIDER_KEY)
 * and lets `admin` allow `dataClasses`, with a 5 s timeout.
 */
export async function enableAi(svc: InProcessService, admin: TestPerson, aiUrl: string, dataClasses: string[], model = 'triage-model'): Promise<void> {
  await putAiProvider(svc, { enabled: true, provider: 'compatible_api', base_url: `${aiUrl}/v1`, model, api_key: TEST_PROVIDER_KEY });
  const usage = await callAs(svc, admin, 'PUT', '/settings/ai', { data_classes: dataClasses, max_tokens: 400, temperature: 0, timeout_seconds: 5 });
  expect(usage.status, usage.text).toBe(200);
}

import { describe, expect, it } from 'vitest';
import { gateAi, type AiGateInput } from '../../../domain/ai/gate.ts';
import type { AiSettings } from '../../../domain/ai/settings.ts';

const settings: AiSettings = {
  enabled: true,
  provider: 'compatible_api',
  base_url: 'https://ai.example/v1',
  model: 'm-1',
  key_configured: true,
  api_key: 'sk-test',
  usage: { data_classes: ['alerts', 'events', 'cases'], max_tokens: 512, temperature: 0.2, timeout_seconds: 30 },
};
const open: AiGateInput = { killSwitch: false, settings, feature: 'triage', classes: ['cases', 'alerts', 'events'], promptChars: 100, maxPromptChars: 1000 };
const codeOf = (input: AiGateInput) => {
  const g = gateAi(input);
  return g.ok ? 'ok' : g.refusal.code;
};

describe('gateAi, in SPEC.md order: kill switch, enabled, provider configuration, data classes, request bounds', () => {
  it('admits a call that passes every step, naming the provider to call', () => {
    expect(gateAi(open)).toEqual({ ok: true, target: { provider: 'compatible_api', base_url: 'https://ai.example/v1', model: 'm-1', api_key: 'sk-test' } });
  });

  it('answers the first failing step when every step fails', () => {
    const allWrong: AiGateInput = {
      killSwitch: true,
      settings: { ...settings, enabled: false, provider: null, usage: { ...settings.usage, data_classes: [] } },
      feature: 'triage',
      classes: ['cases'],
      promptChars: 5000,
      maxPromptChars: 10,
    };
    const order: string[] = [];
    let input = allWrong;
    const fixes: ((i: AiGateInput) => AiGateInput)[] = [
      (i) => ({ ...i, killSwitch: false }),
      (i) => ({ ...i, settings: { ...i.settings, enabled: true } }),
      (i) => ({ ...i, settings: { ...i.settings, provider: 'vendor_a', api_key: null } }),
      (i) => ({ ...i, settings: { ...i.settings, api_key: 'k' } }),
      (i) => ({ ...i, settings: { ...i.settings, usage: { ...i.settings.usage, data_classes: ['cases'] } } }),
      (i) => ({ ...i, maxPromptChars: 10_000 }),
    ];
    for (const fix of fixes) {
      order.push(codeOf(input));
      input = fix(input);
    }
    order.push(codeOf(input));
    expect(order).toEqual(['ai_kill_switch', 'ai_disabled', 'ai_not_configured', 'ai_invalid_config', 'ai_data_class_denied', 'ai_invalid_request', 'ok']);
  });

  it('refuses a base_url that is not an absolute http(s) URL, or carries credentials, as ai_invalid_config', () => {
    for (const base_url of ['ftp://ai.example', 'not a url', 'https://user:pw@ai.example/v1']) {
      expect(codeOf({ ...open, settings: { ...settings, base_url } })).toBe('ai_invalid_config');
    }
  });

  it('lets a local daemon or compatible API run keyless, but not vendor_a', () => {
    expect(codeOf({ ...open, settings: { ...settings, provider: 'local_daemon', api_key: null } })).toBe('ok');
    expect(codeOf({ ...open, settings: { ...settings, api_key: null } })).toBe('ok');
    expect(codeOf({ ...open, settings: { ...settings, provider: 'vendor_a', api_key: null } })).toBe('ai_invalid_config');
  });

  it('names the classes it denies, and admits a feature that reads none whatever the allowlist', () => {
    const g = gateAi({ ...open, settings: { ...settings, usage: { ...settings.usage, data_classes: ['cases'] } } });
    expect(g.ok ? null : g.refusal.message).toContain('alerts, events');
    expect(codeOf({ ...open, feature: 'runbook_draft', classes: [], settings: { ...settings, usage: { ...settings.usage, data_classes: [] } } })).toBe('ok');
  });
});

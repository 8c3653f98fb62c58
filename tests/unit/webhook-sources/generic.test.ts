/**
 * A generic source's field_map (SPEC.md "Webhook source"): flat or dotted paths, the
 * severity fallback, the content id without an external id, and refusals naming the path.
 */
import { describe, expect, it } from 'vitest';
import { mapGenericAlert, type GenericSource } from '../../../domain/webhook-sources/generic.ts';

const source: GenericSource = {
  slug: 'siem',
  team: 'blue',
  fieldMap: {
    rule_title: 'rule.name',
    severity: 'event.severity_label',
    external_id: 'kibana.alert.uuid',
    external_url: 'link',
    correlation_root: 'host.name',
  },
  defaultSeverity: 'medium',
};
const severities = ['low', 'medium', 'high', 'critical'];

describe('mapGenericAlert', () => {
  it('reads nested and flat dotted paths, trims, and lower-cases a known severity', () => {
    const payload = {
      rule: { name: ' Brute force ' },
      'event.severity_label': 'HIGH',
      'kibana.alert.uuid': 'a-1',
      link: 'https://siem.example.com/a/1',
      host: { name: 'ws-1' },
    };
    const r = mapGenericAlert(payload, source, severities, 'digest');
    expect(r).toEqual({
      ok: true,
      alert: expect.objectContaining({
        source: 'siem',
        title: 'Brute force',
        severity: 'high',
        external_id: 'a-1',
        url: 'https://siem.example.com/a/1',
        correlation_root: 'ws-1',
        team: 'blue',
        matched_log: payload,
      }),
    });
  });

  it('falls back to the default severity and the content id, and drops a link that is no URL', () => {
    const r = mapGenericAlert({ rule: { name: 'x' }, 'event.severity_label': 7, link: 'not a url' }, source, severities, 'abc');
    expect(r.ok && r.alert).toMatchObject({ severity: 'medium', external_id: 'sha256:abc', url: null, correlation_root: null });
  });

  it('refuses a missing title and over-long keys, naming the payload path', () => {
    expect(mapGenericAlert({}, source, severities, 'd')).toEqual({
      ok: false,
      problems: [{ loc: ['rule.name'], msg: 'field_map.rule_title points here and finds no text' }],
    });
    expect(mapGenericAlert({ rule: { name: 'x' } }, { ...source, fieldMap: {} }, severities, 'd')).toEqual({
      ok: false,
      problems: [{ loc: [], msg: 'the source has no field_map.rule_title' }],
    });
    const long = mapGenericAlert({ rule: { name: 'x' }, 'kibana.alert.uuid': 'u'.repeat(257) }, source, severities, 'd');
    expect(long).toEqual({
      ok: false,
      problems: [{ loc: ['kibana.alert.uuid'], msg: 'field_map.external_id points here and finds more than 256 characters' }],
    });
  });
});

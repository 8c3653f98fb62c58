/**
 * A `generic` webhook source's payload to an alert (SPEC.md "Webhook source": `field_map`
 * maps `rule_title`, `severity`, `external_id`, `external_url`, `correlation_root` to
 * flat or dotted payload paths). A path is read from the payload flattened to dotted
 * keys, so `kibana.alert.rule.name` finds a flat key written with dots as well as
 * nested objects. The whole payload is the alert's matched log, so ECS fields become
 * observables as for the detector.
 *
 * Rules: the title must resolve to a non-empty string; a severity that is absent or not
 * one of `severities` (compared lower-cased) becomes `defaultSeverity`; without an
 * external id the alert is de-duplicated on `contentId` (the caller's digest of the
 * payload); strings are trimmed, numbers taken as text; an external id over 256 or a
 * correlation root over 512 characters is refused.
 */
import { flattenDocument } from '../alerts/flatten.ts';
import type { IncomingAlert } from '../alerts/intake.ts';

export const fieldMapKeys = ['rule_title', 'severity', 'external_id', 'external_url', 'correlation_root'] as const;
export type FieldMap = Partial<Record<(typeof fieldMapKeys)[number], string>>;

export type GenericSource = { slug: string; team: string | null; fieldMap: FieldMap; defaultSeverity: string };

export type MappingProblem = { loc: string[]; msg: string };

/** The alert, or the problems naming the field_map entry and the payload path. */
export function mapGenericAlert(
  payload: Record<string, unknown>,
  source: GenericSource,
  severities: readonly string[],
  contentId: string,
): { ok: true; alert: Omit<IncomingAlert, 'observables'> & { observables: [] } } | { ok: false; problems: MappingProblem[] } {
  const flat = flattenDocument(payload);
  const read = (key: keyof FieldMap): string | null => {
    const path = source.fieldMap[key];
    if (path === undefined) return null;
    const value = flat[path];
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
  };
  const title = read('rule_title');
  if (title === null) {
    const path = source.fieldMap.rule_title;
    return {
      ok: false,
      problems: [{ loc: path ? [path] : [], msg: path ? `field_map.rule_title points here and finds no text` : 'the source has no field_map.rule_title' }],
    };
  }
  const tooLong = (['external_id', 'correlation_root'] as const).flatMap((key) => {
    const value = read(key);
    const max = key === 'external_id' ? 256 : 512;
    return value !== null && value.length > max
      ? [{ loc: [source.fieldMap[key] ?? key], msg: `field_map.${key} points here and finds more than ${max} characters` }]
      : [];
  });
  if (tooLong.length > 0) return { ok: false, problems: tooLong };
  const mapped = read('severity')?.toLowerCase() ?? null;
  const severity = mapped !== null && severities.includes(mapped) ? mapped : source.defaultSeverity;
  const url = read('external_url');
  return {
    ok: true,
    alert: {
      source: source.slug,
      external_id: read('external_id') ?? `sha256:${contentId}`,
      rule_id: null,
      title: title.slice(0, 500),
      severity,
      detected_at: null,
      url: url !== null && URL.canParse(url) ? url : null,
      correlation_root: read('correlation_root'),
      suite_correlation_id: null,
      team: source.team,
      matched_log: payload,
      observables: [],
      payload,
    },
  };
}

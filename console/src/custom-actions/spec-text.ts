/**
 * A custom action's spec as the console edits it (docs/console.md "Custom actions";
 * docs/configuration.md "Custom actions" for its fields): YAML text written from the
 * stored or drafted spec, read back into the object `POST /custom-actions` and `PUT
 * /custom-actions/<id>` take as `spec`. The service is the judge of a spec; this only
 * turns text into an object and says which tier it is in. Pure: no API, no DOM.
 */
import { parseDocument, stringify } from 'yaml';
import { isRecord } from '../format.ts';

/** The spec read from the editor's text, or why the text is not a spec at all. */
export type SpecDraft = { ok: true; spec: Record<string, unknown> } | { ok: false; msg: string };

/**
 * The order the fields are written in, as docs/configuration.md lists them: the stored
 * spec comes back from the database with its keys in the database's order. A key not
 * listed keeps its place after the listed ones.
 */
const FIELD_ORDER = [
  'name',
  'title',
  'description',
  'transport',
  'enabled',
  'default_connection',
  'inputs',
  'http',
  'ssh',
  'outputs',
  'timeout_s',
  'max_attempts',
  'redact',
  'effect_type',
  'risk',
  'target',
  'max_targets',
  'idempotency_key',
  'compensation',
  'effect',
];
const NESTED_ORDER: Record<string, readonly string[]> = {
  inputs: ['name', 'type', 'required', 'description', 'secret'],
  http: ['method', 'path', 'headers', 'query', 'body'],
  ssh: ['command', 'args'],
  outputs: ['name', 'path', 'type'],
  target: ['type', 'input'],
  compensation: ['action', 'with'],
};

/** `value`'s keys in `order`, the rest after them as they were; anything but a mapping as it is. */
function inOrder(value: unknown, order: readonly string[]): unknown {
  if (!isRecord(value) || Array.isArray(value)) return value;
  const rank = (key: string) => {
    const at = order.indexOf(key);
    return at === -1 ? order.length : at;
  };
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => rank(a) - rank(b)));
}

/** `spec` as YAML in its fields' documented order, one field a line, long templates never folded. */
export function specText(spec: unknown): string {
  const top = inOrder(spec, FIELD_ORDER);
  const written = isRecord(top)
    ? Object.fromEntries(
        Object.entries(top).map(([key, value]) => {
          const order = NESTED_ORDER[key];
          if (!order) return [key, value];
          return [key, Array.isArray(value) ? value.map((item) => inOrder(item, order)) : inOrder(value, order)];
        }),
      )
    : spec;
  return stringify(written, { lineWidth: 0 });
}

/** The object in `text`; `ok: false` with the parser's message when it is not YAML, or not a mapping. */
export function readSpec(text: string): SpecDraft {
  const doc = parseDocument(text);
  const [first] = doc.errors;
  if (first) return { ok: false, msg: first.message };
  const value: unknown = doc.toJS();
  if (!isRecord(value) || Array.isArray(value)) return { ok: false, msg: 'A spec is a mapping of its fields: name, title, transport and the rest.' };
  return { ok: true, spec: value };
}

/**
 * Whether a spec is in the arbitrary tier (`risk` or `effect_type` `arbitrary`): saving it
 * takes a global administrator and `acknowledge_danger: true`, which the editor asks for.
 */
export const isArbitrary = (spec: Record<string, unknown>): boolean => spec.risk === 'arbitrary' || spec.effect_type === 'arbitrary';

/** What a new custom action starts from: a read over HTTP, valid as it stands, for the author to change. */
export const NEW_SPEC_TEXT = `name: custom.vendor.host_lookup
title: Look up a host at the vendor
description: What the vendor knows about an address.
transport: http
default_connection: null
inputs:
  - name: ip
    type: string
    required: true
http:
  method: GET
  path: /hosts/{{ inputs.ip }}
outputs:
  - name: verdict
    path: $.verdict
    type: string
risk: read
effect_type: enrich
`;

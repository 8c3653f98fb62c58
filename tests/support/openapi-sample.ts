/**
 * Minimal request bodies built from the service's own `/openapi.json` schemas, for the
 * tests that call every operation the document lists (route-fuzz.test.ts,
 * authorization.test.ts).
 */

/** The part of a JSON Schema (as valibot's OpenAPI generation writes it) that `sample` reads. */
export type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minLength?: number;
  pattern?: string;
  minItems?: number;
};

/** A minimal instance of `schema`: required properties only, the first enum value, a plausible string per format. */
export function sample(schema: JsonSchema | undefined, ids: { caseId: string }, depth = 0): unknown {
  if (!schema || depth > 6) return null;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const option = schema.anyOf?.[0] ?? schema.oneOf?.[0];
  if (option) return sample(option, ids, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((k) => [k, sample(schema.properties?.[k], ids, depth + 1)]));
    case 'array':
      return schema.minItems ? [sample(schema.items, ids, depth + 1)] : [];
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'uuid') return ids.caseId;
      if (schema.format === 'uri' || schema.format === 'url') return 'https://example.invalid/x';
      if (schema.format === 'date-time') return '2026-11-22T10:00:00Z';
      if (schema.format === 'email') return 'someone@example.com';
      return 'fuzz-value';
    default:
      return 'fuzz-value';
  }
}

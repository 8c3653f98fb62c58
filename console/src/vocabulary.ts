/**
 * The case statuses and severities this install uses (SVC_CASE_STATUSES,
 * SVC_CASE_SEVERITIES: configuration, CONTRACTS.md section 3), read from the service's own
 * `/openapi.json`, whose enums are generated from the schemas that validate the requests.
 * So the console offers exactly what the API accepts, with no copy to drift.
 */
import { api } from './api.ts';

export type Vocabulary = { statuses: string[]; severities: string[] };

type Schema = { enum?: string[]; properties?: Record<string, Schema> };
type OpenApi = { paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: Schema }> } }>> };

const enumOf = (doc: OpenApi, path: string, method: string, field: string): string[] =>
  doc.paths[path]?.[method]?.requestBody?.content?.['application/json']?.schema?.properties?.[field]?.enum ?? [];

let cached: Promise<Vocabulary> | null = null;

/** The vocabulary, read once per tab. */
export function loadVocabulary(): Promise<Vocabulary> {
  cached ??= api<OpenApi>('/openapi.json').then((doc) => ({
    statuses: enumOf(doc, '/cases/{id}/status', 'post', 'status'),
    severities: enumOf(doc, '/cases', 'post', 'severity'),
  }));
  return cached;
}

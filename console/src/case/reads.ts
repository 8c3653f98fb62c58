/**
 * The case's lists that more than one panel of the case page shows: its alerts (the linked
 * alerts panel, the AI triage panel's evidence) and its observables (the observables panel,
 * the evidence pin picker, the AI triage panel). Panels that ask while the same read is in
 * flight, as they do when the page opens and when a `case.updated` frame reaches them all,
 * share its one request (shared-read.ts). Answers are shared objects: read them, never change them.
 */
import { answer, client } from '../api.ts';
import type { Alert, Observable } from '../api-shapes.ts';
import { sharedRead } from '../shared-read.ts';

/** `GET /cases/<id>/alerts`. */
export const readCaseAlerts = (caseId: string): Promise<{ items: Alert[] }> =>
  sharedRead(`case-alerts ${caseId}`, async () => answer(await client.GET('/cases/{id}/alerts', { params: { path: { id: caseId } } })));

/** `GET /cases/<id>/observables`. */
export const readCaseObservables = (caseId: string): Promise<{ items: Observable[] }> =>
  sharedRead(`case-observables ${caseId}`, async () => answer(await client.GET('/cases/{id}/observables', { params: { path: { id: caseId } } })));

/** The alert inbox's own shapes: a case to link to, and what an action did to one alert (alerts come as the API answers them, api-shapes.ts). */
import type { Alert, Case } from '../api-shapes.ts';

/** A case to link alerts to, as `GET /cases` lists it. */
export type CaseChoice = Pick<Case, 'id' | 'key' | 'title'>;

/** What one action did to one alert: done, with the case it went to (its key when known), or refused and why. */
export type Outcome = { alert: Alert; error: string | null; caseId: string | null; caseKey: string | null };

/**
 * Names for the API's shapes the console reads, each taken from the generated types
 * (api-types.ts, from /openapi.json): a named schema of the document, or the answer of one
 * operation where the document gives it inline. None is written by hand.
 */
import type { components, paths } from './api-types.ts';

type Schemas = components['schemas'];

export type AckSla = Schemas['AckSla'];
export type Alert = Schemas['Alert'];
export type AlertDetail = Schemas['AlertDetail'];
/** The body of `POST /alerts/bulk`: ids and one operation with its params. */
export type AlertBulkRequest = paths['/alerts/bulk']['post']['requestBody']['content']['application/json'];
/** The body of `POST /cases/bulk`. */
export type CaseBulkRequest = paths['/cases/bulk']['post']['requestBody']['content']['application/json'];
/** A saved view of the case list or the alert inbox, and the body that saves one. */
export type SavedView = Schemas['SavedView'];
export type SavedViewRequest = paths['/views']['post']['requestBody']['content']['application/json'];
/** One id's outcome of a bulk request. */
export type BulkResult = Schemas['BulkResults']['results'][number];
export type Case = Schemas['Case'];
export type Effect = Schemas['Effect'];
export type EvidencePin = Schemas['EvidencePin'];
export type Run = Schemas['Run'];
export type RunDetail = Schemas['RunDetail'];
export type Runbook = Schemas['Runbook'];
/** What the runbook graph and the editor read of a step of `GET /runbooks/{slug}`. */
export type GraphStep = Pick<Runbook['steps'][number], 'id' | 'needs' | 'kind' | 'action' | 'when_branch' | 'on_error' | 'ui'>;
export type RunbookSummary = Schemas['RunbookSummary'];
export type Task = Schemas['Task'];
export type TicketLink = Schemas['TicketLink'];

/** `GET /auth/me`: the signed-in person. */
export type Me = paths['/auth/me']['get']['responses'][200]['content']['application/json'];
/** The body of `PUT /cases/{id}`: the fields to change. */
export type CaseUpdate = paths['/cases/{id}']['put']['requestBody']['content']['application/json'];
/** The query of `GET /effects`. */
export type EffectQuery = NonNullable<paths['/effects']['get']['parameters']['query']>;
/** `GET /cases`: a page of cases. */
export type CasePage = paths['/cases']['get']['responses'][200]['content']['application/json'];
/** A person of `GET /cases/assignable-users`. */
export type Person = paths['/cases/assignable-users']['get']['responses'][200]['content']['application/json']['items'][number];
/** What the server did with the mentions of a comment (`POST /cases/{id}/comments`). */
export type Mentions = paths['/cases/{id}/comments']['post']['responses'][201]['content']['application/json']['mentions'];
/** An observable of `GET /cases/{id}/observables`, with the other cases holding its value. */
export type Observable = paths['/cases/{id}/observables']['get']['responses'][200]['content']['application/json']['items'][number];
/** What the console reads of a viewer of a case (`GET /cases/{id}/presence`; the `viewers` of a presence frame). */
export type Viewer = Pick<paths['/cases/{id}/presence']['get']['responses'][200]['content']['application/json']['items'][number], 'user_id' | 'email' | 'name'>;
/** The kinds of item `POST /cases/{id}/evidence` pins. */
export type EvidenceKind = paths['/cases/{id}/evidence']['post']['requestBody']['content']['application/json']['kind'];
/** The observable types `POST /cases/{id}/observables` accepts. */
export type ObservableType = paths['/cases/{id}/observables']['post']['requestBody']['content']['application/json']['type'];
/** The task statuses `POST /cases/{id}/tasks` and `PATCH /cases/{id}/tasks/{task_id}` accept. */
export type TaskStatus = NonNullable<paths['/cases/{id}/tasks/{task_id}']['patch']['requestBody']['content']['application/json']['status']>;
/** What `PATCH /cases/{id}/tasks/{task_id}` changes. */
export type TaskChange = paths['/cases/{id}/tasks/{task_id}']['patch']['requestBody']['content']['application/json'];
/** The alert statuses `GET /alerts` filters by. */
export type AlertStatus = NonNullable<NonNullable<paths['/alerts']['get']['parameters']['query']>['status']>;

/**
 * Observable commands (SPEC.md "Cases": POST and DELETE /cases/<id>/observables). Ids and
 * the time come in with the command (docs/architecture.md "Habits" 3); `normalized` was computed by the caller.
 */
export type ObservableCommand =
  | { type: 'add'; observableId: string; caseId: string; kind: string; value: string; normalized: string; by: string | null; now: string }
  | { type: 'remove'; observableId: string; caseId: string; by: string | null; now: string };

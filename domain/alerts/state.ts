/**
 * Alert state rebuilt from its stream: the alert stream is the authority on which case
 * holds the alert (SPEC.md "Alert").
 */
import type { AlertEvent } from './events.ts';

export type AlertState =
  | { exists: false }
  | {
      exists: true;
      id: string;
      /** The case holding the alert and its key, both null while it is in no case. */
      caseId: string | null;
      caseKey: string | null;
      /** Dismissed from the inbox and not linked since. */
      dismissed: boolean;
    };

export const initialAlertState = (): AlertState => ({ exists: false });

export function evolveAlert(state: AlertState, event: AlertEvent): AlertState {
  if (event.type === 'alert.received') {
    return state.exists ? state : { exists: true, id: event.data.alert_id, caseId: null, caseKey: null, dismissed: false };
  }
  if (!state.exists) return state;
  switch (event.type) {
    case 'alert.linked':
      return { ...state, caseId: event.data.case_id, caseKey: event.data.case_key, dismissed: false };
    case 'alert.unlinked':
      return { ...state, caseId: null, caseKey: null, dismissed: false };
    case 'alert.dismissed':
      return { ...state, dismissed: true };
    default:
      return state;
  }
}

/** The alert inbox's shapes: an alert as `GET /alerts` lists it, a case to link to, and what an action did to one alert. */
export type Alert = {
  id: string;
  source: string;
  external_id: string;
  rule_id: string | null;
  title: string;
  severity: string;
  status: string;
  case_id: string | null;
  detected_at: string | null;
  url: string | null;
  team: string | null;
  repeat_count: number;
  received_at: string;
  last_seen_at: string;
};

export type CaseChoice = { id: string; key: string; title: string };

/** What one action did to one alert: done, with the case it went to, or refused and why. */
export type Outcome = { alert: Alert; error: string | null; caseId: string | null; caseKey: string | null; after: Alert | null };
/** One action on one alert: the alert as the API answered it, and the case it put the alert in, if any. */
export type Act = (alert: Alert) => Promise<Pick<Outcome, 'caseId' | 'caseKey' | 'after'>>;

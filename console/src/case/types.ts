/** The case as `GET /cases/<id>` answers it: the fields the case page reads. */
export type AckSla = {
  state: 'none' | 'pending' | 'met' | 'breached';
  due_at: string | null;
  acknowledged_at: string | null;
  acknowledged_by: string | null;
  clock_stopped_at: string | null;
  elapsed_seconds: number;
  breached: boolean;
};

export type Case = {
  id: string;
  key: string;
  title: string;
  description: string | null;
  severity: string;
  tags: string[];
  status: string;
  owner_id: string | null;
  owner_email: string | null;
  team: string | null;
  private: boolean;
  alert_count: number;
  sla_breached: boolean;
  ack_sla: AckSla;
  sla_policy: { resolve_due_at: string | null } | null;
  attack_techniques: string[];
  created_at?: string;
};

/** Whether a live frame is about this case. */
export const aboutCase = (caseId: string) => (frame: { type: string; case_id?: unknown }) => frame.type === 'case.updated' && frame.case_id === caseId;

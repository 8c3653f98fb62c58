/**
 * The acknowledgement clock (docs/configuration.md "Cases: team, private cases, acknowledgement clock"): time since the
 * case opened until someone acknowledged it, against the template's due time. It ticks
 * while the clock runs and says in words whether the SLA is met, pending or breached.
 */
import { ackSeconds, duration, exactTime } from '../format.ts';
import { useNow } from '../ui.tsx';
import type { AckSla } from '../api-shapes.ts';

export function AckClock({ sla, readAt }: { sla: AckSla; readAt: number }) {
  const now = useNow();
  const seconds = ackSeconds(sla, readAt, now.getTime());
  const overdue = sla.due_at !== null && sla.acknowledged_at === null && sla.clock_stopped_at === null && now.getTime() > new Date(sla.due_at).getTime();
  const words =
    sla.acknowledged_at !== null
      ? `Acknowledged after ${duration(seconds)}${sla.acknowledged_by ? ` by ${sla.acknowledged_by}` : ''}`
      : sla.clock_stopped_at !== null
        ? `Clock stopped after ${duration(seconds)} (case closed unacknowledged)`
        : `Unacknowledged for ${duration(seconds)}`;
  const slaWords =
    sla.state === 'none' ? 'no SLA' : sla.breached || overdue ? 'SLA breached' : sla.state === 'met' ? 'SLA met' : `SLA due ${exactTime(sla.due_at ?? '')}`;
  return (
    <span className={sla.breached || overdue ? 'ack breached' : 'ack'} data-testid="ack-clock">
      {words} · <strong>{slaWords}</strong>
    </span>
  );
}

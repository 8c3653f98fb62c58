/**
 * Who else has this case open (SPEC.md "WS /ws" presence): joins the case on the tab's
 * socket, sends `presence.ping` every `heartbeat_interval_s`, leaves on unmount, and
 * shows the roster the server sends (`presence.joined`, `presence.updated`).
 */
import { useEffect, useState } from 'react';
import type { Viewer } from '../api-shapes.ts';
import { isRecord } from '../format.ts';
import { useLive, useLiveFrames } from '../live.tsx';
import { useMe } from '../me.tsx';

const textOrNull = (value: unknown): boolean => value === null || typeof value === 'string';
/** Whether `value` is a viewer of a presence frame: a user id, and an email and a name, each text or null. */
const isViewer = (value: unknown): value is Viewer => isRecord(value) && typeof value.user_id === 'string' && textOrNull(value.email) && textOrNull(value.name);
const viewersOf = (value: unknown): Viewer[] => (Array.isArray(value) ? value.filter(isViewer) : []);

export function Presence({ caseId }: { caseId: string }) {
  const live = useLive();
  const me = useMe();
  const [viewers, setViewers] = useState<Viewer[]>([]);

  useEffect(() => {
    live.send({ type: 'presence.join', case_id: caseId });
    const ping = setInterval(() => live.send({ type: 'presence.ping', case_id: caseId }), live.heartbeatSeconds * 1000);
    return () => {
      clearInterval(ping);
      live.send({ type: 'presence.leave', case_id: caseId });
    };
  }, [live, caseId]);

  useLiveFrames((frame) => {
    // The socket (re)opened after this page mounted: join again on the new session.
    if (frame.type === 'hello') live.send({ type: 'presence.join', case_id: caseId });
    if ((frame.type === 'presence.joined' || frame.type === 'presence.updated') && frame.case_id === caseId) setViewers(viewersOf(frame.viewers));
  });

  const others = viewers.filter((viewer) => viewer.user_id !== me.id);
  return (
    <p className="muted" data-testid="presence" aria-live="polite">
      {others.length === 0
        ? 'No one else is viewing this case.'
        : `Also viewing: ${others.map((viewer) => viewer.name ?? viewer.email ?? viewer.user_id).join(', ')}`}
    </p>
  );
}

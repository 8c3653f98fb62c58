/**
 * Live update messages between processes (docs/operations.md "Live updates"). The process
 * that projects a batch publishes what changed on one database channel; every API process
 * listens and pushes each frame to its own WebSocket connections whose caller may see it.
 *
 * A message carries frames with their audience: the visibility facts (a case's team,
 * privacy and members, an alert's team, a notification's user) needed to decide who may
 * receive a frame without reading the database again.
 */
import type { LiveRef } from '../../domain/live/refs.ts';
import { canSeeCase, type CaseScope, type ScopedCase } from '../cases/case-scope.ts';

/** The database notification channel of live updates. */
export const LIVE_CHANNEL = 'svc_live';

/** Postgres refuses NOTIFY payloads of 8000 bytes and more; frames are packed below this. */
export const MAX_PAYLOAD_BYTES = 7000;

export type Audience =
  /** Callers who may see the case. */
  | { kind: 'case'; case: ScopedCase }
  /** Callers who may see an alert of `team` (null: org-wide), by the alert inbox rule. */
  | { kind: 'alert'; team: string | null }
  /** Callers who may see the run: its case's audience, or every reader for a run without a case. */
  | { kind: 'run'; case: ScopedCase | null }
  /** One person's inbox. */
  | { kind: 'user'; user_id: string };

export type Viewer = { user_id: string; email: string | null; name: string | null };

/** A server-to-client frame (the WebSocket's own frames, such as `pong`, are in adapters/live/frames.ts). */
export type UpdateFrame = LiveRef | { type: 'notification.created'; notification_id: string };

export type BusMessage =
  | { kind: 'frames'; items: { audience: Audience; frame: UpdateFrame }[] }
  /** A viewer's presence heartbeat or leave in one API process, mirrored by the others. */
  | { kind: 'presence'; origin: string; op: 'beat' | 'leave'; case_id: string; case: ScopedCase; viewer: Viewer; at: string };

/** Whether a caller of `scope` (holding `userId`) may receive a frame for `audience`. */
export function canReach(scope: CaseScope, audience: Audience): boolean {
  switch (audience.kind) {
    case 'case':
      return canSeeCase(scope, audience.case);
    case 'alert':
      return scope.all || scope.realm || audience.team === null || scope.teams.includes(audience.team);
    case 'run':
      return audience.case === null || canSeeCase(scope, audience.case);
    case 'user':
      return scope.userId === audience.user_id;
  }
}

/** `items` packed into as few `frames` messages as fit under MAX_PAYLOAD_BYTES each. */
export function packFrames(items: { audience: Audience; frame: UpdateFrame }[]): string[] {
  const payloads: string[] = [];
  let current: string[] = [];
  let size = 0;
  const flush = () => {
    if (current.length > 0) payloads.push(`{"kind":"frames","items":[${current.join(',')}]}`);
    current = [];
    size = 0;
  };
  for (const item of items) {
    const encoded = JSON.stringify(item);
    const bytes = Buffer.byteLength(encoded);
    if (size + bytes + 40 > MAX_PAYLOAD_BYTES) flush();
    current.push(encoded);
    size += bytes + 1;
  }
  flush();
  return payloads;
}

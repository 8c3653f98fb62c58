/**
 * The WebSocket's inbound frames (SPEC.md "Live updates and inbox": `presence.join`,
 * `presence.ping`, `presence.leave`, `ping`, each at most 2 KiB; docs/operations.md
 * "Live updates"). A frame is one JSON text message; anything else is refused with an
 * `error` frame and the connection stays open. A larger frame closes the connection
 * (1009), before it is parsed.
 */
import * as v from 'valibot';
import { uuid } from '../shared/shapes.ts';

/** Largest inbound frame, bytes (SPEC.md "Limits": WebSocket inbound frame). */
export const MAX_INBOUND_FRAME_BYTES = 2048;

const caseId = uuid;

const inbound = v.variant('type', [
  v.object({ type: v.literal('ping') }),
  v.object({ type: v.literal('presence.join'), case_id: caseId }),
  v.object({ type: v.literal('presence.ping'), case_id: caseId }),
  v.object({ type: v.literal('presence.leave'), case_id: caseId }),
]);

export type InboundFrame = v.InferOutput<typeof inbound>;

/** A refusal: `{type: 'error', code, detail}` as the server sends it. */
export type FrameRefusal = { type: 'error'; code: string; detail: string; case_id?: string };

/** Parses one text frame; a refusal for anything that is not one of the four frames. */
export function parseInbound(text: string): InboundFrame | FrameRefusal {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { type: 'error', code: 'frame_refused', detail: 'a frame must be one JSON object' };
  }
  const parsed = v.safeParse(inbound, json);
  if (parsed.success) return parsed.output;
  const type = (json as { type?: unknown } | null)?.type;
  const known = ['ping', 'presence.join', 'presence.ping', 'presence.leave'];
  if (typeof type !== 'string' || !known.includes(type)) {
    return { type: 'error', code: 'frame_refused', detail: `type must be one of ${known.join(', ')}` };
  }
  return {
    type: 'error',
    code: 'frame_refused',
    detail: `${parsed.issues[0]?.path?.map((p) => String(p.key)).join('.') ?? 'frame'}: ${parsed.issues[0]?.message ?? 'invalid'}`,
  };
}

/**
 * One WebSocket per tab to `WS /ws` (docs/operations.md "Live updates"): frames carry ids
 * and states, never content, so a page re-reads what changed through the API. The socket
 * reconnects after a drop (backoff 1 s to 10 s; at once after the server's 4001 session
 * end) and then sends listeners `{type: 'live.reconnected'}`, because frames sent while
 * it was away are lost and the page must read again.
 */
import { createContext, type ReactNode, useContext, useEffect, useRef, useState } from 'react';
import { basePath } from './config.ts';
import { isRecord } from './format.ts';
import { type LiveStatus, useStatusOf } from './live-status.ts';

export type LiveFrame = { type: string; [key: string]: unknown };
/** Whether a parsed message is a frame: an object with a `type`. */
const isLiveFrame = (value: unknown): value is LiveFrame => isRecord(value) && typeof value.type === 'string';
type Listener = (frame: LiveFrame) => void;

/** The tab's connection: listeners, a status and `send` (dropped while not open). */
export class LiveConnection {
  private socket: WebSocket | null = null;
  private readonly listeners = new Set<Listener>();
  private readonly statusListeners = new Set<(status: LiveStatus) => void>();
  private retryMs = 1000;
  private opened = false;
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  status: LiveStatus = 'connecting';
  heartbeatSeconds = 30;

  constructor(private readonly url: string) {}

  start(): void {
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.socket?.close(1000);
    this.socket = null;
  }

  send(frame: LiveFrame): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(frame));
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onStatus(listener: (status: LiveStatus) => void): () => void {
    this.statusListeners.add(listener);
    return () => {
      this.statusListeners.delete(listener);
    };
  }

  private setStatus(status: LiveStatus): void {
    this.status = status;
    for (const listener of this.statusListeners) listener(status);
  }

  /** Hands `frame` to this tab's listeners as if the server had sent it: a page's own change another part of the tab shows. */
  emit(frame: LiveFrame): void {
    for (const listener of [...this.listeners]) listener(frame);
  }

  private connect(): void {
    this.setStatus('connecting');
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.onmessage = (message) => {
      if (typeof message.data !== 'string') return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(message.data);
      } catch {
        return;
      }
      if (!isLiveFrame(parsed)) return;
      const frame = parsed;
      if (frame.type === 'hello') {
        this.heartbeatSeconds = Number(frame.heartbeat_interval_s) || this.heartbeatSeconds;
        this.retryMs = 1000;
        this.setStatus('open');
        if (this.opened) this.emit({ type: 'live.reconnected' });
        this.opened = true;
      }
      this.emit(frame);
    };
    socket.onclose = (event) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.setStatus('closed');
      if (this.stopped) return;
      const wait = event.code === 4001 ? 0 : this.retryMs;
      this.retryMs = Math.min(this.retryMs * 2, 10_000);
      this.timer = setTimeout(() => this.connect(), wait);
    };
  }
}

const LiveContext = createContext<LiveConnection | null>(null);

/** Opens the tab's connection for its children. */
export function LiveProvider({ children }: { children: ReactNode }) {
  const [connection] = useState(() => {
    const url = new URL(`${basePath}/ws`, window.location.href);
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    return new LiveConnection(url.toString());
  });
  useEffect(() => {
    connection.start();
    return () => connection.stop();
  }, [connection]);
  return <LiveContext.Provider value={connection}>{children}</LiveContext.Provider>;
}

/** The tab's connection; throws outside {@link LiveProvider}. */
export function useLive(): LiveConnection {
  const connection = useContext(LiveContext);
  if (!connection) throw new Error('useLive outside LiveProvider');
  return connection;
}

/** Calls `listener` for every frame while mounted; the latest `listener` is used without resubscribing. */
export function useLiveFrames(listener: Listener): void {
  const connection = useLive();
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => connection.subscribe((frame) => latest.current(frame)), [connection]);
}

/** The connection's status, for the header's indicator (console/src/live-status.ts says why it is not plain state). */
export function useLiveStatus(): LiveStatus {
  return useStatusOf(useLive());
}

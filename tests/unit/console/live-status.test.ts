// @vitest-environment happy-dom
/**
 * The header's live indicator follows the connection even when the status changes after
 * the indicator rendered and before its effects ran (console/src/live-status.ts): the
 * race that left the console on "Connecting…" while the socket was open.
 */
import { act, createElement, Fragment, useLayoutEffect } from 'react';
import { createRoot } from 'react-dom/client';
import { describe, expect, it } from 'vitest';
import { type LiveStatus, type StatusSource, useStatusOf } from '../../../console/src/live-status.ts';

/** A status with listeners, as the tab's connection has. */
function statusSource(): StatusSource & { set: (status: LiveStatus) => void } {
  const listeners = new Set<(status: LiveStatus) => void>();
  const source = {
    status: 'connecting' as LiveStatus,
    onStatus: (listener: (status: LiveStatus) => void) => {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    set: (status: LiveStatus) => {
      source.status = status;
      for (const listener of listeners) listener(status);
    },
  };
  return source;
}

type Container = { textContent: string | null };
const dom = globalThis as unknown as { document: { createElement: (tag: string) => Container }; IS_REACT_ACT_ENVIRONMENT: boolean };
dom.IS_REACT_ACT_ENVIRONMENT = true;

function Indicator({ source }: { source: StatusSource }) {
  return createElement('span', null, useStatusOf(source));
}

/** Opens the socket during the commit: after the indicator rendered, before passive effects subscribe. */
function OpensDuringCommit({ source }: { source: ReturnType<typeof statusSource> }) {
  useLayoutEffect(() => source.set('open'), [source]);
  return null;
}

describe('the live indicator', () => {
  it('shows a status reached between its render and its subscription', async () => {
    const source = statusSource();
    const container = dom.document.createElement('div');
    const root = createRoot(container as never);
    await act(async () => root.render(createElement(Fragment, null, createElement(Indicator, { source }), createElement(OpensDuringCommit, { source }))));
    expect(container.textContent).toBe('open');

    await act(async () => source.set('closed'));
    expect(container.textContent).toBe('closed');
    await act(async () => root.unmount());
  });
});

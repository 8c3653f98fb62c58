/** The signed-in person (`GET /auth/me`), read once per tab and shared with every page. */
import { createContext, type ReactNode, useContext } from 'react';
import type { Me } from './api-shapes.ts';
import { firstReadData, takeFirstRead } from './first-reads.ts';
import { readMe } from './me-read.ts';
import { useResource } from './resource.ts';
import { ErrorNote, Loading } from './ui.tsx';

const MeContext = createContext<Me | null>(null);

/** Renders `children` once the caller is known; an unauthenticated tab sees the API's answer in words. */
export function MeProvider({ children }: { children: ReactNode }) {
  const me = useResource(
    () => takeFirstRead('me', readMe),
    [],
    undefined,
    () => firstReadData<Me>('me'),
  );
  if (me.error && !me.data) return <ErrorNote error={me.error} />;
  if (!me.data) return <Loading what="your account" />;
  return <MeContext.Provider value={me.data}>{children}</MeContext.Provider>;
}

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error('useMe outside MeProvider');
  return me;
}

/**
 * Row shapes the batched projections fold in memory: timestamps may be the Date a
 * row was read with or the ISO string an event carries; both write back unchanged.
 */
export type LooseRow<T> = {
  [K in keyof T]: T[K] extends Date ? Date | string : T[K] extends Date | null ? Date | string | null : T[K];
};

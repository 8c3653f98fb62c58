/**
 * The KurrentDB image the event-store contract suite runs and compose.yaml deploys, one
 * version everywhere: the oldest the adapter supports (multi-stream appends came with 25.1).
 */
export const KURRENTDB_IMAGE = 'kurrentplatform/kurrentdb:25.1';

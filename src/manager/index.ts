// manager: process wiring. Probes and metrics servers, the API connection and CRDs, the runnables (controllers),
// signal handling and graceful shutdown. Leader election joins here.
export { createLogger, type Logger } from './logger.js';
export { IdleHeapCompactor, shouldCompact, type HeapAccess, type HeapReading } from './idleHeap.js';
export { listen, splitAddress, type RunningServer } from './httpServer.js';
export { LeaderElector, LEASE_NAME, microTime, type LeaderElectionOptions } from './leaderElection.js';
export { LeadershipLostError, Manager, StartupError, type ManagerConfig, type ManagerOptions } from './manager.js';
export { Probes } from './probes.js';
export type { Runnable } from './runnable.js';
export { shutdownSignal, sleepUnlessAborted } from './signals.js';

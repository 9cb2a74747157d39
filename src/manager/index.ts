// manager: runs one compositor process. Probes and metrics servers, the API connection and CRD installation, leader
// election, the runnables it is handed (the engine, the idle heap compactor), signals, and a graceful shutdown with
// one deadline. It knows no controller: the CLI builds the engine (src/engine) and hands it over as a runnable.
export { createLogger, type Logger } from './logger.js';
export { heapGrowthFlag, limitHeapGrowth } from './heapGrowth.js';
export { NODE_FLAGS } from './nodeFlags.js';
export { IdleHeapCompactor, compactionReason, type HeapAccess, type HeapReading } from './idleHeap.js';
export { listen, splitAddress, type RunningServer } from './httpServer.js';
export { LeaderElector, LEASE_NAME, microTime, type LeaderElectionOptions } from './leaderElection.js';
export {
  LeadershipLostError,
  Manager,
  StartupError,
  type Elector,
  type ManagerConfig,
  type ManagerOptions,
} from './manager.js';
export { Probes } from './probes.js';
export { shutdownSignal } from './signals.js';

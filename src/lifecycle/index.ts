// lifecycle: the one start/stop contract of every long-running part, the routines that start parts so that a failed
// start releases what it took, and stop deadlines on an injected clock. It imports only base.
export { deadlineAfter, DeadlineError } from './deadline.js';
export type { Lifecycle, Runnable } from './lifecycle.js';
export { startInOrder, startOrRelease, stopInReverse } from './sequence.js';

// When a reconcile asks to look again. The queue turns a `ReconcileResult` into an action (src/queue/outcome.ts);
// what the reconcilers share is how they pick the delay.

/** Spreads requeues by +/-10% so resources created together do not poll together. `random` returns [0, 1). */
export function withJitter(ms: number, random: () => number = Math.random): number {
  return Math.round(ms * (0.9 + 0.2 * random()));
}

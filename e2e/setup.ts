import { startTarget, stopTarget } from './harness/setup.js';

// Mocha global fixtures: the target (control plane, function, compositor) outlives every test file and is torn
// down even when tests fail.
export async function mochaGlobalSetup(): Promise<void> {
  await startTarget();
}

export async function mochaGlobalTeardown(): Promise<void> {
  await stopTarget();
}
